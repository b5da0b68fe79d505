'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { TRANSACTION_METHODS, TRANSACTION_STATUSES } from '@/server/domain/enums';
import { PagedTable } from '../../_components/paged-table';
import { EmptyState, Money, PageHeader, SelectField, StatusBadge } from '../../_components/ui';
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
        <PagedTable query={q} pages={pages} label="Transactions"
          empty={(
            <EmptyState title={filtered ? 'No transactions match these filters' : 'No transactions yet'}>
              {filtered ? null : <Link className="button primary" href="/transactions/new">Create the first charge</Link>}
            </EmptyState>
          )}
          columns={[
            { label: 'Created', nowrap: true, cell: (t) => formatDateTime(t.created_at) },
            { label: 'Transaction', cell: (t) => <Link href={`/transactions/${t.id}`} className="mono">{t.id}</Link> },
            { label: 'Customer', cell: (t) => t.customer.name },
            { label: 'Method', cell: (t) => t.method },
            { label: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
            { label: 'Total', numeric: true, cell: (t) => <Money cents={t.total} /> },
          ]} />
      </section>
    </>
  );
}
