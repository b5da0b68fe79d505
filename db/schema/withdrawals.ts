import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { BATCH_STATUSES, PIX_KEY_TYPES, WITHDRAWAL_STATUSES } from '../../server/domain/enums';

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
}, (t) => [
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
  /** When the rail should settle it; the settlement job picks due PENDING rows. */
  dueAt: text('due_at').notNull(),
  endToEnd: text('end_to_end'),
  receiverName: text('receiver_name'),
  receiverBank: text('receiver_bank'),
  receiverBankIspb: text('receiver_bank_ispb'),
  failureReason: text('failure_reason'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  index('withdrawal_batches_withdrawal_idx').on(t.withdrawalId, t.seq),
  index('withdrawal_batches_due_idx').on(t.status, t.dueAt),
  check('withdrawal_batches_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);
