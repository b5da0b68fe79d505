'use client';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { CursorPages } from '../_lib/paging';
import { ErrorState, Loading, Pager } from './ui';

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  /** Right-aligned figures (amounts). */
  numeric?: boolean;
  nowrap?: boolean;
  /**
   * Where the cell goes in a phone's compact row (without its label): `title` and `amount` share the
   * first line, `meta` cells (date, method, status) the second, `note` too but with its label
   * ("Saldo: R$ 10,00"), `ref` (the id, a link) the third. Columns without one keep the labelled card layout.
   */
  phone?: 'title' | 'amount' | 'meta' | 'note' | 'ref';
}

/**
 * One keyset-paged list of a resource: loading, error with retry, empty state, the table (which
 * turns into labelled cards on a phone, through each cell's data-label) and the newer/older pager.
 * The withdrawals and transactions lists differ only in their query, columns and empty state.
 */
export function PagedTable<T extends { id: string }>({ query, pages, columns, empty, label }: {
  query: UseQueryResult<{ items: T[]; next_cursor: string | null }, unknown>;
  pages: Pick<CursorPages, 'hasPrev' | 'next' | 'prev'>;
  columns: Column<T>[];
  empty: ReactNode;
  label: string;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
  const { items, next_cursor: nextCursor } = query.data;
  if (items.length === 0 && !pages.hasPrev) return <>{empty}</>;
  const cls = (c: Column<T>) => [c.numeric ? 'num' : '', c.nowrap ? 'nowrap' : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <div className="table-wrap">
        <table className="list" aria-label={label} aria-busy={query.isFetching}>
          <thead>
            <tr>{columns.map((c) => <th key={c.label} scope="col" className={c.numeric ? 'num' : undefined}>{c.label}</th>)}</tr>
          </thead>
          <tbody>
            {items.map((row) => (
              <tr key={row.id}>
                {columns.map((c) => <td key={c.label} data-label={c.label} data-phone={c.phone} className={cls(c)}>{c.cell(row)}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager hasPrev={pages.hasPrev} hasNext={!!nextCursor} busy={query.isFetching}
        onPrev={pages.prev} onNext={() => nextCursor && pages.next(nextCursor)} />
    </>
  );
}
