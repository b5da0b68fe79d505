import { sql, type SQL } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { BATCH_STATUSES, PIX_KEY_TYPES, WITHDRAWAL_STATUSES } from '../../contract/enums';
import { foldedSql, wordsSql } from './search';

export const withdrawals = sqliteTable('withdrawals', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  status: text('status', { enum: WITHDRAWAL_STATUSES }).notNull(),
  amount: integer('amount').notNull(),
  key: text('key').notNull(),
  keyType: text('key_type', { enum: PIX_KEY_TYPES }).notNull(),
  description: text('description'),
  detailsName: text('details_name').notNull(),
  detailsDocument: text('details_document').notNull(),
  postback: text('postback'),
  externalRef: text('external_ref'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  /** The recipient's name folded for search (accents dropped, lower case); computed by SQLite, never written. */
  detailsNameSearch: text('details_name_search').generatedAlwaysAs((): SQL => foldedSql(withdrawals.detailsName), { mode: 'virtual' }),
  /** The folded name's words as a JSON array, for the word search (name_words); computed by SQLite, never written. */
  detailsNameWords: text('details_name_words').generatedAlwaysAs((): SQL => wordsSql(withdrawals.detailsNameSearch), { mode: 'virtual' }),
}, (t) => [
  // the dashboard's search: each an index walk of the account's rows in (created_at, id) order, or for a
  // name prefix an index range of the matches
  index('withdrawals_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
  index('withdrawals_account_document_created_idx').on(t.accountId, t.detailsDocument, t.createdAt, t.id),
  index('withdrawals_account_key_created_idx').on(t.accountId, t.key, t.createdAt, t.id),
  uniqueIndex('withdrawals_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
  index('withdrawals_account_created_idx').on(t.accountId, t.createdAt, t.id),
  index('withdrawals_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
  check('withdrawals_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);

/** A withdrawal is split into batches of at most PIX_MAX_BATCH_CENTS, each settled on its own. */
export const withdrawalBatches = sqliteTable('withdrawal_batches', {
  id: text('id').primaryKey(), // the batch `identifier`
  withdrawalId: text('withdrawal_id').notNull().references(() => withdrawals.id),
  accountId: text('account_id').notNull().references(() => accounts.id),
  seq: integer('seq').notNull(),
  amount: integer('amount').notNull(),
  status: text('status', { enum: BATCH_STATUSES }).notNull(),
  /**
   * When the rail should settle it; the settlement job picks due PENDING rows. Claiming a batch moves it
   * forward by the lease (JOB_LEASE_MS), so other instances skip it while one asks the rail, and it falls
   * due again by itself if that instance dies.
   */
  dueAt: text('due_at').notNull(),
  /** The instance (host/pid/random) that last claimed it for the rail: who holds the lease, who settled it. */
  claimedBy: text('claimed_by'),
  endToEnd: text('end_to_end'),
  receiverName: text('receiver_name'),
  receiverBank: text('receiver_bank'),
  receiverBankIspb: text('receiver_bank_ispb'),
  /** Why a failed batch failed: a code for the dashboard's words, and the API's English sentence. */
  failureCode: text('failure_code', { enum: ['KEY_NOT_FOUND', 'REJECTED'] }),
  failureReason: text('failure_reason'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  index('withdrawal_batches_withdrawal_idx').on(t.withdrawalId, t.seq),
  index('withdrawal_batches_due_idx').on(t.status, t.dueAt),
  // a receipt found by its end-to-end id (search)
  index('withdrawal_batches_end_to_end_idx').on(t.endToEnd),
  check('withdrawal_batches_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);
