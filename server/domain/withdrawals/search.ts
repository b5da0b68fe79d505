import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../../../db';
import { withdrawalBatches, withdrawals } from '../../../db/schema';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../ids';
import { localDayRange, mergePages, readSearch, type SearchReading } from '../search';
import type { WithdrawalStatus } from './rules';
import { withdrawalViews, type WithdrawalView } from './view';

export interface WithdrawalSearch {
  q?: string;
  status?: WithdrawalStatus;
  /** Brasília calendar days, both included. */
  from?: string;
  to?: string;
  cursor?: string | null;
  limit?: number;
}

/** The conditions of one reading; a document may be the recipient's or a CPF/CNPJ key, so it has two. */
function readingConditions(accountId: string, r: SearchReading): SQL[] {
  const ofBatches = (c: SQL) => inArray(withdrawals.id,
    sql`(SELECT ${withdrawalBatches.withdrawalId} FROM ${withdrawalBatches} WHERE ${c} AND ${withdrawalBatches.accountId} = ${accountId})`);
  switch (r.kind) {
    case 'id': return [eq(withdrawals.id, r.value)];
    case 'batch': return [ofBatches(eq(withdrawalBatches.id, r.value))];
    case 'endtoend': return [ofBatches(eq(withdrawalBatches.endToEnd, r.value))];
    case 'email': return [eq(withdrawals.key, r.value)];
    case 'document': return [eq(withdrawals.detailsDocument, r.value), eq(withdrawals.key, r.value)];
    case 'amount': return [eq(withdrawals.amount, r.value)];
    case 'reference': return [eq(withdrawals.externalRef, r.value)];
    case 'name': return [and(gte(withdrawals.detailsNameSearch, r.value), lt(withdrawals.detailsNameSearch, `${r.value}\u{10FFFF}`))!];
  }
}

/** A search condition, and whether it names at most one withdrawal (then no order is kept, see below). */
export interface SearchCondition { where: SQL; single: boolean }

/**
 * One keyset page for one condition (or none), newest first. Exported for the plan test. A condition
 * naming one withdrawal (id, batch, end-to-end id, reference) has no ORDER BY: otherwise SQLite, with no
 * statistics, would rather walk the account's rows in order than look the one row up.
 */
export function withdrawalSearchQuery(db: DrizzleDb, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null) {
  const limit = f.limit ?? 20;
  const range = localDayRange(f.from, f.to);
  const where: SQL[] = [eq(withdrawals.accountId, accountId)];
  if (condition) where.push(condition.where);
  if (f.status) where.push(eq(withdrawals.status, f.status));
  if (range.since) where.push(gte(withdrawals.createdAt, range.since));
  if (range.until) where.push(lt(withdrawals.createdAt, range.until));
  if (f.cursor) {
    const c = decodeCursor(f.cursor, ID_PREFIX.withdrawal);
    where.push(sql`(${withdrawals.createdAt}, ${withdrawals.id}) < (${c.createdAt}, ${c.id})`);
  }
  const q = db.select().from(withdrawals).where(and(...where)).$dynamic();
  if (condition?.single) return q.limit(limit + 1);
  return q.orderBy(desc(withdrawals.createdAt), desc(withdrawals.id)).limit(limit + 1);
}

const SINGLE = new Set<SearchReading['kind']>(['id', 'batch', 'endtoend', 'reference']);

export function withdrawalSearchConditions(accountId: string, q: string | undefined): (SearchCondition | null)[] {
  return q?.trim()
    ? readSearch(q).flatMap((r) => readingConditions(accountId, r).map((where) => ({ where, single: SINGLE.has(r.kind) })))
    : [null];
}

/** The dashboard's withdrawal search: readings of `q` merged, status, Brasília date range, keyset pages. */
export async function searchWithdrawals(db: DrizzleDb, accountId: string, f: WithdrawalSearch): Promise<{ items: WithdrawalView[]; next_cursor: string | null }> {
  const limit = f.limit ?? 20;
  const conditions = withdrawalSearchConditions(accountId, f.q);
  const pages = await Promise.all(conditions.map((c) => withdrawalSearchQuery(db, accountId, f, c).all()));
  const rows = mergePages(pages, limit);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: await withdrawalViews(db, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
