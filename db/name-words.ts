// Bounded looks into name_words (db/schema/search.ts) for the dashboard's word search: each reads at
// most a given number of index entries of one stem, newest first, so that a search can pick its rarest
// word and bound its walk before it joins a single charge or withdrawal.
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from './client';
import { handleOf, type OnHandle } from './stores/handle-of';
import { contains } from './dialect';
import { nameWords, transactions, withdrawals } from './schema';

/** One stem's walk: the rows a word search would read, in its (created_at, owner_id) order. */
export interface StemWalk {
  accountId: string;
  subject: 'transaction' | 'withdrawal';
  stem: string;
  since?: string;
  until?: string;
  /** The keyset cursor: only rows before it. */
  before?: { createdAt: string; id: string };
}

function walkWhere(w: StemWalk): SQL {
  const where: SQL[] = [eq(nameWords.accountId, w.accountId), eq(nameWords.subject, w.subject), eq(nameWords.stem, w.stem)];
  if (w.since) where.push(gte(nameWords.createdAt, w.since));
  if (w.until) where.push(lt(nameWords.createdAt, w.until));
  if (w.before) where.push(sql`(${nameWords.createdAt}, ${nameWords.ownerId}) < (${w.before.createdAt}, ${w.before.id})`);
  return and(...where)!;
}

/**
 * The first `size` rows of the walk (the covering index only): how many there are and how many hold a
 * word beginning with `word`. Fewer than `size` examined means the count is the stem's whole answer.
 */
export async function sampleStemWalk(on: OnHandle, w: StemWalk, word: string, size: number): Promise<{ examined: number; matched: number }> {
  const db = handleOf(on);
  const window = db.select({ words: nameWords.words }).from(nameWords).where(walkWhere(w))
    .orderBy(desc(nameWords.createdAt), desc(nameWords.ownerId)).limit(size).as('window');
  const [r] = await db.select({
    examined: sql<number>`count(*)`.mapWith(Number),
    matched: sql<number>`count(CASE WHEN ${contains(window.words, `,${word}`)} THEN 1 END)`.mapWith(Number),
  }).from(window);
  return r ?? { examined: 0, matched: 0 };
}

/**
 * The `cap`-th row of the walk, where a bounded walk stops (a search reads this row and those newer
 * than it); null when the walk has fewer rows, so it ends by itself. Reads `cap` index entries.
 */
export async function stemWalkFloor(on: OnHandle, w: StemWalk, cap: number): Promise<{ createdAt: string; id: string } | null> {
  const db = handleOf(on);
  const [r] = await db.select({ createdAt: nameWords.createdAt, id: nameWords.ownerId }).from(nameWords).where(walkWhere(w))
    .orderBy(desc(nameWords.createdAt), desc(nameWords.ownerId)).limit(1).offset(cap - 1);
  return r ?? null;
}

/** A keyset walk of one table's index in (created_at, id) order: the columns, and where it is (dates, cursor). */
export interface IndexWalk {
  table: typeof transactions | typeof withdrawals;
  createdAt: typeof transactions.createdAt | typeof withdrawals.createdAt;
  id: typeof transactions.id | typeof withdrawals.id;
  since?: string;
  until?: string;
  /** The page's cursor: only rows older than it. */
  before?: { createdAt: string; id: string };
}

/**
 * The `cap`-th row, newest first, that `where` selects within the walk's dates and before its cursor,
 * read from the walk's index alone: the floor past which one page of a search does not read (null when
 * fewer rows are there). The same bound for every walk a filter may reject row after row.
 */
export async function indexWalkFloor(on: OnHandle, w: IndexWalk, where: SQL[], cap: number): Promise<{ createdAt: string; id: string } | null> {
  const db = handleOf(on);
  const all = [...where];
  if (w.since) all.push(gte(w.createdAt, w.since));
  if (w.until) all.push(lt(w.createdAt, w.until));
  if (w.before) all.push(sql`(${w.createdAt}, ${w.id}) < (${w.before.createdAt}, ${w.before.id})`);
  const [r] = await db.select({ createdAt: w.createdAt, id: w.id }).from(w.table).where(and(...all))
    .orderBy(desc(w.createdAt), desc(w.id)).limit(1).offset(cap - 1);
  return r ?? null;
}
