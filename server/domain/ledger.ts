import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Stores } from '../../db';
import { perConnection } from '../../db/prepared';
import { greatest } from '../../db/dialect';
import { MERCHANT_BOOKS, type LedgerEntryKind, type MerchantBook, type SystemBook } from '../../contract/ledger';
import { BALANCE_CEILING_CENTS, ledgerBooks, ledgerEntries, ledgerLines } from '../../db/schema';
import { DomainError } from '../errors';
import { newId } from './ids';
import { first, lockRows, rawRows } from '../../db/query';

/**
 * Double-entry ledger. Every movement is an entry whose lines sum to zero; a trigger applies each line
 * to its book's running balance, and the database refuses an overdraft (only a dispute hold may take
 * `available` below zero) or a balance above the ceiling inside the same statement, so both rules hold
 * whatever the concurrency.
 */
export type { MerchantBook, SystemBook } from '../../contract/ledger';

export type BookRef = { account: string; book: MerchantBook } | { system: SystemBook };

export interface PostEntry {
  accountId: string;
  kind: LedgerEntryKind;
  resourceId?: string | null;
  description?: string | null;
  lines: { book: BookRef; amount: number }[];
  at: Date;
}

/** Creates the merchant's books; called in the job that creates the account. */
export async function openMerchantBooks(tx: Stores, accountId: string, at: Date) {
  for (const kind of MERCHANT_BOOKS) {
    await tx.handle.insert(ledgerBooks).values({ id: newId('ledgerBook'), accountId, kind, allowNegative: 0, balance: 0, updatedAt: at.toISOString() });
  }
}

const ph = (name: string) => sql.placeholder(name);

const statements = perConnection((d) => ({
  merchantBook: d.select({ id: ledgerBooks.id }).from(ledgerBooks)
    .where(and(eq(ledgerBooks.accountId, ph('account')), eq(ledgerBooks.kind, ph('kind')))).prepare(),
  systemBook: d.select({ id: ledgerBooks.id }).from(ledgerBooks)
    .where(and(isNull(ledgerBooks.accountId), eq(ledgerBooks.kind, ph('kind')))).prepare(),
  insertEntry: d.insert(ledgerEntries).values({
    id: ph('id'), accountId: ph('accountId'), kind: ph('kind'), resourceId: ph('resourceId'), description: ph('description'), createdAt: ph('createdAt'),
  }).prepare(),
  // The line states the balance it leaves and is dated no earlier than the book's previous line (a
  // clock stepping back must not reorder a statement); the trigger checks both in the same statement.
  insertLine: d.insert(ledgerLines).values({
    entryId: ph('entryId'), bookId: ph('bookId'), amount: ph('amount'),
    balanceAfter: sql`(SELECT ${ledgerBooks.balance} FROM ${ledgerBooks} WHERE ${ledgerBooks.id} = ${ph('bookId')}) + ${ph('amount')}`,
    createdAt: greatest(ph('createdAt'), sql`(SELECT ${ledgerBooks.updatedAt} FROM ${ledgerBooks} WHERE ${ledgerBooks.id} = ${ph('bookId')})`),
  }).prepare(),
  balances: d.select({ kind: ledgerBooks.kind, balance: ledgerBooks.balance }).from(ledgerBooks)
    .where(eq(ledgerBooks.accountId, ph('account'))).prepare(),
}));

async function bookId(tx: Stores, ref: BookRef, at: Date): Promise<string> {
  const st = statements(tx);
  if ('account' in ref) {
    const row = await first(st.merchantBook.execute({ account: ref.account, kind: ref.book }));
    if (row) return row.id;
    // accounts opened before a book kind existed get it on first use (always inside a write job)
    const id = newId('ledgerBook');
    await tx.handle.insert(ledgerBooks).values({ id, accountId: ref.account, kind: ref.book, allowNegative: 0, balance: 0, updatedAt: at.toISOString() });
    return id;
  }
  const row = await first(st.systemBook.execute({ kind: ref.system }));
  if (row) return row.id;
  const id = newId('ledgerBook');
  await tx.handle.insert(ledgerBooks).values({ id, accountId: null, kind: ref.system, allowNegative: 1, balance: 0, updatedAt: at.toISOString() });
  return id;
}

function failedConstraint(err: unknown, name: string): boolean {
  // drizzle may wrap the driver's error; the constraint name is in one of the two messages
  for (let e: unknown = err, i = 0; e instanceof Error && i < 3; e = e.cause, i++) {
    if (e.message.includes(name)) return true;
  }
  return false;
}

