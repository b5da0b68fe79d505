'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { PagedTable } from '../../_components/paged-table';
import { checkRange, DateField, isoToTyped } from '../../_components/date-field';
import { EmptyState, Money, PageHeader } from '../../_components/ui';
import { formatDateTime } from '../../_lib/dates';
import { useListUrl } from '../../_lib/list-url';
import { useTRPC } from '../../_lib/trpc';

const PAGE_SIZE = 50;
const KEYS = ['from', 'to'] as const;
// Days are São Paulo days (UTC−3 all year since 2019): a day starts at 00:00 there.
const SAO_PAULO_OFFSET = '-03:00';

/** "2026-03-10" → the instant that day starts in São Paulo; `next` gives the following day's start. */
function dayStart(day: string, next = false): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00${SAO_PAULO_OFFSET}`);
  if (Number.isNaN(d.getTime())) return undefined;
  if (next) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

function resourceHref(type: string, id: string): string | null {
  if (type === 'transaction') return `/transactions/${id}`;
  if (type === 'withdrawal') return `/withdrawals/${id}`;
  if (type === 'dispute') return '/disputes';
  return null;
}

/**
 * The statement (extrato): every movement of the available balance with the balance after it, newest
 * first, keyset-paged. The period and the page live in the URL (Back and shared links keep them), and
 * the CSV export carries the same period.
 */
export function StatementView() {
  const t = useTranslations('statement');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const url = useListUrl(KEYS);
  // the period typed applies on "Filtrar" (like the search bar): the URL then holds it, so Back and
  // shared links keep it, and a reversed range is said next to the field instead of being sent
  const [fromDay, setFromDay] = useState(isoToTyped(url.values.from));
  const [toDay, setToDay] = useState(isoToTyped(url.values.to));
  const [dateErrors, setDateErrors] = useState<{ from?: string; to?: string }>({});
  useEffect(() => { setFromDay(isoToTyped(url.values.from)); setToDay(isoToTyped(url.values.to)); }, [url.values.from, url.values.to]);
  const from = dayStart(url.values.from);
  const to = dayStart(url.values.to, true);
  const q = useQuery({
    ...trpc.account.statement.queryOptions({ from, to, cursor: url.cursor ?? undefined, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
    select: (d) => ({ items: d.data, next_cursor: d.next_cursor }),
  });
  const csv = `/api/statement.csv?${new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) })}`;
  const apply = () => {
    const range = checkRange(fromDay, toDay, { date: tv('dateTyped'), range: tv('dateRange') });
    setDateErrors(range.ok ? {} : range.errors);
    if (range.ok) url.set({ from: range.from, to: range.to });
  };
  const clear = () => { setFromDay(''); setToDay(''); setDateErrors({}); url.set({ from: '', to: '' }); };
  const typeLabel = (type: string) => (t.has(`type.${type}` as 'type.topup') ? t(`type.${type}` as 'type.topup') : t('otherType'));

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')}
        actions={<a className="button secondary" href={csv} download data-testid="export-csv" title={t('exportHint')}>{t('export')}</a>} />
      <section className="card">
        <form className="toolbar" role="search" aria-label={t('filters')} noValidate onSubmit={(e) => { e.preventDefault(); apply(); }}>
          <DateField label={t('from')} name="from" value={fromDay} onChange={setFromDay} error={dateErrors.from} />
          <DateField label={t('to')} name="to" value={toDay} onChange={setToDay} error={dateErrors.to} />
          <div className="button-row">
            <button type="submit" className="button primary">{t('apply')}</button>
            {url.values.from || url.values.to || fromDay || toDay ? <button type="button" className="button secondary" onClick={clear}>{t('clear')}</button> : null}
          </div>
        </form>
        <PagedTable query={q} pages={url} label={t('tableLabel')}
          empty={<EmptyState title={from || to ? t('emptyFiltered') : t('empty')}>{from || to ? null : <Link href="/transactions/new" className="button primary">{t('createCharge')}</Link>}</EmptyState>}
          columns={[
            { label: t('col.date'), nowrap: true, phone: 'meta', cell: (m) => formatDateTime(m.created_at) },
            { label: t('col.movement'), phone: 'title', cell: (m) => <span data-type={m.type}>{typeLabel(m.type)}</span> },
            { label: t('col.reference'), phone: 'ref', cell: (m) => {
              const href = resourceHref(m.resource.type, m.resource.id);
              return href ? <Link href={href} className="mono small">{m.resource.id}</Link> : <span className="mono small muted">{m.resource.id}</span>;
            } },
            { label: t('col.amount'), numeric: true, nowrap: true, phone: 'amount', cell: (m) => <Money cents={Math.abs(m.amount)} sign={m.amount >= 0 ? 'in' : 'out'} /> },
            { label: t('col.balance'), numeric: true, nowrap: true, phone: 'note', cell: (m) => <span data-testid="balance-after"><Money cents={m.balance_after} /></span> },
          ]} />
      </section>
    </>
  );
}
