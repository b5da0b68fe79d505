'use client';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/routers';
import { EmptyState, ErrorState, Loading, Money, PageHeader } from '../_components/ui';
import { formatDateTime } from '../_lib/dates';
import { formatBRL } from '../_lib/money';
import { useTRPC } from '../_lib/trpc';
import { VolumeChart } from './volume-chart';

type Overview = inferRouterOutputs<AppRouter>['dashboard']['overview'];
type Activity = Overview['recent'][number];
type Period = Overview['periods']['today'];

function resourceHref(r: { resource_id: string; transaction_id: string | null }): string | null {
  if (r.resource_id.startsWith('wd_')) return `/withdrawals/${r.resource_id}`;
  if (r.resource_id.startsWith('txn_')) return `/transactions/${r.resource_id}`;
  // a dispute is shown on its charge's page
  if (r.transaction_id?.startsWith('txn_')) return `/transactions/${r.transaction_id}`;
  return null;
}

const ACTIVITY_KEYS = new Set(['transaction_created', 'transaction_approved', 'transaction_refused', 'transaction_expired', 'transaction_refunded',
  'transaction_refund_paid', 'transaction_refund_failed', 'withdraw_requested', 'withdraw_paid', 'withdraw_partially_paid', 'withdraw_error', 'dispute_opened', 'dispute_won', 'dispute_lost']);

/** One event in words: what happened, how much, to whom. */
function useDescribeActivity() {
  const t = useTranslations('overview');
  return (r: Activity) => {
    const key = r.type.replace('.', '_');
    const values = {
      amount: r.amount !== null ? formatBRL(r.amount) : '',
      // the kind of charge in each language's own words ("Cobrança no cartão", "Card charge")
      kind: r.method ?? 'other',
      who: r.counterparty ?? t('someone'),
    };
    return ACTIVITY_KEYS.has(key) ? t(`activity.${key as 'transaction_created'}`, values) : t('activity.other', values);
  };
}

function PeriodCard({ title, p, testId }: { title: string; p: Period; testId: string }) {
  const t = useTranslations('overview');
  return (
    <div className="stat period" data-testid={testId}>
      <p className="stat-label">{title}</p>
      <p className="stat-value money-in" data-testid={`${testId}-sales`}><Money cents={p.sales} /></p>
      <p className="stat-note">{t('sales')} · {t('salesNote', { count: p.sales_count })}</p>
      <dl className="period-rest">
        <div><dt>{t('topUps')}</dt><dd data-testid={`${testId}-topups`}><Money cents={p.top_ups} /></dd></div>
        <div><dt>{t('payouts')}</dt><dd data-testid={`${testId}-payouts`}><Money cents={p.payouts} /></dd></div>
        {p.chargebacks > 0 ? <div><dt>{t('chargebacks')}</dt><dd><Money cents={p.chargebacks} /></dd></div> : null}
      </dl>
    </div>
  );
}

export function Overview() {
  const t = useTranslations('overview');
  const describe = useDescribeActivity();
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.dashboard.overview.queryOptions(), refetchInterval: 15_000 });
  if (q.isPending) return <><PageHeader title={t('title')} /><Loading /></>;
  if (q.isError) return <><PageHeader title={t('title')} /><ErrorState error={q.error} onRetry={() => q.refetch()} /></>;
  const o = q.data;
  return (
    <>
      <PageHeader title={t('title')} subtitle={o.account_name} actions={<>
        <Link className="button primary" href="/withdrawals/new">{t('newWithdrawal')}</Link>
        <Link className="button secondary" href="/transactions/new">{t('newCharge')}</Link>
      </>} />
      <section className="stats" aria-label={t('balance')}>
        <div className="stat">
          <p className="stat-label">{t('available')}</p>
          <p className={`stat-value${o.available < 0 ? ' negative' : ''}`} data-testid="available-balance"><Money cents={o.available} /></p>
          {o.blocked > 0 || o.in_flight > 0 ? (
            <p className="stat-note">{o.blocked > 0 ? <>{t('blockedByDisputes', { amount: formatBRL(o.blocked) })} </> : null}
              {o.in_flight > 0 ? t('settling', { amount: formatBRL(o.in_flight) }) : null}</p>
          ) : <p className="stat-note">{t('nothingHeld')}</p>}
          {o.available < 0 ? <p className="stat-note negative-note" role="status" data-testid="negative-balance-note">{t('negativeNote')}</p> : null}
        </div>
        <PeriodCard title={t('today')} p={o.periods.today} testId="today" />
        <PeriodCard title={t('yesterday')} p={o.periods.yesterday} testId="yesterday" />
        <PeriodCard title={t('thisMonth')} p={o.periods.month} testId="month" />
      </section>
      <VolumeChart daily={o.daily} />
      <section className="card" aria-labelledby="recent-title">
        <h2 id="recent-title">{t('recent')}</h2>
        {o.recent.length === 0 ? (
          <EmptyState title={t('noActivity')}><p className="muted">{t('noActivityText')}</p></EmptyState>
        ) : (
          <ul className="activity" data-testid="activity">
            {o.recent.map((r) => {
              const href = resourceHref(r);
              const text = describe(r);
              return (
                <li key={r.id}>
                  <div className="activity-main">
                    {href ? <Link href={href} className="activity-title">{text}</Link> : <span className="activity-title">{text}</span>}
                  </div>
                  <time className="muted small activity-side" dateTime={r.created_at}>{formatDateTime(r.created_at)}</time>
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </>
  );
}
