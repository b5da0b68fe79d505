import { and, desc, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { Stores } from '../../../db';
import { customers, disputes, nameWords, transactions } from '../../../db/schema';
import { contains } from '../../../db/dialect';
import { indexWalkFloor } from '../../../db/name-words';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../ids';
import { boundedPage, localDayRange, mergePages, planWordWalk, readSearch, refineSearch, walkStop, WALK_CAP, wordFloor, type SearchReading, type WalkFloor } from '../search';
import { selectTransactionViews, toTransactionView, viewColumns, type TransactionMethod, type TransactionStatus, type TransactionView } from './view';

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

/** The condition one reading adds; each is served by one index (see db/schema/transactions.ts). */
function readingCondition(r: SearchReading): SQL | null {
  switch (r.kind) {
    case 'id': return eq(transactions.id, r.value);
    case 'endtoend': return eq(transactions.endToEnd, r.value);
    case 'email': return eq(customers.emailSearch, r.value);
    case 'document': return eq(customers.document, r.value);
    case 'amount': return eq(transactions.amount, r.value);
    case 'reference': return eq(transactions.externalRef, r.value);
    // the stem's rows of name_words (the walk's index), the key word among them, the other words in the name
    case 'words': return and(
      eq(nameWords.subject, 'transaction'), eq(nameWords.stem, r.stem), contains(nameWords.words, `,${r.key}`),
      eq(transactions.id, nameWords.ownerId), eq(customers.id, transactions.customerId),
      ...r.others.map((w) => contains(customers.nameWords, `"${w}`)),
    )!;
    case 'batch': return null;
  }
}

/** Readings that name at most one charge: no order to keep, so the planner goes straight to their index. */
const SINGLE = new Set<SearchReading['kind']>(['id', 'endtoend', 'reference']);
/** Readings about the customer: the customer index is read first (CROSS JOIN fixes SQLite's join order). */
const BY_CUSTOMER = new Set<SearchReading['kind']>(['email', 'document']);

/**
 * One keyset page of one reading (or of no search at all), newest first. Exported for the plan test:
 * every variant is an index search of the account's rows, never a scan.
 */
export function transactionSearchQuery(db: Stores, accountId: string, f: TransactionSearch, reading: SearchReading | null, floor: WalkFloor | null = null) {
  const limit = f.limit ?? 20;
  const range = localDayRange(f.from, f.to);
  // a word search walks name_words, whose (created_at, owner_id) are the charge's: order, dates and
  // cursor go on its columns so that its index serves them
  const byWords = reading?.kind === 'words';
  // likewise an e-mail or document search walks the customer index: every charge has a customer of its
  // own stamped with the charge's created_at (create.ts), so order, dates, cursor and floor go on the
  // customer's, and the charges are then reached by customer, never by a range of the account's charges
  const byCustomer = reading !== null && BY_CUSTOMER.has(reading.kind);
  const createdAt = byWords ? nameWords.createdAt : byCustomer ? customers.createdAt : transactions.createdAt;
  const id = byWords ? nameWords.ownerId : transactions.id;
  const where: SQL[] = [eq(byWords ? nameWords.accountId : transactions.accountId, accountId)];
  if (reading) {
    const c = readingCondition(reading);
    if (!c) return null;
    where.push(c);
    if (BY_CUSTOMER.has(reading.kind)) where.push(eq(customers.accountId, accountId), eq(customers.id, transactions.customerId));
  }
  if (f.status) where.push(eq(transactions.status, f.status));
  if (f.method) where.push(eq(transactions.method, f.method));
  if (range.since) where.push(gte(createdAt, range.since));
  if (range.until) where.push(lt(createdAt, range.until));
  if (f.cursor) {
    const c = decodeCursor(f.cursor, ID_PREFIX.transaction);
    where.push(sql`(${createdAt}, ${id}) < (${c.createdAt}, ${c.id})`);
  }
  // the bounded walk (planWordWalk, transactionWalkFloor): this page reads its index down to the floor and no further
  const stopAt = wordFloor(reading) ?? floor;
  if (stopAt) where.push(sql`(${createdAt}, ${id}) >= (${stopAt.createdAt}, ${stopAt.id})`);
  const base = byWords
    ? db.handle.select(viewColumns).from(nameWords).crossJoin(transactions).crossJoin(customers).where(and(...where)).$dynamic()
    : reading && BY_CUSTOMER.has(reading.kind)
      ? db.handle.select(viewColumns).from(customers).crossJoin(transactions).where(and(...where)).$dynamic()
      : selectTransactionViews(db).where(and(...where)).$dynamic();
  if (reading && SINGLE.has(reading.kind)) return base.limit(limit + 1);
  return base.orderBy(desc(createdAt), desc(id)).limit(limit + 1);
}

/**
 * The floor of a walk that a filter may reject row after row: the WALK_CAP-th row of the index the
 * reading walks (amount; with no reading, the status index when a method is asked too), read from the
 * index alone; null when its index serves every filter (nothing is rejected, the page stops at `limit`)
 * or when the walk ends within the cap. Word walks have their own (planWordWalk); an e-mail or document
 * reading has customerWalkFloor.
 */
export async function transactionWalkFloor(db: Stores, accountId: string, f: TransactionSearch, reading: SearchReading | null): Promise<WalkFloor | null> {
  if (reading && BY_CUSTOMER.has(reading.kind)) return customerWalkFloor(db, accountId, f, reading);
  const where: SQL[] = [eq(transactions.accountId, accountId)];
  if (reading === null && f.status && f.method) where.push(eq(transactions.status, f.status));
  else if (reading?.kind === 'amount' && (f.status || f.method)) where.push(eq(transactions.amount, reading.value));
  else return null;
  return indexWalkFloor(db, {
    table: transactions, createdAt: transactions.createdAt, id: transactions.id, ...localDayRange(f.from, f.to),
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction) : undefined,
  }, where, WALK_CAP);
}

