import { sql, type SQL } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { DISPUTE_STATUSES, TRANSACTION_METHODS, TRANSACTION_STATUSES } from '../../contract/enums';
import { foldedSql, wordsSql } from './search';

export const customers = sqliteTable('customers', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  name: text('name').notNull(),
  email: text('email').notNull(),
  phone: text('phone'),
  document: text('document').notNull(),
  /** JSON of {street, number, city, state, country, zip} when given. */
  address: text('address'),
  createdAt: text('created_at').notNull(),
  /** The name folded for search (accents dropped, lower case); computed by SQLite, never written. */
  nameSearch: text('name_search').generatedAlwaysAs((): SQL => foldedSql(customers.name), { mode: 'virtual' }),
  /** The e-mail in lower case, for search. */
  emailSearch: text('email_search').generatedAlwaysAs(sql`lower(trim("email"))`, { mode: 'virtual' }),
  /** The folded name's words as a JSON array, for the word search (name_words); computed by SQLite, never written. */
  nameWords: text('name_words').generatedAlwaysAs((): SQL => wordsSql(customers.nameSearch), { mode: 'virtual' }),
}, (t) => [
  index('customers_account_idx').on(t.accountId),
  // the dashboard's search: by name prefix, e-mail and CPF/CNPJ, each an index search of the account's customers
  // created_at last: an e-mail or document search reads its newest customers first and stops at its floor
  index('customers_account_email_idx').on(t.accountId, t.emailSearch, t.createdAt),
  index('customers_account_document_idx').on(t.accountId, t.document, t.createdAt),
]);

export const transactions = sqliteTable('transactions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  identifier: text('identifier').notNull(),
  method: text('method', { enum: TRANSACTION_METHODS }).notNull(),
  status: text('status', { enum: TRANSACTION_STATUSES }).notNull(),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull().default('BRL'),
  customerId: text('customer_id').notNull().references(() => customers.id),
  /** JSON array of {title, unitPrice, quantity, tangible}. */
  items: text('items').notNull(),
  qrcode: text('qrcode'),
  invoiceId: text('invoice_id'),
  invoiceDueDate: text('invoice_due_date'),
  invoiceDigitableLine: text('invoice_digitable_line'),
  /** Only brand, last four and holder are ever stored for cards; never the number or the CVV. */
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  cardHolderName: text('card_holder_name'),
  installments: integer('installments'),
  endToEnd: text('end_to_end'),
  postback: text('postback'),
  externalRef: text('external_ref'),
  metadata: text('metadata'),
  refusedReason: text('refused_reason'),
  /** Sum of the refunds not in ERROR; kept by triggers on refunds (db/sql/triggers.sql). */
  refundedAmount: integer('refunded_amount').notNull().default(0),
  expiresAt: text('expires_at'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  uniqueIndex('transactions_identifier_uq').on(t.identifier),
  uniqueIndex('transactions_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
  index('transactions_end_to_end_idx').on(t.endToEnd),
  index('transactions_account_created_idx').on(t.accountId, t.createdAt, t.id),
  index('transactions_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
  // the dashboard's search and filters: each an index walk in (created_at, id) order from the cursor
  index('transactions_account_method_created_idx').on(t.accountId, t.method, t.createdAt, t.id),
  index('transactions_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
  index('transactions_customer_idx').on(t.customerId),
  index('transactions_expiry_idx').on(t.status, t.expiresAt),
  check('transactions_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  check('transactions_refunded_bounds', sql`${t.refundedAmount} BETWEEN 0 AND ${t.amount}`),
  check('transactions_installments', sql`${t.installments} IS NULL OR ${t.installments} BETWEEN 1 AND 12`),
]);

export const disputes = sqliteTable('disputes', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  transactionId: text('transaction_id').notNull().references(() => transactions.id),
  status: text('status', { enum: DISPUTE_STATUSES }).notNull(),
  amount: integer('amount').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  index('disputes_transaction_idx').on(t.transactionId),
  // the Disputes page: the account's open ones, then the closed ones, newest first
  index('disputes_account_status_created_idx').on(t.accountId, t.status, t.createdAt),
  // at most one open dispute per transaction
  uniqueIndex('disputes_open_uq').on(t.transactionId).where(sql`${t.status} = 'OPEN'`),
  check('disputes_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
]);

/**
 * A refund (devolução) of part or all of an APPROVED transaction. Settled by the rail like a withdrawal
 * batch: PENDING until `due_at`, then PAID (a PIX refund gets its `D…` end-to-end id) or ERROR (its
 * amount returns to the balance). Triggers keep transactions.refunded_amount and refuse a refund the
 * transaction cannot take (db/sql/triggers.sql).
 */
export const refunds = sqliteTable('refunds', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  transactionId: text('transaction_id').notNull().references(() => transactions.id),
  amount: integer('amount').notNull(),
  reason: text('reason'),
  status: text('status', { enum: ['PENDING', 'PAID', 'ERROR'] }).notNull(),
  /** As a withdrawal batch's: moved forward by the lease when an instance claims the refund for the rail. */
  dueAt: text('due_at').notNull(),
  /** The instance that last claimed it for the rail. */
  claimedBy: text('claimed_by'),
  endToEnd: text('end_to_end'),
  failureReason: text('failure_reason'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  index('refunds_transaction_idx').on(t.transactionId, t.createdAt, t.id),
  index('refunds_due_idx').on(t.status, t.dueAt),
  check('refunds_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  check('refunds_status', sql`${t.status} IN ('PENDING', 'PAID', 'ERROR')`),
]);
