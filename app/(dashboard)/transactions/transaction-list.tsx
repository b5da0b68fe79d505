'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { TRANSACTION_METHODS, TRANSACTION_STATUSES } from '@/server/routers/transactions/schemas';
import { EmptyState, ErrorState, Loading, Money, PageHeader, Pager, SelectField, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

type Status = (typeof TRANSACTION_STATUSES)[number];
type Method = (typeof TRANSACTION_METHODS)[number];
const PAGE_SIZE = 20;

export function TransactionList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status | ''>('');
  const [method, setMethod] = useState<Method | ''>('');
  const pages = useCursorPages();
  const q = useQuery({
    ...trpc.transactions.list.queryOptions({ status: status || undefined, method: method || undefined, cursor: pages.cursor, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const filtered = !!(status || method);

  return (
    <>
      <PageHeader title="Transactions" subtitle="Charges to your customers by Pix, card or invoice." actions={<Link className="button primary" href="/transactions/new">New charge</Link>} />
      <section className="card">
        <div className="toolbar">
          <SelectField label="Status" value={status} onChange={(e) => { setStatus(e.target.value as Status | ''); pages.reset(); }}>
            <option value="">All statuses</option>
            {TRANSACTION_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </SelectField>
          <SelectField label="Method" value={method} onChange={(e) => { setMethod(e.target.value as Method | ''); pages.reset(); }}>
            <option value="">All methods</option>
            {TRANSACTION_METHODS.map((m) => <option key={m} value={m}>{m}</option>)}
          </SelectField>
        </div>
        {q.isPending ? <Loading /> : q.isError ? <ErrorState error={q.error} onRetry={() => q.refetch()} /> : q.data.items.length === 0 ? (
          <EmptyState title={filtered ? 'No transactions match these filters' : 'No transactions yet'}>
            {filtered ? null : <Link className="button primary" href="/transactions/new">Create the first charge</Link>}
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="list" aria-busy={q.isFetching}>
                <thead>
                  <tr><th>Created</th><th>Transaction</th><th>Customer</th><th>Method</th><th>Status</th><th className="num">Total</th></tr>
                </thead>
                <tbody>
                  {q.data.items.map((t) => (
                    <tr key={t.id}>
                      <td data-label="Created" className="nowrap">{formatDateTime(t.created_at)}</td>
                      <td data-label="Transaction"><Link href={`/transactions/${t.id}`} className="mono">{t.id}</Link></td>
                      <td data-label="Customer">{t.customer.name}</td>
                      <td data-label="Method">{t.method}</td>
                      <td data-label="Status"><StatusBadge status={t.status} /></td>
                      <td data-label="Total" className="num"><Money cents={t.total} /></td>
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
