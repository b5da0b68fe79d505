import { and, eq, sql } from 'drizzle-orm';
import { perConnection } from '../../../db/prepared';
import type { DrizzleDb } from '../../../db';
import { customers, disputes, transactions } from '../../../db/schema';

export type { TransactionMethod, TransactionStatus } from '../enums';
import type { TransactionMethod, TransactionStatus } from '../enums';

export interface TransactionItem { unitPrice: number; quantity: number; title: string; tangible: boolean }
export interface CustomerView { id: string; name: string; email: string; phone: string | null; document: string }

/**
 * The spec's "Transaction" (the query's answer), plus `created_at` and `updated_at` (ISO 8601) for
 * the dashboard and for keyset paging. The one shape of a transaction outside its creation: GET
 * /transaction, transactions.list items and the `data` of every transaction.* event.
 */
export interface TransactionView {
  id: string;
  status: TransactionStatus;
  total: number;
  method: TransactionMethod;
  currency: string;
  endtoend: string | null;
  postback: string | null;
  items: TransactionItem[];
  customer: CustomerView;
  external_ref: string | null;
  metadata: string | null;
  created_at: string;
  updated_at: string;
}

/** The spec's "Transaction creation response", exactly. */
export interface TransactionCreated {
  id: string;
  status: TransactionStatus;
  total: number;
  method: TransactionMethod;
  qrcode: string | null;
  invoice: string | null;
  currency: 'BRL';
  identifier: string;
  external_ref: string | null;
  customer: CustomerView;
  created_at: string;
  updated_at: string;
}

/** Dispute resource (the spec shows none): the `data` of dispute.* events and of the sandbox answers. */
export interface DisputeView {
  id: string;
  transaction_id: string;
  status: 'OPEN' | 'WON' | 'LOST';
  amount: number;
  created_at: string;
  updated_at: string;
}

const viewColumns = {
  id: transactions.id,
  status: transactions.status,
  amount: transactions.amount,
  method: transactions.method,
  currency: transactions.currency,
  endToEnd: transactions.endToEnd,
  postback: transactions.postback,
  items: transactions.items,
  externalRef: transactions.externalRef,
  metadata: transactions.metadata,
  createdAt: transactions.createdAt,
  updatedAt: transactions.updatedAt,
  customerId: customers.id,
  customerName: customers.name,
  customerEmail: customers.email,
  customerPhone: customers.phone,
  customerDocument: customers.document,
};

/**
 * Transactions joined with their customer in one statement: every reader of views (one, a page, an
 * event) goes through this, so a page of N transactions is one query, never N+1.
 */
export function selectTransactionViews(db: DrizzleDb) {
  return db.select(viewColumns).from(transactions).innerJoin(customers, eq(customers.id, transactions.customerId));
}

export type TransactionViewRow = Awaited<ReturnType<ReturnType<typeof selectTransactionViews>['all']>>[number];

export function toTransactionView(r: TransactionViewRow): TransactionView {
  return {
    id: r.id,
    status: r.status,
    total: r.amount,
    method: r.method,
    currency: r.currency,
    endtoend: r.endToEnd,
    postback: r.postback,
    items: (JSON.parse(r.items) as TransactionItem[]).map((i) => ({ unitPrice: i.unitPrice, quantity: i.quantity, title: i.title, tangible: i.tangible })),
    customer: customerView({ id: r.customerId, name: r.customerName, email: r.customerEmail, phone: r.customerPhone, document: r.customerDocument }),
    external_ref: r.externalRef,
    metadata: r.metadata,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export function customerView(c: { id: string; name: string; email: string; phone: string | null; document: string }): CustomerView {
  return { id: c.id, name: c.name, email: c.email, phone: c.phone, document: c.document };
}

/** The view of one of the account's transactions, or null (unknown and other accounts' look alike). */
const viewById = perConnection((db) => selectTransactionViews(db)
  .where(and(eq(transactions.accountId, sql.placeholder('accountId')), eq(transactions.id, sql.placeholder('id')))).prepare());

export async function transactionView(db: DrizzleDb, accountId: string, id: string): Promise<TransactionView | null> {
  const row = viewById(db).get({ accountId, id });
  return row ? toTransactionView(row) : null;
}

export function toDisputeView(d: typeof disputes.$inferSelect): DisputeView {
  return { id: d.id, transaction_id: d.transactionId, status: d.status, amount: d.amount, created_at: d.createdAt, updated_at: d.updatedAt };
}
