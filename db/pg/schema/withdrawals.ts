import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { cents, foldedSql, timestamp, wordsSql } from './columns';
import { BATCH_STATUSES, PIX_KEY_TYPES, WITHDRAWAL_STATUSES } from '../../../contract/enums';

// Mirrors db/schema/withdrawals.ts.

export const withdrawals = pgTable('withdrawals', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  status: text('status', { enum: WITHDRAWAL_STATUSES }).notNull(),
  amount: bigint('amount', cents).notNull(),
  key: text('key').notNull(),
  keyType: text('key_type', { enum: PIX_KEY_TYPES }).notNull(),
  description: text('description'),
  detailsName: text('details_name').notNull(),
  detailsDocument: text('details_document').notNull(),
  postback: text('postback'),
  externalRef: text('external_ref'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
  detailsNameSearch: text('details_name_search').generatedAlwaysAs(foldedSql('details_name')),
  detailsNameWords: text('details_name_words').generatedAlwaysAs(wordsSql('details_name')),
}, (t) => [
  index('withdrawals_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
  index('withdrawals_account_document_created_idx').on(t.accountId, t.detailsDocument, t.createdAt, t.id),
  index('withdrawals_account_key_created_idx').on(t.accountId, t.key, t.createdAt, t.id),
  uniqueIndex('withdrawals_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
  index('withdrawals_account_created_idx').on(t.accountId, t.createdAt, t.id),
  index('withdrawals_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
  check('withdrawals_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);

export const withdrawalBatches = pgTable('withdrawal_batches', {
  id: text('id').primaryKey(),
  withdrawalId: text('withdrawal_id').notNull().references(() => withdrawals.id),
  accountId: text('account_id').notNull().references(() => accounts.id),
  seq: integer('seq').notNull(),
  amount: bigint('amount', cents).notNull(),
  status: text('status', { enum: BATCH_STATUSES }).notNull(),
  dueAt: timestamp('due_at').notNull(),
  claimedBy: text('claimed_by'),
  endToEnd: text('end_to_end'),
  receiverName: text('receiver_name'),
  receiverBank: text('receiver_bank'),
  receiverBankIspb: text('receiver_bank_ispb'),
  failureCode: text('failure_code', { enum: ['KEY_NOT_FOUND', 'REJECTED'] }),
  failureReason: text('failure_reason'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  index('withdrawal_batches_withdrawal_idx').on(t.withdrawalId, t.seq),
  index('withdrawal_batches_due_idx').on(t.status, t.dueAt),
  index('withdrawal_batches_end_to_end_idx').on(t.endToEnd),
  check('withdrawal_batches_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);
