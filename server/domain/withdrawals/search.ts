import type { Stores } from '../../../db';
import type { WithdrawalMatch, WithdrawalSearchPage } from '../../../db/stores/withdrawals';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../../../contract/ids';
import { boundedPage, localDayRange, mergePages, planWordWalk, readSearch, refineSearch, walkStop, WALK_CAP, WORD_WALK_CAP, wordFloor, type SearchReading, type WalkFloor } from '../search';
import type { WithdrawalStatus } from './rules';
import { withdrawalViews, type WithdrawalPage } from './view';
import type { Services } from '../../services';

export interface WithdrawalSearch {
  q?: string;
  status?: WithdrawalStatus;
  /** Brasília calendar days, both included. */
  from?: string;
  to?: string;
  cursor?: string | null;
  limit?: number;
}

/** What one reading matches; a document may be the recipient's or a CPF/CNPJ key, so it has two. */
function readingMatches(r: SearchReading): WithdrawalMatch[] {
  switch (r.kind) {
    case 'id': return [{ by: 'id', id: r.value }];
    case 'batch': return [{ by: 'batch', batchId: r.value }];
    case 'endtoend': return [{ by: 'endToEnd', endToEnd: r.value }];
    case 'email': return [{ by: 'key', key: r.value }];
    case 'document': return [{ by: 'document', document: r.value }, { by: 'key', key: r.value }];
    case 'amount': return [{ by: 'amount', amount: r.value }];
    case 'reference': return [{ by: 'reference', externalRef: r.value }];
    // walked in name_words, down to the floor planWordWalk found (and no further than WORD_WALK_CAP rows)
    case 'words': return [{ by: 'words', stem: r.stem, key: r.key, others: r.others, floor: r.floor ?? null, walkCap: WORD_WALK_CAP }];
  }
}

/**
 * A search condition, whether it names at most one withdrawal (then no order is kept, see
 * db/stores/withdrawals.ts searchPageQuery), and whether it is a word search of the recipient's name
 * (then name_words is walked).
 */
export interface SearchCondition { match: WithdrawalMatch; single: boolean; byWords?: boolean; reading?: SearchReading }

/** One keyset page for one condition (or none), newest first: the filter's dates, cursor and size. */
function searchPageOf(accountId: string, f: WithdrawalSearch, condition: SearchCondition | null, floor: WalkFloor | null): WithdrawalSearchPage {
  const range = localDayRange(f.from, f.to);
  return {
    accountId, match: condition?.match ?? null, ordered: !condition?.single, status: f.status, ...range,
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined, floor, take: (f.limit ?? 20) + 1,
  };
}

/** One page's query (db/stores/withdrawals.ts searchPageQuery). Exported for the plan test. */
export function withdrawalSearchQuery(tx: Stores, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null, floor: WalkFloor | null = null) {
  return tx.withdrawals.searchPageQuery(searchPageOf(accountId, f, condition, floor));
}

const SINGLE = new Set<SearchReading['kind']>(['id', 'batch', 'endtoend', 'reference']);
/** Readings whose index is (account, column, created_at, id): a status filter beside them is not served by it. */
const WALKED = new Set<SearchReading['kind']>(['amount', 'email', 'document']);

/**
 * The floor of a walk that the status filter may reject row after row (an amount, Pix key or document
 * walked in its index while a status is asked): the WALK_CAP-th row of that index, read from it alone;
 * null when the index serves every filter or the walk ends within the cap. Word walks have their own.
 */
export async function withdrawalWalkFloor(tx: Stores, accountId: string, f: WithdrawalSearch, condition: SearchCondition | null): Promise<WalkFloor | null> {
  if (!f.status || !condition?.reading || !WALKED.has(condition.reading.kind)) return null;
  return tx.withdrawals.searchWalkFloor({
    accountId, match: condition.match, ...localDayRange(f.from, f.to),
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined, cap: WALK_CAP,
  });
}

function conditionsOf(readings: SearchReading[]): SearchCondition[] {
  return readings.flatMap((r) => readingMatches(r).map((match) => ({ match, single: SINGLE.has(r.kind), byWords: r.kind === 'words', reading: r })));
}

export function withdrawalSearchConditions(accountId: string, q: string | undefined): (SearchCondition | null)[] {
  return q?.trim() ? conditionsOf(readSearch(q)) : [null];
}

/** The dashboard's withdrawal search: readings of `q` merged, status, Brasília date range, keyset pages. */
export async function searchWithdrawals(s: Pick<Services, 'db'>, accountId: string, f: WithdrawalSearch): Promise<WithdrawalPage> {
  const reads = s.db.read;
  const limit = f.limit ?? 20;
  // a word reading first picks its rarest word and the floor of its walk (or finds it has no match)
  const range = localDayRange(f.from, f.to);
  const before = f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined;
  const readings = f.q?.trim()
    ? (await Promise.all(readSearch(f.q).map((r) => (r.kind === 'words'
      ? planWordWalk(reads, r, { accountId, subject: 'withdrawal', ...range, before })
      : r)))).filter((r) => r !== 'empty')
    : null;
  const conditions = readings ? conditionsOf(readings) : [null];
  const floors = await Promise.all(conditions.map(async (c) => wordFloor(c?.reading) ?? withdrawalWalkFloor(reads, accountId, f, c)));
  const pages = await Promise.all(conditions.map((c, i) => reads.withdrawals.searchPage(searchPageOf(accountId, f, c, wordFloor(c?.reading) ? null : floors[i]))));
  const stop = walkStop(pages, floors, limit);
  const byWords = conditions.some((c) => c?.reading?.kind === 'words' && c.reading.floor && c.reading.floor === stop);
  const { page, next } = boundedPage(mergePages(pages, limit), limit, stop, refineSearch(byWords));
  return {
    items: await withdrawalViews(reads, page),
    next_cursor: next ? encodeCursor(next) : null,
  };
}
