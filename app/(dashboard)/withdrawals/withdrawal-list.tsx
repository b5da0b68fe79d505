'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { WITHDRAWAL_STATUS_VALUES } from '@/server/routers/withdrawals/schemas';
import { EmptyState, ErrorState, Loading, Money, PageHeader, Pager, SelectField, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

type Status = (typeof WITHDRAWAL_STATUS_VALUES)[number];
const PAGE_SIZE = 20;

export function WithdrawalList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status | ''>('');
  const pages = useCursorPages();
  const q = useQuery({
    ...trpc.withdrawals.list.queryOptions({ status: status || undefined, cursor: pages.cursor, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
    // keep statuses moving while anything on the page is still settling
    refetchInterval: (query) => (query.state.data?.items.some((w) => w.status === 'REQUESTED') ? 2_000 : false),
  });

  return (
    <>
      <PageHeader title="Withdrawals" subtitle="Pix payouts from your balance." actions={<Link className="button primary" href="/withdrawals/new">New withdrawal</Link>} />
      <section className="card">
        <div className="toolbar">
          <SelectField label="Status" value={status} onChange={(e) => { setStatus(e.target.value as Status | ''); pages.reset(); }}>
            <option value="">All statuses</option>
            {WITHDRAWAL_STATUS_VALUES.map((s) => <option key={s} value={s}>{s.replace(/_/g, ' ')}</option>)}
          </SelectField>
        </div>
        {q.isPending ? <Loading /> : q.isError ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : q.data.items.length === 0 ? (
          <EmptyState title={status ? `No ${status.replace(/_/g, ' ').toLowerCase()} withdrawals` : 'No withdrawals yet'}>
            {status ? null : <Link className="button primary" href="/withdrawals/new">Request the first one</Link>}
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="list" aria-busy={q.isFetching}>
                <thead>
                  <tr><th>Created</th><th>Withdrawal</th><th>Recipient</th><th>Pix key</th><th>Status</th><th className="num">Amount</th></tr>
                </thead>
                <tbody>
                  {q.data.items.map((w) => (
                    <tr key={w.id}>
                      <td data-label="Created" className="nowrap">{formatDateTime(w.created_at)}</td>
                      <td data-label="Withdrawal"><Link href={`/withdrawals/${w.id}`} className="mono">{w.id}</Link></td>
                      <td data-label="Recipient">{w.operation.details.name}</td>
                      <td data-label="Pix key"><span><span className="muted small">{w.operation.key_type}</span> {w.operation.key}</span></td>
                      <td data-label="Status"><StatusBadge status={w.status} /></td>
                      <td data-label="Amount" className="num"><Money cents={w.amount} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager hasPrev={pages.hasPrev} hasNext={!!q.data.nextCursor} busy={q.isFetching}
              onPrev={pages.prev} onNext={() => q.data.nextCursor && pages.next(q.data.nextCursor)} />
          </>
        )}
      </section>
    </>
  );
}
