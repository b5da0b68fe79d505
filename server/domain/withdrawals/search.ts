import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Stores } from '../../../db';
import { nameWords, withdrawalBatches, withdrawals } from '../../../db/schema';
import { contains, onPostgres } from '../../../db/dialect';
import { indexWalkFloor } from '../../../db/name-words';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../ids';
import { boundedPage, localDayRange, mergePages, planWordWalk, readSearch, refineSearch, walkStop, WALK_CAP, WORD_WALK_CAP, wordFloor, type SearchReading, type WalkFloor } from '../search';
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
    case 'words': return [and(walkOfWords(r), eq(withdrawals.id, nameWords.ownerId), othersOfWords(r))!];
  }
}

/** A word reading's walk in name_words: the key word in the stem's rows, down to the floor (planWordWalk) and no further. */
function walkOfWords(r: Extract<SearchReading, { kind: 'words' }>): SQL {
  return and(
    eq(nameWords.subject, 'withdrawal'), eq(nameWords.stem, r.stem), contains(nameWords.words, `,${r.key}`),
    ...(r.floor ? [sql`(${nameWords.createdAt}, ${nameWords.ownerId}) >= (${r.floor.createdAt}, ${r.floor.id})`] : []),
  )!;
}
/** The other typed words, each beginning a word of the recipient's name. */
function othersOfWords(r: Extract<SearchReading, { kind: 'words' }>): SQL | undefined {
  return and(...r.others.map((w) => contains(withdrawals.detailsNameWords, `"${w}`)));
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
export function withdrawalSearchQuery(db: Stores, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null, floor: WalkFloor | null = null) {
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
  // the bounded walk of another reading (withdrawalWalkFloor): its index down to the floor and no further
  if (floor) where.push(sql`(${createdAt}, ${id}) >= (${floor.createdAt}, ${floor.id})`);
  const r = condition?.reading;
  if (byWords && onPostgres && r?.kind === 'words') {
    // PostgreSQL, left to join name_words and withdrawals itself, hash-joined the capped walk's rows to
    // every withdrawal of the table (112 ms at 100 k); the walk as a subquery with its own LIMIT makes
    // it look each withdrawal up by primary key, as SQLite does anyway (it only joins by nested loops)
    const walkWhere: SQL[] = [eq(nameWords.accountId, accountId), walkOfWords(r)];
    if (range.since) walkWhere.push(gte(nameWords.createdAt, range.since));
    if (range.until) walkWhere.push(lt(nameWords.createdAt, range.until));
    if (f.cursor) {
      const c = decodeCursor(f.cursor, ID_PREFIX.withdrawal);
      walkWhere.push(sql`(${nameWords.createdAt}, ${nameWords.ownerId}) < (${c.createdAt}, ${c.id})`);
    }
    const walk = db.handle.select({ ownerId: nameWords.ownerId, createdAt: nameWords.createdAt }).from(nameWords).where(and(...walkWhere))
      .orderBy(desc(nameWords.createdAt), desc(nameWords.ownerId)).limit(WORD_WALK_CAP).as('walk');
    const rest = [othersOfWords(r), f.status ? eq(withdrawals.status, f.status) : undefined].filter((c): c is SQL => Boolean(c));
    return db.handle.select(viewedWithdrawalColumns).from(walk).innerJoin(withdrawals, eq(withdrawals.id, walk.ownerId))
      .where(rest.length ? and(...rest) : undefined).orderBy(desc(walk.createdAt), desc(walk.ownerId)).limit(limit + 1);
  }
  const q = byWords
    ? db.handle.select(viewedWithdrawalColumns).from(nameWords).crossJoin(withdrawals).where(and(...where)).$dynamic()
    : db.handle.select(viewedWithdrawalColumns).from(withdrawals).where(and(...where)).$dynamic();
  if (condition?.single) return q.limit(limit + 1);
  return q.orderBy(desc(createdAt), desc(id)).limit(limit + 1);
}

const SINGLE = new Set<SearchReading['kind']>(['id', 'batch', 'endtoend', 'reference']);
/** Readings whose index is (account, column, created_at, id): a status filter beside them is not served by it. */
const WALKED = new Set<SearchReading['kind']>(['amount', 'email', 'document']);

/**
 * The floor of a walk that the status filter may reject row after row (an amount, Pix key or document
 * walked in its index while a status is asked): the WALK_CAP-th row of that index, read from it alone;
 * null when the index serves every filter or the walk ends within the cap. Word walks have their own.
 */
export async function withdrawalWalkFloor(db: Stores, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null): Promise<WalkFloor | null> {
  if (!f.status || !condition?.reading || !WALKED.has(condition.reading.kind)) return null;
  return indexWalkFloor(db, {
    table: withdrawals, createdAt: withdrawals.createdAt, id: withdrawals.id, ...localDayRange(f.from, f.to),
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined,
  }, [eq(withdrawals.accountId, accountId), condition.where], WALK_CAP);
}

function conditionsOf(accountId: string, readings: SearchReading[]): SearchCondition[] {
  return readings.flatMap((r) => readingConditions(accountId, r).map((where) => ({ where, single: SINGLE.has(r.kind), byWords: r.kind === 'words', reading: r })));
}

export function withdrawalSearchConditions(accountId: string, q: string | undefined): (SearchCondition | null)[] {
  return q?.trim() ? conditionsOf(accountId, readSearch(q)) : [null];
}

/** The dashboard's withdrawal search: readings of `q` merged, status, Brasília date range, keyset pages. */
export async function searchWithdrawals(db: Stores, accountId: string, f: WithdrawalSearch): Promise<{ items: WithdrawalView[]; next_cursor: string | null }> {
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
  const floors = await Promise.all(conditions.map(async (c) => wordFloor(c?.reading) ?? withdrawalWalkFloor(db, accountId, f, c)));
  const pages = await Promise.all(conditions.map((c, i) => withdrawalSearchQuery(db, accountId, f, c, wordFloor(c?.reading) ? null : floors[i])));
  const stop = walkStop(pages, floors, limit);
  const byWords = conditions.some((c) => c?.reading?.kind === 'words' && c.reading.floor && c.reading.floor === stop);
  const { page, next } = boundedPage(mergePages(pages, limit), limit, stop, refineSearch(byWords));
  return {
    items: await withdrawalViews(db, page),
    next_cursor: next ? encodeCursor(next) : null,
  };
}