/**
 * The floor of an e-mail or document reading: the WALK_CAP-th of the account's customers with that e-mail
 * or document, newest first, read from the customer index (account, e-mail or document, created_at)
 * alone. Every charge has a customer of its own stamped with the charge's created_at (create.ts), so
 * the page then joins and sorts at most that many charges, however many share the e-mail. The floor's
 * id sorts before every real id, so that the rows of its instant all belong to this page, none to the next.
 */
async function customerWalkFloor(db: Stores, accountId: string, f: TransactionSearch, reading: SearchReading): Promise<WalkFloor | null> {
  const where: SQL[] = [eq(customers.accountId, accountId), readingCondition(reading)!];
  const range = localDayRange(f.from, f.to);
  if (range.since) where.push(gte(customers.createdAt, range.since));
  if (range.until) where.push(lt(customers.createdAt, range.until));
  if (f.cursor) where.push(lte(customers.createdAt, decodeCursor(f.cursor, ID_PREFIX.transaction).createdAt));
  const [r] = await db.handle.select({ createdAt: customers.createdAt }).from(customers).where(and(...where))
    .orderBy(desc(customers.createdAt)).limit(1).offset(WALK_CAP - 1);
  return r ? { createdAt: r.createdAt, id: `${ID_PREFIX.transaction}_0` } : null;
}

/** The dispute a charge shows: an open one first, else the latest. */
async function disputeMarks(db: Stores, ids: string[]): Promise<Map<string, DisputeMark>> {
  const marks = new Map<string, DisputeMark>();
  if (!ids.length) return marks;
  const rows = await db.handle.select({ transactionId: disputes.transactionId, status: disputes.status }).from(disputes)
    .where(inArray(disputes.transactionId, ids)).orderBy(disputes.createdAt, disputes.id);
  for (const r of rows) if (marks.get(r.transactionId) !== 'OPEN') marks.set(r.transactionId, r.status);
  return marks;
}

/** The dashboard's transaction search: readings of `q` merged, filters, Brasília date range, keyset pages. */
export async function searchTransactions(db: Stores, accountId: string, f: TransactionSearch): Promise<{ items: TransactionSearchItem[]; next_cursor: string | null }> {
  const limit = f.limit ?? 20;
  const read: (SearchReading | null)[] = f.q?.trim() ? readSearch(f.q) : [null];
  // a word reading first picks its rarest word and the floor of its walk (or finds it has no match)
  const range = localDayRange(f.from, f.to);
  const before = f.cursor ? decodeCursor(f.cursor, ID_PREFIX.transaction) : undefined;
  const readings = (await Promise.all(read.map((r) => (r?.kind === 'words'
    ? planWordWalk(db, r, { accountId, subject: 'transaction', ...range, before })
    : r)))).filter((r) => r !== 'empty');
  const floors = await Promise.all(readings.map(async (r) => wordFloor(r) ?? transactionWalkFloor(db, accountId, f, r)));
  const pages = await Promise.all(readings.map((r, i) => transactionSearchQuery(db, accountId, f, r, floors[i]) ?? []));
  const stop = walkStop(pages, floors, limit);
  // a word walk that stopped is refused on `q` as before; another on `q` too, or on `method` when no `q` was typed
  const byWords = readings.some((r) => r?.kind === 'words' && r.floor && stop && r.floor === stop);
  const { page, next } = boundedPage(mergePages(pages, limit), limit, stop, refineSearch(byWords, f.q?.trim() ? 'q' : 'method'));
  const marks = await disputeMarks(db, page.map((r) => r.id));
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
export async function listDisputes(db: Stores, accountId: string, limit = 100): Promise<{ items: DisputeListItem[]; held: number }> {
  const rows = async (status: DisputeMark[]) => db.handle.select({
    id: disputes.id, transactionId: disputes.transactionId, status: disputes.status, amount: disputes.amount,
    createdAt: disputes.createdAt, updatedAt: disputes.updatedAt, customerName: customers.name, method: transactions.method,
  }).from(disputes)
    .innerJoin(transactions, eq(transactions.id, disputes.transactionId))
    .innerJoin(customers, eq(customers.id, transactions.customerId))
    .where(and(eq(disputes.accountId, accountId), inArray(disputes.status, status)))
    .orderBy(desc(disputes.createdAt), desc(disputes.id)).limit(limit);
  const open = await rows(['OPEN']);
  const closed = open.length < limit ? await rows(['WON', 'LOST']) : [];
  const items = [...open, ...closed].slice(0, limit).map((d) => ({
    id: d.id, transaction_id: d.transactionId, status: d.status, amount: d.amount, held: d.status === 'OPEN' ? d.amount : 0,
    customer_name: d.customerName, method: d.method, created_at: d.createdAt, updated_at: d.updatedAt,
  }));
  return { items, held: open.reduce((n, d) => n + d.amount, 0) };
}
