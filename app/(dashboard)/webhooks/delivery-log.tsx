'use client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { EmptyState, ErrorState, FormError, Loading, Pager, StatusBadge } from '../../_components/ui';
import { useDescribeApiError } from '../../_lib/api-errors';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

/** One webhook's deliveries, newest first, each with its attempts; refreshes while it is open. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const describeApiError = useDescribeApiError();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const [failedOnly, setFailedOnly] = useState(false);
  const [resent, setResent] = useState<string | null>(null);
  const q = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ magic_id: webhookId, status: failedOnly ? 'FAILED' : undefined, cursor: pages.cursor, limit: 10 }),
    placeholderData: keepPreviousData,
    refetchInterval: 2_000,
  });
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({
    onSuccess: async (r) => {
      setResent(r.content.id);
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
    },
  }));

  const filter = (
    <label className="checkbox small">
      <input type="checkbox" checked={failedOnly} onChange={(e) => { pages.reset(); setFailedOnly(e.target.checked); }} /> Only failed deliveries
    </label>
  );
  if (q.isPending) return <Loading label="Loading deliveries…" />;
  if (q.isError) return <ErrorState error={q.error} onRetry={() => q.refetch()} />;
  return (
    <div className="delivery-log">
      {filter}
      <FormError message={resend.isError ? describeApiError(resend.error).message : null} />
      {q.data.content.length === 0 ? (
        <EmptyState title={failedOnly ? 'No failed deliveries' : 'No deliveries yet'}>
          <p className="muted small">{failedOnly ? 'Every delivery of this endpoint was accepted or is still being tried.' : 'Each event of a subscribed category creates one; so does a test event.'}</p>
        </EmptyState>
      ) : (
        <ul className="deliveries">
          {q.data.content.map((d) => (
            <li key={d.id} className="delivery" data-testid="delivery">
              <div className="delivery-head">
                <div>
                  <strong>{d.event_type}</strong> <span className="mono small muted">{d.resource_id}</span>
                  <p className="muted small">{formatDateTime(d.created_at)} · {d.attempt_count} {d.attempt_count === 1 ? 'attempt' : 'attempts'}
                    {d.status === 'PENDING' && d.next_attempt_at ? <> · next {formatDateTime(d.next_attempt_at)}</> : null}</p>
                </div>
                <div className="button-row">
                  <StatusBadge kind="delivery" status={d.status} />
                  <button type="button" className="button small secondary" disabled={resend.isPending && resend.variables?.delivery_id === d.id}
                    onClick={() => { setResent(null); resend.mutate({ delivery_id: d.id }); }}>Resend</button>
                </div>
              </div>
              {resent === d.id ? (
                <p className="alert alert-ok small" role="status" data-testid="resend-feedback">
                  Resend queued: a new attempt goes out now with the same body and webhook-id. Its result appears below.
                </p>
              ) : null}
              {d.attempts.length ? (
                <table className="attempts-table">
                  <caption className="sr-only">Attempts</caption>
                  <thead><tr><th>When</th><th>HTTP status</th><th>Duration</th><th className="excerpt">Receiver&apos;s answer</th></tr></thead>
                  <tbody>
                    {d.attempts.map((a, i) => (
                      <tr key={i} data-testid="attempt">
                        <td>{formatDateTime(a.at)}</td>
                        <td><span className={a.status_code && a.status_code < 300 ? 'money-in' : 'field-error'}>{a.status_code ?? 'no answer'}</span></td>
                        <td>{a.duration_ms} ms</td>
                        <td className="small excerpt">
                          {a.error ? <p className="field-error">{a.error}</p> : null}
                          {a.response_excerpt ? <pre className="mono answer" data-testid="answer">{a.response_excerpt}</pre> : <span className="muted">(empty)</span>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : <p className="muted small">Not attempted yet.</p>}
              <Payload deliveryId={d.id} />
            </li>
          ))}
        </ul>
      )}
      {pages.hasPrev || q.data.next_cursor ? (
        <Pager hasPrev={pages.hasPrev} hasNext={!!q.data.next_cursor} busy={q.isFetching} onPrev={pages.prev} onNext={() => q.data.next_cursor && pages.next(q.data.next_cursor)} />
      ) : null}
    </div>
  );
}

/** The exact body every attempt of a delivery sent, fetched when asked for. */
function Payload({ deliveryId }: { deliveryId: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const q = useQuery({ ...trpc.webhooks.delivery.queryOptions({ delivery_id: deliveryId }), enabled: open });
  let pretty: string | null = null;
  if (q.data) {
    try { pretty = JSON.stringify(JSON.parse(q.data.content.payload), null, 2); } catch { pretty = q.data.content.payload; }
  }
  return (
    <details className="payload" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Payload sent</summary>
      {!open ? null : q.isPending ? <Loading label="Loading payload…" /> : q.isError ? <ErrorState error={q.error} /> : (
        <pre className="mono answer" data-testid="payload">{pretty}</pre>
      )}
    </details>
  );
}
