import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { DISPUTE_STATUSES, TRANSACTION_METHODS, TRANSACTION_STATUSES } from '../../contract/enums';

/** Charges (transactions) with their customers, disputes and refunds. */
export function transactionTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts }: { accounts: { id: unknown } }) {
  const customers = k.table('customers', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    name: k.text('name'),
    email: k.text('email'),
    phone: k.textOrNull('phone'),
    document: k.text('document'),
    /** JSON of {street, number, city, state, country, zip} when given. */
    address: k.textOrNull('address'),
    createdAt: k.instant('created_at'),
    /** The name folded for search (accents dropped, lower case); computed by the database, never written. */
    nameSearch: k.folded('name_search', 'name'),
    /** The e-mail in lower case, for search. */
    emailSearch: k.lowerTrimmed('email_search', 'email'),
    /** The folded name's words as a JSON array, for the word search (name_words); computed by the database, never written. */
    nameWords: k.words('name_words', 'name', 'name_search'),
  }, (t) => [
    k.index('customers_account_idx').on(t.accountId),
    // the dashboard's search: by name prefix, e-mail and CPF/CNPJ, each an index search of the account's customers
    // created_at last: an e-mail or document search reads its newest customers first and stops at its floor
    k.index('customers_account_email_idx').on(t.accountId, t.emailSearch, t.createdAt),
    k.index('customers_account_document_idx').on(t.accountId, t.document, t.createdAt),
  ]);

  const transactions = k.table('transactions', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    identifier: k.text('identifier'),
    method: k.enumText('method', TRANSACTION_METHODS),
    status: k.enumText('status', TRANSACTION_STATUSES),
    amount: k.cents('amount'),
    currency: k.text('currency').default('BRL'),
    customerId: k.text('customer_id').references(() => customers.id),
    /** JSON array of {title, unitPrice, quantity, tangible}. */
    items: k.text('items'),
    qrcode: k.textOrNull('qrcode'),
    invoiceId: k.textOrNull('invoice_id'),
    /** A calendar date (YYYY-MM-DD), not a point in time: text on both engines. */
    invoiceDueDate: k.textOrNull('invoice_due_date'),
    invoiceDigitableLine: k.textOrNull('invoice_digitable_line'),
    /** Only brand, last four and holder are ever stored for cards; never the number or the CVV. */
    cardBrand: k.textOrNull('card_brand'),
    cardLast4: k.textOrNull('card_last4'),
    cardHolderName: k.textOrNull('card_holder_name'),
    installments: k.intOrNull('installments'),
    endToEnd: k.textOrNull('end_to_end'),
    postback: k.textOrNull('postback'),
    externalRef: k.textOrNull('external_ref'),
    metadata: k.textOrNull('metadata'),
    refusedReason: k.textOrNull('refused_reason'),
    /** Sum of the refunds not in ERROR; kept by triggers on refunds (db/sql/triggers.sql). */
    refundedAmount: k.cents('refunded_amount').default(0),
    expiresAt: k.instantOrNull('expires_at'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.uniqueIndex('transactions_identifier_uq').on(t.identifier),
    k.uniqueIndex('transactions_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
    k.index('transactions_end_to_end_idx').on(t.endToEnd),
    k.index('transactions_account_created_idx').on(t.accountId, t.createdAt, t.id),
    k.index('transactions_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
    // the dashboard's search and filters: each an index walk in (created_at, id) order from the cursor
    k.index('transactions_account_method_created_idx').on(t.accountId, t.method, t.createdAt, t.id),
    k.index('transactions_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
    k.index('transactions_customer_idx').on(t.customerId),
    k.index('transactions_expiry_idx').on(t.status, t.expiresAt),
    k.check('transactions_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
    k.check('transactions_refunded_bounds', sql`${t.refundedAmount} BETWEEN 0 AND ${t.amount}`),
    k.check('transactions_installments', sql`${t.installments} IS NULL OR ${t.installments} BETWEEN 1 AND 12`),
  ]);

  const disputes = k.table('disputes', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    transactionId: k.text('transaction_id').references(() => transactions.id),
    status: k.enumText('status', DISPUTE_STATUSES),
    amount: k.cents('amount'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.index('disputes_transaction_idx').on(t.transactionId),
    // the Disputes page: the account's open ones, then the closed ones, newest first
    k.index('disputes_account_status_created_idx').on(t.accountId, t.status, t.createdAt),
    // at most one open dispute per transaction
    k.uniqueIndex('disputes_open_uq').on(t.transactionId).where(sql`${t.status} = 'OPEN'`),
    k.check('disputes_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  ]);

  /**
   * A refund (devolução) of part or all of an APPROVED transaction. Settled by the rail like a withdrawal
   * batch: PENDING until `due_at`, then PAID (a PIX refund gets its `D…` end-to-end id) or ERROR (its
   * amount returns to the balance). Triggers keep transactions.refunded_amount and refuse a refund the
   * transaction cannot take (db/sql/triggers.sql).
   */
  const refunds = k.table('refunds', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    transactionId: k.text('transaction_id').references(() => transactions.id),
    amount: k.cents('amount'),
    reason: k.textOrNull('reason'),
    status: k.enumText('status', ['PENDING', 'PAID', 'ERROR']),
    /** As a withdrawal batch's: moved forward by the lease when an instance claims the refund for the rail. */
    dueAt: k.instant('due_at'),
    /** The instance that last claimed it for the rail. */
    claimedBy: k.textOrNull('claimed_by'),
    endToEnd: k.textOrNull('end_to_end'),
    failureReason: k.textOrNull('failure_reason'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.index('refunds_transaction_idx').on(t.transactionId, t.createdAt, t.id),
    k.index('refunds_due_idx').on(t.status, t.dueAt),
    k.check('refunds_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
    k.check('refunds_status', sql`${t.status} IN ('PENDING', 'PAID', 'ERROR')`),
  ]);

  return { customers, transactions, disputes, refunds };
}
