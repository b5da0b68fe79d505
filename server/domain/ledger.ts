import type { Stores } from '../../db';
import type { NewPosting, Refusal } from '../../db/stores/ledger';
import { BALANCE_CEILING_CENTS, MERCHANT_BOOKS, SYSTEM_BOOK_SHARDS, SYSTEM_BOOKS, type LedgerEntryKind, type MerchantBook, type SystemBook } from '../../contract/ledger';
import { DomainError } from '../errors';
import { newId } from './ids';

/**
 * Double-entry ledger. Every movement is an entry whose lines sum to zero; a trigger applies each line
 * to its book's running balance, and the database refuses an overdraft (only a dispute hold may take
 * `available` below zero) or a balance above the ceiling inside the same statement, so both rules hold
 * whatever the concurrency.
 *
 * System books (the outside world) are sharded: the entries of an account post to the shard its id
 * hashes to, so two merchants' movements do not wait for each other on one platform-wide row (on
 * PostgreSQL a row lock is held until the COMMIT is on disk), and a system book's balance is the sum of
 * its shards (systemBalances). One merchant keeps to one shard of each system book, so its own entries
 * lock no more rows than before.
 */

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
    await tx.ledger.insertBook({ id: newId('ledgerBook'), accountId, kind, shard: 0, allowNegative: false, at });
  }
}

/**
 * The shard of every system book that `accountId`'s entries post to: FNV-1a (32 bits) of the id, so it
 * is the same in every instance and release, spread evenly over SYSTEM_BOOK_SHARDS.
 */
export function systemShardOf(accountId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i++) {
    h ^= accountId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SYSTEM_BOOK_SHARDS;
}

async function bookId(tx: Stores, ref: BookRef, accountId: string, at: Date): Promise<string> {
  if ('account' in ref) {
    const found = await tx.ledger.merchantBookId(ref.account, ref.book);
    if (found) return found;
    // accounts opened before a book kind existed get it on first use (always inside a write job)
    const id = newId('ledgerBook');
    await tx.ledger.insertBook({ id, accountId: ref.account, kind: ref.book, shard: 0, allowNegative: false, at });
    return id;
  }
  const shard = systemShardOf(accountId);
  return (await tx.ledger.systemBookId(ref.system, shard)) ?? tx.ledger.openSystemShard(ref.system, shard, newId('ledgerBook'), at);
}

/** What a refused line means to the client, unless the caller says it in its own words. */
export function refusalError(r: Refusal): DomainError {
  if (r === 'below_floor') return new DomainError('INSUFFICIENT_FUNDS', 'the available balance does not cover this amount');
  return new DomainError('UNPROCESSABLE', `a balance may not exceed ${BALANCE_CEILING_CENTS} cents; this movement would cross it, so nothing was changed`);
}

/** The rows of one balanced entry: checked, its books found (or opened), debits first. */
async function postingOf(tx: Stores, e: PostEntry): Promise<NewPosting> {
  const sum = e.lines.reduce((s, l) => s + l.amount, 0);
  if (e.lines.length < 2 || sum !== 0) throw new DomainError('INTERNAL', 'unbalanced ledger entry');
  for (const l of e.lines) {
    if (!Number.isSafeInteger(l.amount) || l.amount === 0) throw new DomainError('INTERNAL', 'ledger amounts are non-zero integer cents');
  }
  // Debits first, so an overdraft is refused before any credit is applied.
  const ordered = [...e.lines].sort((a, b) => a.amount - b.amount);
  const lines: NewPosting['lines'] = [];
  for (const l of ordered) lines.push({ bookId: await bookId(tx, l.book, e.accountId, e.at), amount: l.amount });
  const entry = { id: newId('ledgerEntry'), accountId: e.accountId, kind: e.kind, resourceId: e.resourceId ?? null, description: e.description ?? null, createdAt: e.at.toISOString() };
  return { entry, lines };
}

/**
 * Posts one balanced entry. Throws INSUFFICIENT_FUNDS when a merchant book would go below zero (beyond
 * what a dispute hold may do) and UNPROCESSABLE when one would cross the ceiling; the job's savepoint
 * then takes back whatever the entry had written.
 *
 * With `refused`, the job ends with `refused(refusal)` instead, and the caller must not go on from a
 * refusal (catch it) within the job: the store may send the entry without waiting for its outcome (on
 * PostgreSQL it travels with the job's next statements), so the refusal can surface only when the job ends.
 */
export async function postEntry(tx: Stores, e: PostEntry, refused?: (r: Refusal) => DomainError): Promise<string> {
  const posting = await postingOf(tx, e);
  if (refused) {
    await tx.ledger.postOrFail(posting, refused);
  } else {
    const outcome = await tx.ledger.post(posting);
    if (outcome !== 'applied') throw refusalError(outcome);
  }
  return posting.entry.id;
}

/** Moves `amount` from one book to another as one entry (`refused`: see postEntry). */
export function transfer(
  tx: Stores,
  o: { accountId: string; kind: LedgerEntryKind; from: BookRef; to: BookRef; amount: number; resourceId?: string; description?: string; at: Date },
  refused?: (r: Refusal) => DomainError,
) {
  return postEntry(tx, {
    accountId: o.accountId, kind: o.kind, resourceId: o.resourceId, description: o.description, at: o.at,
    lines: [{ book: o.from, amount: -o.amount }, { book: o.to, amount: o.amount }],
  }, refused);
}

export interface Balance { available: number; blocked: number; inFlight: number }

/** O(1) in the number of entries: reads the running balances kept on the books. */
export async function merchantBalance(tx: Stores, accountId: string): Promise<Balance> {
  const rows = await tx.ledger.balances(accountId);
  return { available: balanceOf(rows, 'available'), blocked: balanceOf(rows, 'blocked'), inFlight: balanceOf(rows, 'withdrawals_in_flight') };
}

function balanceOf(rows: { kind: string; balance: number }[], kind: string): number {
  return rows.find((r) => r.kind === kind)?.balance ?? 0;
}

/** Sandbox top-up: money arrives from the outside world into the merchant's available book. */
export function sandboxTopUp(tx: Stores, accountId: string, amount: number, at: Date) {
  return transfer(tx, { accountId, kind: 'sandbox_topup', from: { system: 'sandbox_funding' }, to: { account: accountId, book: 'available' }, amount, at, description: 'sandbox top-up' });
}

/**
 * Each system book's balance (the outside world's side of every merchant's money), summed over its
 * shards; a book no movement has reached yet is 0.
 */
export async function systemBalances(tx: Stores): Promise<Record<SystemBook, number>> {
  const rows = await tx.ledger.systemBalances();
  return Object.fromEntries(SYSTEM_BOOKS.map((kind) => [kind, balanceOf(rows, kind)])) as Record<SystemBook, number>;
}

/** For tests and audits: every book's balance equals the sum of its lines, and all lines sum to zero. */
export async function auditLedger(tx: Stores): Promise<{ total: number; mismatched: string[] }> {
  const total = await tx.ledger.lineTotal();
  const rows = await tx.ledger.booksAgainstLines();
  return { total, mismatched: rows.filter((r) => r.balance !== r.lines).map((r) => r.id) };
}
