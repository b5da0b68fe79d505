'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { PagedTable } from '../../_components/paged-table';
import { EmptyState, Money, PageHeader, TextField } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useCursorPages } from '../../_lib/paging';
import { useTRPC } from '../../_lib/trpc';

const PAGE_SIZE = 50;
// Days are São Paulo days (UTC−3 all year since 2019): a day starts at 00:00 there.
const SAO_PAULO_OFFSET = '-03:00';

const TYPE_LABEL: Record<string, string> = {
  topup: 'Top-up', charge_approved: 'Charge approved', withdrawal_requested: 'Withdrawal', withdrawal_returned: 'Withdrawal returned',
  refund_requested: 'Refund', refund_returned: 'Refund returned', dispute_hold: 'Dispute hold', dispute_released: 'Dispute released',
};

/** "2026-03-10" → the instant that day starts in São Paulo; `next` gives the following day's start. */
function dayStart(day: string, next = false): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00${SAO_PAULO_OFFSET}`);
  if (next) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

function resourceHref(type: string, id: string): string | null {
  if (type === 'transaction') return `/transactions/${id}`;
  if (type === 'withdrawal') return `/withdrawals/${id}`;
  return null;
}

/** The statement (extrato): every movement of the available balance with the balance after it. */
export function StatementView() {
  const trpc = useTRPC();
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const pages = useCursorPages();
  const from = dayStart(fromDay);
  const to = dayStart(toDay, true);
  const reversed = from !== undefined && to !== undefined && from >= to;
  const q = useQuery({
    ...trpc.account.statement.queryOptions({ from, to, cursor: pages.cursor ?? undefined, limit: PAGE_SIZE }),
    enabled: !reversed,
    placeholderData: keepPreviousData,
    select: (d) => ({ items: d.data, next_cursor: d.next_cursor }),
  });
  const csv = `/api/statement.csv?${new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) })}`;

  return (
    <>
      <PageHeader title="Statement" subtitle="Every movement of your available balance, with the balance after it."
        actions={<a className="button secondary" href={csv} download data-testid="export-csv">Export CSV</a>} />
      <section className="card">
        <div className="toolbar">
          <TextField label="From" type="date" value={fromDay} onChange={(e) => { setFromDay(e.target.value); pages.reset(); }} />
          <TextField label="To" type="date" value={toDay} onChange={(e) => { setToDay(e.target.value); pages.reset(); }}
            error={reversed ? 'Must not be before From' : undefined} />
        </div>
        {reversed ? null : (
          <PagedTable query={q} pages={pages} label="Statement"
            empty={<EmptyState title={from || to ? 'No movements in these dates' : 'No movements yet'}><Link href="/transactions/new" className="button primary">Create a charge</Link></EmptyState>}
            columns={[
              { label: 'Date', nowrap: true, cell: (m) => formatDateTime(m.created_at) },
              { label: 'Type', cell: (m) => <span data-type={m.type}>{TYPE_LABEL[m.type] ?? m.type}</span> },
              { label: 'Description', cell: (m) => {
                const href = resourceHref(m.resource.type, m.resource.id);
                return <span>{m.description} {href ? <Link href={href} className="mono small">{m.resource.id}</Link> : <span className="mono small muted">{m.resource.id}</span>}</span>;
              } },
              { label: 'Amount', numeric: true, cell: (m) => <Money cents={Math.abs(m.amount)} sign={m.amount >= 0 ? 'in' : 'out'} /> },
              { label: 'Balance', numeric: true, cell: (m) => <span data-testid="balance-after"><Money cents={m.balance_after} /></span> },
            ]} />
        )}
      </section>
    </>
  );
}
