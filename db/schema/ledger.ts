import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';

/** docs/decisions.md "Money": no merchant book may hold more, so every figure stays a safe integer in JSON. */
export const BALANCE_CEILING_CENTS = 10_000_000_000_000;
/**
 * The entry kinds the ceiling applies to: money arriving from outside the merchant's books. Returns,
 * releases and holds move money the merchant already had and are never refused (the trigger
 * ledger_lines_apply in db/sql/triggers.sql names these same kinds).
 */
export const BALANCE_CEILING_ENTRY_KINDS = ['sandbox_topup', 'transaction_credit'] as const;

/**
 * Books of the double-entry ledger. A merchant has `available`, `blocked` (held by open disputes),
 * `withdrawals_in_flight` and `refunds_in_flight`; system books (account_id null) stand for the outside world and may go
 * negative. `balance` is the running sum of the book's lines, maintained by a trigger on insert so it
 * can never drift. The CHECKs keep merchant books at or above zero (except `available`, which a
 * dispute hold alone may take below zero: the trigger in db/sql/triggers.sql enforces that); that
 * trigger also refuses a top-up or charge credit that would take a merchant book above the ceiling,
 * whatever the concurrency. System books sum every account and have no ceiling.
 */
export const ledgerBooks = sqliteTable('ledger_books', {
  id: text('id').primaryKey(),
  accountId: text('account_id').references(() => accounts.id),
  kind: text('kind', {
    enum: ['available', 'blocked', 'withdrawals_in_flight', 'refunds_in_flight', 'sandbox_funding', 'pix_out', 'pix_in', 'card_in', 'invoice_in', 'chargebacks', 'refunds_out'],
  }).notNull(),
  allowNegative: integer('allow_negative').notNull().default(0),
  balance: integer('balance').notNull().default(0),
  /** The line that last moved `balance`: a balance may change only together with a new line of its book. */
  lastLineId: integer('last_line_id').notNull().default(0),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ledger_books_account_kind_uq').on(t.accountId, t.kind),
  check('ledger_books_balance_non_negative', sql`${t.allowNegative} = 1 OR ${t.balance} >= 0 OR ${t.kind} = 'available'`),
  check('ledger_books_allow_negative_bool', sql`${t.allowNegative} IN (0, 1)`),
]);

/** One money movement; its lines sum to zero. Append-only (triggers in db/sql/triggers.sql). */
export const ledgerEntries = sqliteTable('ledger_entries', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  kind: text('kind').notNull(),
  resourceId: text('resource_id'),
  description: text('description'),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('ledger_entries_account_idx').on(t.accountId, t.createdAt),
  index('ledger_entries_resource_idx').on(t.resourceId),
]);

/**
 * One line of an entry on one book. `balance_after` is the book's balance once this line is applied
 * and `created_at` never goes back within a book (a trigger refuses either being wrong), so a book's
 * lines in (created_at, id) order are its statement: each balance_after is the previous plus amount.
 */
export const ledgerLines = sqliteTable('ledger_lines', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  entryId: text('entry_id').notNull().references(() => ledgerEntries.id),
  bookId: text('book_id').notNull().references(() => ledgerBooks.id),
  amount: integer('amount').notNull(),
  balanceAfter: integer('balance_after').notNull(),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('ledger_lines_entry_idx').on(t.entryId),
  // the statement: one book's lines newest first, keyset-paged on (created_at, id)
  index('ledger_lines_book_created_idx').on(t.bookId, t.createdAt, t.id),
  check('ledger_lines_amount_bounds', sql`${t.amount} <> 0 AND ${t.amount} BETWEEN -100000000000 AND 100000000000`),
]);
