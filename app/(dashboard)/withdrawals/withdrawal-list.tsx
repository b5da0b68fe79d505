'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { WITHDRAWAL_STATUSES } from '@/contract/enums';
import { PagedTable } from '../../_components/paged-table';
import { SearchBar } from '../../_components/search-bar';
import { EmptyState, Money, PageHeader, StatusBadge, useStatusLabel } from '../../_components/ui';
import { useDescribeApiError } from '../../_lib/api-errors';
import { formatDateTime } from '../../_lib/dates';
import { formatPixKey } from '../../_lib/documents';
import { useListUrl } from '../../_lib/list-url';
import { useTRPC } from '../../_lib/trpc';

type Status = (typeof WITHDRAWAL_STATUSES)[number];
const PAGE_SIZE = 20;
const KEYS = ['q', 'status', 'from', 'to'] as const;

export function WithdrawalList() {
  const t = useTranslations('withdrawals');
  const tt = useTranslations('terms');
  const statusLabel = useStatusLabel();
  const describe = useDescribeApiError();
  const trpc = useTRPC();
  const url = useListUrl(KEYS);
  const { q: text, status, from, to } = url.values;
  const q = useQuery({
    ...trpc.withdrawals.search.queryOptions({
      q: text || undefined, status: (status || undefined) as Status | undefined, from: from || undefined, to: to || undefined,
      cursor: url.cursor, limit: PAGE_SIZE,
    }),
    placeholderData: keepPreviousData,
    // keep statuses moving while anything on the page is still settling
    refetchInterval: (query) => (query.state.data?.items.some((w) => w.receipt.some((b) => b.status === 'PENDING')) ? 2_000 : false),
  });
  const filtered = !!(text || status || from || to);
  const errors = q.isError ? describe(q.error).fields : {};

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} actions={<Link className="button primary" href="/withdrawals/new">{t('new')}</Link>} />
      <section className="card">
        <SearchBar key={url.filterQuery()} values={{ q: text, status, from, to }} errors={errors}
          statuses={WITHDRAWAL_STATUSES.map((s) => ({ value: s, label: statusLabel('withdrawal', s) }))}
          onApply={(v) => url.set({ q: v.q, status: v.status, from: v.from, to: v.to })}
          exportHref={`/withdrawals/export?${url.filterQuery()}`} />
        {Object.keys(errors).length ? null : (
          <PagedTable query={q} pages={url} label={t('tableLabel')}
            empty={(
              <EmptyState title={filtered ? t('emptyFiltered') : t('empty')}>
                {filtered ? null : <Link className="button primary" href="/withdrawals/new">{t('requestFirst')}</Link>}
              </EmptyState>
            )}
            columns={[
              { label: t('col.created'), nowrap: true, phone: 'meta', cell: (w) => formatDateTime(w.created_at) },
              { label: t('col.withdrawal'), phone: 'ref', cell: (w) => <Link href={`/withdrawals/${w.id}`} className="mono">{w.id}</Link> },
              { label: t('col.recipient'), phone: 'title', cell: (w) => w.operation.details.name },
              { label: t('col.pixKey'), phone: 'meta', cell: (w) => <span><span className="muted small">{tt(`keyType.${w.operation.key_type}`)}</span> {formatPixKey(w.operation.key_type, w.operation.key)}</span> },
              { label: t('col.status'), phone: 'meta', cell: (w) => <StatusBadge kind="withdrawal" status={w.status} /> },
              { label: t('col.amount'), numeric: true, phone: 'amount', cell: (w) => <Money cents={w.amount} /> },
            ]} />
        )}
      </section>
    </>
  );
}
