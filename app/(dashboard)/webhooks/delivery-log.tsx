'use client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { EmptyState, ErrorState, FormError, Loading, Pager, StatusBadge } from '../../_components/ui';
import { describeApiError } from '../../_lib/api-errors';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

/** One webhook's deliveries, newest first, each with its attempts; refreshes while it is open. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const q = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ magic_id: webhookId, cursor: pages.cursor, limit: 10 }),
    placeholderData: keepPreviousData,
    refetchInterval: 2_000,
  });
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
  }));

  if (q.isPending) return <Loading label="Loading deliveries…" />;
  if (q.isError) return <ErrorState error={q.error} onRetry={() => q.refetch()} />;
  if (q.data.content.length === 0) return <EmptyState title="No deliveries yet"><p className="muted small">Each event of a subscribed category creates one.</p></EmptyState>;
  return (
    <div className="delivery-log">
      <FormError message={resend.isError ? describeApiError(resend.error).message : null} />
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
                <StatusBadge status={d.status} />
                <button type="button" className="button small secondary" disabled={resend.isPending && resend.variables?.delivery_id === d.id}
                  onClick={() => resend.mutate({ delivery_id: d.id })}>Resend</button>
              </div>
            </div>
            {d.attempts.length ? (
              <table className="attempts-table">
                <caption className="sr-only">Attempts</caption>
                <thead><tr><th>When</th><th>HTTP status</th><th>Duration</th><th className="excerpt">Detail</th></tr></thead>
                <tbody>
                  {d.attempts.map((a, i) => (
                    <tr key={i} data-testid="attempt">
                      <td>{formatDateTime(a.at)}</td>
                      <td><span className={a.status_code && a.status_code < 300 ? 'money-in' : 'field-error'}>{a.status_code ?? 'no answer'}</span></td>
                      <td>{a.duration_ms} ms</td>
                      <td className="muted small excerpt">{a.error ?? a.response_excerpt ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : <p className="muted small">Not attempted yet.</p>}
          </li>
        ))}
      </ul>
      {pages.hasPrev || q.data.next_cursor ? (
        <Pager hasPrev={pages.hasPrev} hasNext={!!q.data.next_cursor} busy={q.isFetching} onPrev={pages.prev} onNext={() => q.data.next_cursor && pages.next(q.data.next_cursor)} />
      ) : null}
    </div>
  );
}
