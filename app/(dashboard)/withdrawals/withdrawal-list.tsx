'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { WITHDRAWAL_STATUSES } from '@/server/domain/enums';
import { PagedTable } from '../../_components/paged-table';
import { EmptyState, Money, PageHeader, SelectField, StatusBadge } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { formatPixKey } from '../../_lib/documents';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

type Status = (typeof WITHDRAWAL_STATUSES)[number];
const PAGE_SIZE = 20;

export function WithdrawalList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status | ''>('');
  const pages = useCursorPages();
  const q = useQuery({
    ...trpc.withdrawals.list.queryOptions({ status: status || undefined, cursor: pages.cursor, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
    // keep statuses moving while anything on the page is still settling
    refetchInterval: (query) => (query.state.data?.items.some((w) => w.receipt.some((b) => b.status === 'PENDING')) ? 2_000 : false),
  });

  return (
    <>
      <PageHeader title="Withdrawals" subtitle="Pix payouts from your balance." actions={<Link className="button primary" href="/withdrawals/new">New withdrawal</Link>} />
      <section className="card">
        <div className="toolbar">
          <SelectField label="Status" value={status} onChange={(e) => { setStatus(e.target.value as Status | ''); pages.reset(); }}>
            <option value="">All statuses</option>
            {WITHDRAWAL_STATUSES.map((s) => <option key={s} value={s}>{s.replace(/_/g, ' ')}</option>)}
          </SelectField>
        </div>
        <PagedTable query={q} pages={pages} label="Withdrawals"
          empty={(
            <EmptyState title={status ? `No ${status.replace(/_/g, ' ').toLowerCase()} withdrawals` : 'No withdrawals yet'}>
              {status ? null : <Link className="button primary" href="/withdrawals/new">Request the first one</Link>}
            </EmptyState>
          )}
          columns={[
            { label: 'Created', nowrap: true, cell: (w) => formatDateTime(w.created_at) },
            { label: 'Withdrawal', cell: (w) => <Link href={`/withdrawals/${w.id}`} className="mono">{w.id}</Link> },
            { label: 'Recipient', cell: (w) => w.operation.details.name },
            { label: 'Pix key', cell: (w) => <span><span className="muted small">{w.operation.key_type}</span> {formatPixKey(w.operation.key_type, w.operation.key)}</span> },
            { label: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
            { label: 'Amount', numeric: true, cell: (w) => <Money cents={w.amount} /> },
          ]} />
      </section>
    </>
  );
}
