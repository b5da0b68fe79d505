import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { BOOK_KINDS, type LedgerEntryKind } from '../../contract/ledger';

// The ceiling and the kinds it applies to are the ledger's vocabulary (contract/ledger.ts); the trigger
// ledger_lines_apply in db/sql/triggers.sql names the same kinds.
export { BALANCE_CEILING_CENTS, BALANCE_CEILING_ENTRY_KINDS } from '../../contract/ledger';

/** The double-entry ledger: books, entries and their lines (the rules are triggers: db/sql, db/pg/sql). */
export function ledgerTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts }: { accounts: { id: unknown } }) {
  /**
   * Books of the double-entry ledger. A merchant has `available`, `blocked` (held by open disputes),
   * `withdrawals_in_flight` and `refunds_in_flight`; system books (account_id null) stand for the outside world and may go
   * negative. `balance` is the running sum of the book's lines, maintained by a trigger on insert so it
   * can never drift. The CHECKs keep merchant books at or above zero (except `available`, which a
   * dispute hold alone may take below zero: the trigger in db/sql/triggers.sql enforces that); that
   * trigger also refuses a top-up or charge credit that would take a merchant book above the ceiling,
   * whatever the concurrency. System books sum every account and have no ceiling.
   */
  const ledgerBooks = k.table('ledger_books', {
    id: k.text('id').primaryKey(),
    accountId: k.textOrNull('account_id').references(() => accounts.id),
    kind: k.enumText('kind', BOOK_KINDS),
    allowNegative: k.int('allow_negative').default(0),
    balance: k.cents('balance').default(0),
    /**
     * Which of a system book's rows this is (contract/ledger.ts SYSTEM_BOOK_SHARDS): a system book is
     * spread over shards so that no row is written by every merchant's movement; its balance is the sum
     * of its shards. Always 0 for a merchant book (a trigger refuses anything else).
     */
    shard: k.int('shard').default(0),
    /** The line that last moved `balance`: a balance may change only together with a new line of its book. */
    lastLineId: k.cents('last_line_id').default(0),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.uniqueIndex('ledger_books_account_kind_uq').on(t.accountId, t.kind),
    // one row per system book and shard (the index above lets NULL account ids repeat)
    k.uniqueIndex('ledger_books_system_shard_uq').on(t.kind, t.shard).where(sql`${t.accountId} IS NULL`),
    k.check('ledger_books_balance_non_negative', sql`${t.allowNegative} = 1 OR ${t.balance} >= 0 OR ${t.kind} = 'available'`),
    k.check('ledger_books_allow_negative_bool', sql`${t.allowNegative} IN (0, 1)`),
  ]);

  /** One money movement; its lines sum to zero. Append-only (triggers in db/sql/triggers.sql). */
  const ledgerEntries = k.table('ledger_entries', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    kind: k.typedText<LedgerEntryKind>('kind'),
    resourceId: k.textOrNull('resource_id'),
    description: k.textOrNull('description'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.index('ledger_entries_account_idx').on(t.accountId, t.createdAt),
    k.index('ledger_entries_resource_idx').on(t.resourceId),
  ]);

  /**
   * One line of an entry on one book. `balance_after` is the book's balance once this line is applied
   * and `created_at` never goes back within a book (a trigger refuses either being wrong), so a book's
   * lines in (created_at, id) order are its statement: each balance_after is the previous plus amount.
   */
  const ledgerLines = k.table('ledger_lines', {
    id: k.serial('id'),
    entryId: k.text('entry_id').references(() => ledgerEntries.id),
    bookId: k.text('book_id').references(() => ledgerBooks.id),
    amount: k.cents('amount'),
    balanceAfter: k.cents('balance_after'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.index('ledger_lines_entry_idx').on(t.entryId),
    // the statement: one book's lines newest first, keyset-paged on (created_at, id)
    k.index('ledger_lines_book_created_idx').on(t.bookId, t.createdAt, t.id),
    k.check('ledger_lines_amount_bounds', sql`${t.amount} <> 0 AND ${t.amount} BETWEEN -100000000000 AND 100000000000`),
  ]);

  return { ledgerBooks, ledgerEntries, ledgerLines };
}
