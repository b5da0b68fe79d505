'use client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { EmptyState, ErrorState, FormError, Loading, Pager, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

/** One webhook's deliveries, newest first, each with its attempts; refreshes while it is open. */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const t = useTranslations('webhooks');
  const tt = useTranslations('terms');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const q = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ webhookId, cursor: pages.cursor, limit: 10 }),
    placeholderData: keepPreviousData,
    refetchInterval: 2_000,
  });
  const resend = useMutation(trpc.webhooks.resend.mutationOptions({
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
  }));

  if (q.isPending) return <Loading label={t('loadingDeliveries')} />;
  if (q.isError) return <ErrorState error={q.error} onRetry={() => q.refetch()} />;
  if (q.data.items.length === 0) return <EmptyState title={t('noDeliveries')}><p className="muted small">{t('noDeliveriesText')}</p></EmptyState>;
  return (
    <div className="delivery-log">
      <FormError error={resend.isError ? resend.error : null} />
      <ul className="deliveries">
        {q.data.items.map((d) => (
          <li key={d.id} className="delivery" data-testid="delivery">
            <div className="delivery-head">
              <div>
                <strong>{tt.has(`event.${d.event_type.replace('.', '_')}` as 'event.other') ? tt(`event.${d.event_type.replace('.', '_')}` as 'event.other') : tt('event.other')}</strong> <span className="mono small muted">{d.resource_id}</span>
                <p className="muted small">{formatDateTime(d.created_at)} · {t('attempts', { count: d.attempt_count })}
                  {d.status === 'PENDING' && d.next_attempt_at ? <> · {t('next', { when: formatDateTime(d.next_attempt_at) })}</> : null}</p>
              </div>
              <div className="button-row">
                <StatusBadge kind="delivery" status={d.status} />
                <button type="button" className="button small secondary" disabled={resend.isPending && resend.variables?.delivery_id === d.id}
                  onClick={() => resend.mutate({ delivery_id: d.id })}>{t('resend')}</button>
              </div>
            </div>
            {d.attempts.length ? (
              <table className="attempts-table">
                <caption className="sr-only">{t('attemptsCaption')}</caption>
                <thead><tr><th>{t('when')}</th><th>{t('httpStatus')}</th><th>{t('duration')}</th><th className="excerpt">{t('detail')}</th></tr></thead>
                <tbody>
                  {d.attempts.map((a, i) => (
                    <tr key={i} data-testid="attempt">
                      <td>{formatDateTime(a.attempted_at)}</td>
                      <td><span className={a.status_code && a.status_code < 300 ? 'money-in' : 'field-error'}>{a.status_code ?? t('noAnswer')}</span></td>
                      <td>{a.duration_ms} ms</td>
                      <td className="muted small excerpt">{a.error ?? a.response_excerpt ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : <p className="muted small">{t('notAttempted')}</p>}
          </li>
        ))}
      </ul>
      {pages.hasPrev || q.data.next_cursor ? (
        <Pager hasPrev={pages.hasPrev} hasNext={!!q.data.next_cursor} busy={q.isFetching} onPrev={pages.prev} onNext={() => q.data.next_cursor && pages.next(q.data.next_cursor)} />
      ) : null}
    </div>
  );
}