/**
 * Posts one balanced entry. Throws INSUFFICIENT_FUNDS when a merchant book would go below zero (beyond
 * what a dispute hold may do) and UNPROCESSABLE when one would cross the ceiling; the job's savepoint
 * then takes back whatever the entry had written.
 */
export async function postEntry(tx: Stores, e: PostEntry): Promise<string> {
  const sum = e.lines.reduce((s, l) => s + l.amount, 0);
  if (e.lines.length < 2 || sum !== 0) throw new DomainError('INTERNAL', 'unbalanced ledger entry');
  for (const l of e.lines) {
    if (!Number.isSafeInteger(l.amount) || l.amount === 0) throw new DomainError('INTERNAL', 'ledger amounts are non-zero integer cents');
  }
  const id = newId('ledgerEntry');
  const at = e.at.toISOString();
  const st = statements(tx);
  await st.insertEntry.execute({ id, accountId: e.accountId, kind: e.kind, resourceId: e.resourceId ?? null, description: e.description ?? null, createdAt: at });
  // Debits first, so an overdraft is refused before any credit is applied.
  const ordered = [...e.lines].sort((a, b) => a.amount - b.amount);
  const books: string[] = [];
  for (const l of ordered) books.push(await bookId(tx, l.book, e.at));
  // each line is computed from its book's balance: concurrent entries on a book take turns (PostgreSQL)
  await lockRows(tx, ledgerBooks, ledgerBooks.id, books);
  for (const [i, l] of ordered.entries()) {
    const book = books[i];
    try {
      await st.insertLine.execute({ entryId: id, bookId: book, amount: l.amount, createdAt: at });
    } catch (err) {
      if (failedConstraint(err, 'ledger_books_balance_non_negative')) throw new DomainError('INSUFFICIENT_FUNDS', 'the available balance does not cover this amount');
      if (failedConstraint(err, 'ledger_books_balance_ceiling')) {
        throw new DomainError('UNPROCESSABLE', `a balance may not exceed ${BALANCE_CEILING_CENTS} cents; this movement would cross it, so nothing was changed`);
      }
      throw err;
    }
  }
  return id;
}

/** Moves `amount` from one book to another as one entry. */
export function transfer(tx: Stores, o: { accountId: string; kind: LedgerEntryKind; from: BookRef; to: BookRef; amount: number; resourceId?: string; description?: string; at: Date }) {
  return postEntry(tx, {
    accountId: o.accountId, kind: o.kind, resourceId: o.resourceId, description: o.description, at: o.at,
    lines: [{ book: o.from, amount: -o.amount }, { book: o.to, amount: o.amount }],
  });
}

export interface Balance { available: number; blocked: number; inFlight: number }

/** O(1) in the number of entries: reads the running balances kept on the books. */
export async function merchantBalance(db: Stores, accountId: string): Promise<Balance> {
  const rows = await statements(db).balances.execute({ account: accountId });
  return { available: balanceOf(rows, 'available'), blocked: balanceOf(rows, 'blocked'), inFlight: balanceOf(rows, 'withdrawals_in_flight') };
}

function balanceOf(rows: { kind: string; balance: number }[], kind: string): number {
  return rows.find((r) => r.kind === kind)?.balance ?? 0;
}

/** Sandbox top-up: money arrives from the outside world into the merchant's available book. */
export function sandboxTopUp(tx: Stores, accountId: string, amount: number, at: Date) {
  return transfer(tx, { accountId, kind: 'sandbox_topup', from: { system: 'sandbox_funding' }, to: { account: accountId, book: 'available' }, amount, at, description: 'sandbox top-up' });
}

/** For tests and audits: every book's balance equals the sum of its lines, and all lines sum to zero. */
export async function auditLedger(db: Stores): Promise<{ total: number; mismatched: string[] }> {
  const total = (await first(db.handle.select({ s: sql<number>`coalesce(sum(${ledgerLines.amount}), 0)` }).from(ledgerLines)))?.s ?? 0;
  const rows = await rawRows<{ id: string; balance: number; lines: number }>(db, sql`
    SELECT b.id, b.balance, coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0) AS lines
    FROM ledger_books b`);
  return { total, mismatched: rows.filter((r) => r.balance !== r.lines).map((r) => r.id) };
}
