'use client';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { EmptyState, ErrorState, Loading, Money, PageHeader, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { formatBRL } from '../../_lib/money';
import { useTRPC } from '../../_lib/trpc';

export function DisputeList() {
  const t = useTranslations('disputes');
  const tt = useTranslations('terms');
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.transactions.disputeList.queryOptions(), refetchInterval: 15_000 });
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <section className="card">
        {q.isPending ? <Loading /> : q.isError ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : q.data.items.length === 0 ? (
          <EmptyState title={t('empty')}><p className="muted">{t('emptyText')}</p></EmptyState>
        ) : (
          <>
            <p className="held-total" data-testid="disputes-held">{t('heldTotal', { amount: formatBRL(q.data.held) })}</p>
            <div className="table-wrap">
              <table className="list" aria-label={t('tableLabel')}>
                <thead><tr>
                  <th scope="col">{t('col.opened')}</th><th scope="col">{t('col.charge')}</th><th scope="col">{t('col.customer')}</th>
                  <th scope="col">{t('col.status')}</th><th scope="col" className="num">{t('col.amount')}</th><th scope="col" className="num">{t('col.held')}</th>
                </tr></thead>
                <tbody>
                  {q.data.items.map((d) => (
                    <tr key={d.id} data-testid="dispute" data-status={d.status}>
                      <td data-label={t('col.opened')} data-phone="meta" className="nowrap">{formatDateTime(d.created_at)}</td>
                      <td data-label={t('col.charge')} data-phone="ref"><Link href={`/transactions/${d.transaction_id}`} className="mono">{d.transaction_id}</Link> <span className="muted small">{tt(`method.${d.method}`)}</span></td>
                      <td data-label={t('col.customer')} data-phone="title">{d.customer_name}</td>
                      <td data-label={t('col.status')} data-phone="meta"><StatusBadge kind="dispute" status={d.status} /></td>
                      <td data-label={t('col.amount')} data-phone="amount" className="num"><Money cents={d.amount} /></td>
                      <td data-label={t('col.held')} data-phone="note" className="num">{d.held > 0 ? <strong><Money cents={d.held} /></strong> : <span className="muted small">{d.status === 'WON' ? t('released') : t('chargedBack')}</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
    </>
  );
}
