'use client';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { EmptyState, ErrorState, Loading, Money, PageHeader, StatusBadge } from '../_components/ui';
import { formatDateTime } from '../_lib/dates';
import { useTRPC } from '../_lib/trpc';
import { VolumeChart } from './volume-chart';

const EVENT_LABEL: Record<string, string> = {
  'transaction.created': 'Charge created',
  'transaction.approved': 'Charge approved',
  'transaction.refused': 'Charge refused',
  'transaction.expired': 'Charge expired',
  'transaction.refunded': 'Charge refund requested',
  'transaction.refund_paid': 'Charge refund paid',
  'transaction.refund_failed': 'Charge refund failed',
  'withdraw.requested': 'Withdrawal requested',
  'withdraw.paid': 'Withdrawal paid',
  'withdraw.partially_paid': 'Withdrawal partially paid',
  'withdraw.error': 'Withdrawal failed',
  'dispute.opened': 'Dispute opened',
  'dispute.won': 'Dispute won',
  'dispute.lost': 'Dispute lost',
};

function resourceHref(r: { resource_id: string; transaction_id: string | null }): string | null {
  if (r.resource_id.startsWith('wd_')) return `/withdrawals/${r.resource_id}`;
  if (r.resource_id.startsWith('txn_')) return `/transactions/${r.resource_id}`;
  // a dispute is shown on its charge's page
  if (r.transaction_id?.startsWith('txn_')) return `/transactions/${r.transaction_id}`;
  return null;
}

export function Overview() {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.dashboard.overview.queryOptions(), refetchInterval: 15_000 });
  if (q.isPending) return <><PageHeader title="Overview" /><Loading /></>;
  if (q.isError) return <><PageHeader title="Overview" /><ErrorState error={q.error} onRetry={() => q.refetch()} /></>;
  const o = q.data;
  return (
    <>
      <PageHeader title="Overview" subtitle={o.account_name} actions={<>
        <Link className="button primary" href="/withdrawals/new">New withdrawal</Link>
        <Link className="button secondary" href="/transactions/new">New charge</Link>
      </>} />
      <section className="stats" aria-label="Balance">
        <div className="stat">
          <p className="stat-label">Available balance</p>
          <p className={`stat-value${o.available < 0 ? ' negative' : ''}`} data-testid="available-balance"><Money cents={o.available} /></p>
          {o.blocked > 0 || o.in_flight > 0 ? (
            <p className="stat-note">{o.blocked > 0 ? <>Blocked by disputes: <Money cents={o.blocked} /> </> : null}
              {o.in_flight > 0 ? <>Withdrawals settling: <Money cents={o.in_flight} /></> : null}</p>
          ) : <p className="stat-note">Nothing blocked or settling</p>}
          {o.available < 0 ? (
            <p className="stat-note negative-note" role="status" data-testid="negative-balance-note">
              Open disputes hold more than was available. Incoming payments cover the shortfall first;
              withdrawals are refused until the available balance covers them.
            </p>
          ) : null}
        </div>
        <div className="stat">
          <p className="stat-label">Money in · 30 days</p>
          <p className="stat-value money-in" data-testid="money-in"><Money cents={o.money_in} /></p>
          <p className="stat-note">Approved charges and top-ups</p>
        </div>
        <div className="stat">
          <p className="stat-label">Money out · 30 days</p>
          <p className="stat-value money-out" data-testid="money-out"><Money cents={o.money_out} /></p>
          <p className="stat-note">Paid withdrawals and chargebacks</p>
        </div>
      </section>
      <section className="card" aria-labelledby="volume-title">
        <h2 id="volume-title">Daily volume · last 30 days <span className="muted small">(R$)</span></h2>
        <VolumeChart daily={o.daily} />
      </section>
      <section className="card" aria-labelledby="recent-title">
        <h2 id="recent-title">Recent activity</h2>
        {o.recent.length === 0 ? (
          <EmptyState title="No activity yet">
            <p className="muted">Charges and withdrawals show up here as they happen.</p>
          </EmptyState>
        ) : (
          <ul className="activity">
            {o.recent.map((r) => {
              const href = resourceHref(r);
              return (
                <li key={r.id}>
                  <div className="activity-main">
                    <span className="activity-title">{EVENT_LABEL[r.type] ?? r.type}</span>
                    {href ? <Link href={href} className="mono small">{r.resource_id}</Link> : <span className="mono small">{r.resource_id}</span>}
                  </div>
                  <div className="activity-side">
                    {r.amount !== null ? <Money cents={r.amount} /> : null}
                    {r.status ? <StatusBadge status={r.status} /> : null}
                    <time className="muted small" dateTime={r.created_at}>{formatDateTime(r.created_at)}</time>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </>
  );
}
