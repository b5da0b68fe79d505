import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../../../db';
import { nameWords, withdrawalBatches, withdrawals } from '../../../db/schema';
import { contains } from '../../../db/dialect';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../ids';
import { boundedPage, localDayRange, mergePages, planWordWalk, readSearch, walkStop, type SearchReading } from '../search';
import type { WithdrawalStatus } from './rules';
import { viewedWithdrawalColumns, withdrawalViews, type WithdrawalView } from './view';

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
    // walked in name_words (see withdrawalSearchQuery): the key word in the stem's row, the others in the name
    case 'words': return [and(
      eq(nameWords.subject, 'withdrawal'), eq(nameWords.stem, r.stem), contains(nameWords.words, `,${r.key}`),
      eq(withdrawals.id, nameWords.ownerId), ...r.others.map((w) => contains(withdrawals.detailsNameWords, `"${w}`)),
      // the bounded walk (planWordWalk): this page reads the stem down to its floor and no further
      ...(r.floor ? [sql`(${nameWords.createdAt}, ${nameWords.ownerId}) >= (${r.floor.createdAt}, ${r.floor.id})`] : []),
    )!];
  }
}

/**
 * A search condition, whether it names at most one withdrawal (then no order is kept, see below), and
 * whether it is a word search of the recipient's name (then name_words is walked, see below).
 */
export interface SearchCondition { where: SQL; single: boolean; byWords?: boolean; reading?: SearchReading }

/**
 * One keyset page for one condition (or none), newest first. Exported for the plan test. A condition
 * naming one withdrawal (id, batch, end-to-end id, reference) has no ORDER BY: otherwise SQLite, with no
 * statistics, would rather walk the account's rows in order than look the one row up.
 */
export function withdrawalSearchQuery(db: DrizzleDb, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null) {
  const limit = f.limit ?? 20;
  const range = localDayRange(f.from, f.to);
  // a word search walks name_words, whose (created_at, owner_id) are the withdrawal's: order, dates and
  // cursor go on its columns so that its index serves them
  const byWords = condition?.byWords === true;
  const createdAt = byWords ? nameWords.createdAt : withdrawals.createdAt;
  const id = byWords ? nameWords.ownerId : withdrawals.id;
  const where: SQL[] = [eq(byWords ? nameWords.accountId : withdrawals.accountId, accountId)];
  if (condition) where.push(condition.where);
  if (f.status) where.push(eq(withdrawals.status, f.status));
  if (range.since) where.push(gte(createdAt, range.since));
  if (range.until) where.push(lt(createdAt, range.until));
  if (f.cursor) {
    const c = decodeCursor(f.cursor, ID_PREFIX.withdrawal);
    where.push(sql`(${createdAt}, ${id}) < (${c.createdAt}, ${c.id})`);
  }
  const q = byWords
    ? db.select(viewedWithdrawalColumns).from(nameWords).crossJoin(withdrawals).where(and(...where)).$dynamic()
    : db.select(viewedWithdrawalColumns).from(withdrawals).where(and(...where)).$dynamic();
  if (condition?.single) return q.limit(limit + 1);
  return q.orderBy(desc(createdAt), desc(id)).limit(limit + 1);
}

const SINGLE = new Set<SearchReading['kind']>(['id', 'batch', 'endtoend', 'reference']);

function conditionsOf(accountId: string, readings: SearchReading[]): SearchCondition[] {
  return readings.flatMap((r) => readingConditions(accountId, r).map((where) => ({ where, single: SINGLE.has(r.kind), byWords: r.kind === 'words', reading: r })));
}

export function withdrawalSearchConditions(accountId: string, q: string | undefined): (SearchCondition | null)[] {
  return q?.trim() ? conditionsOf(accountId, readSearch(q)) : [null];
}

/** The dashboard's withdrawal search: readings of `q` merged, status, Brasília date range, keyset pages. */
export async function searchWithdrawals(db: DrizzleDb, accountId: string, f: WithdrawalSearch): Promise<{ items: WithdrawalView[]; next_cursor: string | null }> {
  const limit = f.limit ?? 20;
  // a word reading first picks its rarest word and the floor of its walk (or finds it has no match)
  const range = localDayRange(f.from, f.to);
  const before = f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined;
  const readings = f.q?.trim()
    ? (await Promise.all(readSearch(f.q).map((r) => (r.kind === 'words'
      ? planWordWalk(db, r, { accountId, subject: 'withdrawal', ...range, before })
      : r)))).filter((r) => r !== 'empty')
    : null;
  const conditions = readings ? conditionsOf(accountId, readings) : [null];
  const pages = await Promise.all(conditions.map((c) => withdrawalSearchQuery(db, accountId, f, c)));
  const stop = conditions.map((c, i) => walkStop(pages[i], limit, c?.reading ?? null)).find((s) => s) ?? null;
  const { page, next } = boundedPage(mergePages(pages, limit), limit, stop);
  return {
    items: await withdrawalViews(db, page),
    next_cursor: next ? encodeCursor(next) : null,
  };
}
