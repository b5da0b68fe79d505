'use client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { EmptyState, ErrorState, FormError, Loading, Pager, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';
import { useAttemptErrorText, useEventTypeLabel } from './words';

/** One webhook's deliveries, newest first, each with its attempts; refreshes while it is open. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const t = useTranslations('webhooks');
  const eventLabel = useEventTypeLabel();
  const attemptError = useAttemptErrorText();
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
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
    },
  }));

  const filter = (
    <label className="checkbox small">
      <input type="checkbox" checked={failedOnly} onChange={(e) => { pages.reset(); setResent(null); setFailedOnly(e.target.checked); }} /> {t('failedOnly')}
    </label>
  );
  if (q.isPending) return <Loading label={t('loadingDeliveries')} />;
  if (q.isError) return <ErrorState error={q.error} onRetry={() => q.refetch()} />;
  return (
    <div className="delivery-log">
      {filter}
      {/* above the list, not in the row: a resent delivery may leave the failed-only list at once */}
      {resent ? <p className="alert alert-ok small" role="status" data-testid="resend-feedback">{t('resendQueued', { what: resent })}</p> : null}
      <FormError error={resend.isError ? resend.error : null} />
      {q.data.content.length === 0 ? (
        <EmptyState title={failedOnly ? t('noFailed') : t('noDeliveries')}>
          <p className="muted small">{failedOnly ? t('noFailedText') : t('noDeliveriesText')}</p>
        </EmptyState>
      ) : (
        <ul className="deliveries">
          {q.data.content.map((d) => (
            <li key={d.id} className="delivery" data-testid="delivery">
              <div className="delivery-head">
                <div>
                  <strong>{eventLabel(d.event_type)}</strong> <code className="small" data-testid="event-type">{d.event_type}</code>
                  {d.resource_id ? <> <span className="mono small muted">{d.resource_id}</span></> : null}
                  <p className="muted small">{formatDateTime(d.created_at)} · {t('attempts', { count: d.attempt_count })}
                    {d.status === 'PENDING' && d.next_attempt_at ? <> · {t('next', { when: formatDateTime(d.next_attempt_at) })}</> : null}</p>
                </div>
                <div className="button-row">
                  <StatusBadge kind="delivery" status={d.status} />
                  <button type="button" className="button small secondary" disabled={resend.isPending && resend.variables?.delivery_id === d.id}
                    onClick={() => {
                      setResent(null);
                      resend.mutate({ delivery_id: d.id }, { onSuccess: () => setResent(`${eventLabel(d.event_type)}, ${formatDateTime(d.created_at)}`) });
                    }}>{t('resend')}</button>
                </div>
              </div>
              {d.attempts.length ? (
                <table className="attempts-table">
                    <caption className="sr-only">{t('attemptsCaption')}</caption>
                    <thead><tr><th>{t('when')}</th><th>{t('httpStatus')}</th><th>{t('duration')}</th><th className="excerpt">{t('answer')}</th></tr></thead>
                    <tbody>
                      {d.attempts.map((a, i) => (
                        <tr key={i} data-testid="attempt">
                          <td data-label={t('when')}>{formatDateTime(a.at)}</td>
                          <td data-label={t('httpStatus')}><span className={a.status_code && a.status_code < 300 ? 'money-in' : 'field-error'} data-testid="status-code">{a.status_code ?? t('noAnswer')}</span></td>
                          <td data-label={t('duration')}>{t('durationMs', { ms: a.duration_ms })}</td>
                          <td data-label={t('answer')} className="small excerpt">
                            {a.error ? <p className="field-error" data-testid="attempt-error">{attemptError(a.error)}</p> : null}
                            {a.response_excerpt ? <pre className="mono answer" data-testid="answer">{a.response_excerpt}</pre> : <span className="muted">{t('emptyAnswer')}</span>}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                </table>
              ) : <p className="muted small">{t('notAttempted')}</p>}
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
  const t = useTranslations('webhooks');
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const q = useQuery({ ...trpc.webhooks.delivery.queryOptions({ delivery_id: deliveryId }), enabled: open });
  let pretty: string | null = null;
  if (q.data) {
    try { pretty = JSON.stringify(JSON.parse(q.data.content.payload), null, 2); } catch { pretty = q.data.content.payload; }
  }
  return (
    <details className="payload" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>{t('payload')}</summary>
      {!open ? null : q.isPending ? <Loading label={t('loadingPayload')} /> : q.isError ? <ErrorState error={q.error} /> : (
        <pre className="mono answer" data-testid="payload">{pretty}</pre>
      )}
    </details>
  );
}
