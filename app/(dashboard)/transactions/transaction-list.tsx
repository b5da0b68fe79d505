'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { TRANSACTION_METHODS, TRANSACTION_STATUSES } from '@/contract/enums';
import { PagedTable } from '../../_components/paged-table';
import { SearchBar } from '../../_components/search-bar';
import { ChargeBadge, EmptyState, Money, PageHeader, useStatusLabel } from '../../_components/ui';
import { useDescribeApiError } from '../../_lib/api-errors';
import { formatDateTime } from '../../_lib/dates';
import { useListUrl } from '../../_lib/list-url';
import { useTRPC } from '../../_lib/trpc';

type Status = (typeof TRANSACTION_STATUSES)[number];
type Method = (typeof TRANSACTION_METHODS)[number];
const PAGE_SIZE = 20;
const KEYS = ['q', 'status', 'method', 'from', 'to'] as const;

export function TransactionList() {
  const t = useTranslations('transactions');
  const tt = useTranslations('terms');
  const statusLabel = useStatusLabel();
  const describe = useDescribeApiError();
  const trpc = useTRPC();
  const url = useListUrl(KEYS);
  const { q: text, status, method, from, to } = url.values;
  const q = useQuery({
    ...trpc.transactions.search.queryOptions({
      q: text || undefined, status: (status || undefined) as Status | undefined, method: (method || undefined) as Method | undefined,
      from: from || undefined, to: to || undefined, cursor: url.cursor, limit: PAGE_SIZE,
    }),
    placeholderData: keepPreviousData,
  });
  const filtered = !!(text || status || method || from || to);
  const errors = q.isError ? describe(q.error).fields : {};

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} actions={<Link className="button primary" href="/transactions/new">{t('new')}</Link>} />
      <section className="card">
        <SearchBar key={url.filterQuery()} values={{ q: text, status, method, from, to }} errors={errors}
          statuses={TRANSACTION_STATUSES.map((s) => ({ value: s, label: statusLabel('transaction', s) }))}
          methods={TRANSACTION_METHODS.map((m) => ({ value: m, label: tt(`method.${m}`) }))}
          onApply={(v) => url.set({ q: v.q, status: v.status, method: v.method ?? '', from: v.from, to: v.to })}
          exportHref={`/transactions/export?${url.filterQuery()}`} />
        {Object.keys(errors).length ? null : (
          <PagedTable query={q} pages={url} label={t('tableLabel')}
            empty={(
              <EmptyState title={filtered ? t('emptyFiltered') : t('empty')}>
                {filtered ? null : <Link className="button primary" href="/transactions/new">{t('createFirst')}</Link>}
              </EmptyState>
            )}
            columns={[
              { label: t('col.created'), nowrap: true, phone: 'meta', cell: (x) => formatDateTime(x.created_at) },
              { label: t('col.transaction'), phone: 'ref', cell: (x) => <Link href={`/transactions/${x.id}`} className="mono">{x.id}</Link> },
              { label: t('col.customer'), phone: 'title', cell: (x) => x.customer.name },
              { label: t('col.method'), phone: 'meta', cell: (x) => tt(`method.${x.method}`) },
              { label: t('col.status'), phone: 'meta', cell: (x) => <ChargeBadge status={x.status} dispute={x.dispute} refunded={x.refunded_amount} total={x.total} /> },
              { label: t('col.total'), numeric: true, phone: 'amount', cell: (x) => <Money cents={x.total} /> },
            ]} />
        )}
      </section>
    </>
  );
}
