import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { BOOK_KINDS, type LedgerEntryKind } from '../../../contract/ledger';
import { accounts } from './accounts';
import { cents, timestamp } from './columns';

// Mirrors db/schema/ledger.ts; the rules of its comments are enforced by db/pg/sql/triggers.sql.

export const ledgerBooks = pgTable('ledger_books', {
  id: text('id').primaryKey(),
  accountId: text('account_id').references(() => accounts.id),
  kind: text('kind', { enum: BOOK_KINDS }).notNull(),
  allowNegative: integer('allow_negative').notNull().default(0),
  balance: bigint('balance', cents).notNull().default(0),
  lastLineId: bigint('last_line_id', cents).notNull().default(0),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ledger_books_account_kind_uq').on(t.accountId, t.kind),
  check('ledger_books_balance_non_negative', sql`${t.allowNegative} = 1 OR ${t.balance} >= 0 OR ${t.kind} = 'available'`),
  check('ledger_books_allow_negative_bool', sql`${t.allowNegative} IN (0, 1)`),
]);

export const ledgerEntries = pgTable('ledger_entries', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  kind: text('kind').$type<LedgerEntryKind>().notNull(),
  resourceId: text('resource_id'),
  description: text('description'),
  createdAt: timestamp('created_at').notNull(),
}, (t) => [
  index('ledger_entries_account_idx').on(t.accountId, t.createdAt),
  index('ledger_entries_resource_idx').on(t.resourceId),
]);

export const ledgerLines = pgTable('ledger_lines', {
  id: bigint('id', cents).primaryKey().generatedByDefaultAsIdentity(),
  entryId: text('entry_id').notNull().references(() => ledgerEntries.id),
  bookId: text('book_id').notNull().references(() => ledgerBooks.id),
  amount: bigint('amount', cents).notNull(),
  balanceAfter: bigint('balance_after', cents).notNull(),
  createdAt: timestamp('created_at').notNull(),
}, (t) => [
  index('ledger_lines_entry_idx').on(t.entryId),
  index('ledger_lines_book_created_idx').on(t.bookId, t.createdAt, t.id),
  check('ledger_lines_amount_bounds', sql`${t.amount} <> 0 AND ${t.amount} BETWEEN -100000000000 AND 100000000000`),
]);
