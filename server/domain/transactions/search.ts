import type { Stores } from '../../../db';
import type { ChargeSearchPage } from '../../../db/stores/transactions';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../../../contract/ids';
import { boundedPage, localDayRange, mergePages, planWordWalk, readSearch, refineSearch, walkStop, WALK_CAP, wordFloor, type SearchReading, type WalkFloor } from '../search';
import { toTransactionView, type TransactionMethod, type TransactionStatus, type TransactionView } from './view';
import type { Services } from '../../services';

export interface TransactionSearch {
  q?: string;
  status?: TransactionStatus;
  method?: TransactionMethod;
  /** Brasília calendar days, both included. */
  from?: string;
  to?: string;
  cursor?: string | null;
  limit?: number;
}

export type DisputeMark = 'OPEN' | 'WON' | 'LOST';
export interface TransactionSearchItem extends TransactionView { dispute: DisputeMark | null }

/** Readings about the customer: an e-mail or document search walks the customer index (customerWalkFloor). */
const BY_CUSTOMER = new Set<SearchReading['kind']>(['email', 'document']);

/**
 * One keyset page of one reading (or of no search at all), newest first, as the store reads it (null
 * for a reading charges do not have: a batch id). Exported for the plan test, which reads the SQL of
 * `transactions.searchPageQuery` of it: every variant is an index search of the account's rows, never a scan.
 */
export function transactionSearchPage(accountId: string, f: TransactionSearch, reading: SearchReading | null, floor: WalkFloor | null = null): ChargeSearchPage | null {
  if (reading?.kind === 'batch') return null;
  return {
    accountId, reading, status: f.status, method: f.method, ...localDayRange(f.from, f.to),
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction) : undefined,
    // the bounded walk (planWordWalk, transactionWalkFloor): this page reads its index down to the floor and no further
    floor: wordFloor(reading) ?? floor,
    take: (f.limit ?? 20) + 1,
  };
}

/**
 * The floor of a walk that a filter may reject row after row: the WALK_CAP-th row of the index the
 * reading walks (amount; with no reading, the status index when a method is asked too), read from the
 * index alone; null when its index serves every filter (nothing is rejected, the page stops at `limit`)
 * or when the walk ends within the cap. Word walks have their own (planWordWalk); an e-mail or document
 * reading has customerWalkFloor.
 */
export async function transactionWalkFloor(tx: Stores, accountId: string, f: TransactionSearch, reading: SearchReading | null): Promise<WalkFloor | null> {
  if (reading && BY_CUSTOMER.has(reading.kind)) return customerWalkFloor(tx, accountId, f, reading);
  let by: { status: TransactionStatus } | { amount: number };
  if (reading === null && f.status && f.method) by = { status: f.status };
  else if (reading?.kind === 'amount' && (f.status || f.method)) by = { amount: reading.value };
  else return null;
  return tx.transactions.chargeWalkFloor({
    accountId, by, ...localDayRange(f.from, f.to),
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction) : undefined,
  }, WALK_CAP);
}

/**
 * The floor of an e-mail or document reading: the WALK_CAP-th of the account's customers with that e-mail
 * or document, newest first, read from the customer index (account, e-mail or document, created_at)
 * alone. Every charge has a customer of its own stamped with the charge's created_at (create.ts), so
 * the page then joins and sorts at most that many charges, however many share the e-mail. The floor's
 * id sorts before every real id, so that the rows of its instant all belong to this page, none to the next.
 */
async function customerWalkFloor(tx: Stores, accountId: string, f: TransactionSearch, reading: SearchReading): Promise<WalkFloor | null> {
  if (reading.kind !== 'email' && reading.kind !== 'document') return null;
  const floor = await tx.transactions.customerWalkFloor({
    accountId, reading, ...localDayRange(f.from, f.to),
    atOrBefore: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction).createdAt : undefined,
  }, WALK_CAP);
  return floor !== null ? { createdAt: floor, id: `${ID_PREFIX.transaction}_0` } : null;
}

/** The dispute a charge shows: an open one first, else the latest. */
async function disputeMarks(tx: Stores, ids: string[]): Promise<Map<string, DisputeMark>> {
  const marks = new Map<string, DisputeMark>();
  if (!ids.length) return marks;
  const rows = await tx.transactions.disputeStatusesOf(ids);
  for (const r of rows) if (marks.get(r.transactionId) !== 'OPEN') marks.set(r.transactionId, r.status);
  return marks;
}

/** The dashboard's transaction search: readings of `q` merged, filters, Brasília date range, keyset pages. */
export async function searchTransactions(s: Pick<Services, 'db'>, accountId: string, f: TransactionSearch): Promise<{ items: TransactionSearchItem[]; next_cursor: string | null }> {
  const reads = s.db.read;
  const limit = f.limit ?? 20;
  const read: (SearchReading | null)[] = f.q?.trim() ? readSearch(f.q) : [null];
  // a word reading first picks its rarest word and the floor of its walk (or finds it has no match)
  const range = localDayRange(f.from, f.to);
  const before = f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction) : undefined;
  const readings = (await Promise.all(read.map((r) => (r?.kind === 'words'
    ? planWordWalk(reads, r, { accountId, subject: 'transaction', ...range, before })
    : r)))).filter((r) => r !== 'empty');
  const floors = await Promise.all(readings.map(async (r) => wordFloor(r) ?? transactionWalkFloor(reads, accountId, f, r)));
  const pages = await Promise.all(readings.map((r, i) => {
    const p = transactionSearchPage(accountId, f, r, floors[i]);
    return p ? reads.transactions.searchPage(p) : [];
  }));
  const stop = walkStop(pages, floors, limit);
  // a word walk that stopped is refused on `q` as before; another on `q` too, or on `method` when no `q` was typed
  const byWords = readings.some((r) => r?.kind === 'words' && r.floor && stop && r.floor === stop);
  const { page, next } = boundedPage(mergePages(pages, limit), limit, stop, refineSearch(byWords, f.q?.trim() ? 'q' : 'method'));
  const marks = await disputeMarks(reads, page.map((r) => r.id));
  return {
    items: page.map((r) => ({ ...toTransactionView(r), dispute: marks.get(r.id) ?? null })),
    next_cursor: next ? encodeCursor(next) : null,
  };
}

export interface DisputeListItem {
  id: string; transaction_id: string; status: DisputeMark; amount: number; held: number;
  customer_name: string; method: TransactionMethod; created_at: string; updated_at: string;
}

/** The Disputes page: open disputes first (their amount is held from the balance), then closed ones, newest first. */
export async function listDisputes(s: Pick<Services, 'db'>, accountId: string, limit = 100): Promise<{ items: DisputeListItem[]; held: number }> {
  const reads = s.db.read;
  const rows = (statuses: DisputeMark[]) => reads.transactions.disputeList(accountId, statuses, limit);
  const open = await rows(['OPEN']);
  const closed = open.length < limit ? await rows(['WON', 'LOST']) : [];
  const items = [...open, ...closed].slice(0, limit).map((d) => ({
    id: d.id, transaction_id: d.transactionId, status: d.status, amount: d.amount, held: d.status === 'OPEN' ? d.amount : 0,
    customer_name: d.customerName, method: d.method, created_at: d.createdAt, updated_at: d.updatedAt,
  }));
  return { items, held: open.reduce((n, d) => n + d.amount, 0) };
}
