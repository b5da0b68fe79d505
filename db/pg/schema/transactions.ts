import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { cents, foldedSql, timestamp, wordsSql } from './columns';
import { DISPUTE_STATUSES, TRANSACTION_METHODS, TRANSACTION_STATUSES } from '../../../contract/enums';

// Mirrors db/schema/transactions.ts.

export const customers = pgTable('customers', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  name: text('name').notNull(),
  email: text('email').notNull(),
  phone: text('phone'),
  document: text('document').notNull(),
  address: text('address'),
  createdAt: timestamp('created_at').notNull(),
  nameSearch: text('name_search').generatedAlwaysAs(foldedSql('name')),
  emailSearch: text('email_search').generatedAlwaysAs(sql`lower(btrim("email"))`),
  nameWords: text('name_words').generatedAlwaysAs(wordsSql('name')),
}, (t) => [
  index('customers_account_idx').on(t.accountId),
  // created_at last: an e-mail or document search reads its newest customers first and stops at its floor
  index('customers_account_email_idx').on(t.accountId, t.emailSearch, t.createdAt),
  index('customers_account_document_idx').on(t.accountId, t.document, t.createdAt),
]);

export const transactions = pgTable('transactions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  identifier: text('identifier').notNull(),
  method: text('method', { enum: TRANSACTION_METHODS }).notNull(),
  status: text('status', { enum: TRANSACTION_STATUSES }).notNull(),
  amount: bigint('amount', cents).notNull(),
  currency: text('currency').notNull().default('BRL'),
  customerId: text('customer_id').notNull().references(() => customers.id),
  items: text('items').notNull(),
  qrcode: text('qrcode'),
  invoiceId: text('invoice_id'),
  /** A calendar date (YYYY-MM-DD), not a point in time: text as in SQLite. */
  invoiceDueDate: text('invoice_due_date'),
  invoiceDigitableLine: text('invoice_digitable_line'),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  cardHolderName: text('card_holder_name'),
  installments: integer('installments'),
  endToEnd: text('end_to_end'),
  postback: text('postback'),
  externalRef: text('external_ref'),
  metadata: text('metadata'),
  refusedReason: text('refused_reason'),
  refundedAmount: bigint('refunded_amount', cents).notNull().default(0),
  expiresAt: timestamp('expires_at'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  uniqueIndex('transactions_identifier_uq').on(t.identifier),
  uniqueIndex('transactions_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
  index('transactions_end_to_end_idx').on(t.endToEnd),
  index('transactions_account_created_idx').on(t.accountId, t.createdAt, t.id),
  index('transactions_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
  index('transactions_account_method_created_idx').on(t.accountId, t.method, t.createdAt, t.id),
  index('transactions_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
  index('transactions_customer_idx').on(t.customerId),
  index('transactions_expiry_idx').on(t.status, t.expiresAt),
  check('transactions_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  check('transactions_refunded_bounds', sql`${t.refundedAmount} BETWEEN 0 AND ${t.amount}`),
  check('transactions_installments', sql`${t.installments} IS NULL OR ${t.installments} BETWEEN 1 AND 12`),
]);

export const disputes = pgTable('disputes', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  transactionId: text('transaction_id').notNull().references(() => transactions.id),
  status: text('status', { enum: DISPUTE_STATUSES }).notNull(),
  amount: bigint('amount', cents).notNull(),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  index('disputes_transaction_idx').on(t.transactionId),
  index('disputes_account_status_created_idx').on(t.accountId, t.status, t.createdAt),
  uniqueIndex('disputes_open_uq').on(t.transactionId).where(sql`${t.status} = 'OPEN'`),
  check('disputes_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);

export const refunds = pgTable('refunds', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  transactionId: text('transaction_id').notNull().references(() => transactions.id),
  amount: bigint('amount', cents).notNull(),
  reason: text('reason'),
  status: text('status', { enum: ['PENDING', 'PAID', 'ERROR'] }).notNull(),
  dueAt: timestamp('due_at').notNull(),
  claimedBy: text('claimed_by'),
  endToEnd: text('end_to_end'),
  failureReason: text('failure_reason'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  index('refunds_transaction_idx').on(t.transactionId, t.createdAt, t.id),
  index('refunds_due_idx').on(t.status, t.dueAt),
  check('refunds_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  check('refunds_status', sql`${t.status} IN ('PENDING', 'PAID', 'ERROR')`),
]);
