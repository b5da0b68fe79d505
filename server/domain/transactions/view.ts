import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { perConnection } from '../../../db/prepared';
import type { DrizzleDb, Stores } from '../../../db';
import { handleOf } from '../../../db/stores';
import { customers, disputes, refunds, transactions } from '../../../db/schema';

export type { TransactionMethod, TransactionStatus } from '../../../contract/enums';
import type { TransactionMethod, TransactionStatus } from '../../../contract/enums';
import type { z } from 'zod';
import type { customerView as customerViewSchema, disputeView, transactionCreated, transactionItem, transactionView as transactionViewSchema } from '../../routers/transactions/schemas';

export type TransactionItem = z.infer<typeof transactionItem>;
export type CustomerView = z.infer<typeof customerViewSchema>;

/** The query shape (spec "Transaction"); its type is the contract's. */
export type TransactionView = z.infer<typeof transactionViewSchema>;
export type { RefundStatus } from '../../../contract/enums';
import type { RefundStatus } from '../../../contract/enums';
import { first } from '../../../db/query';

/** docs/decisions.md "Refunds": one refund as the transaction's query shape lists it. */
export interface RefundView {
  id: string;
  amount: number;
  status: RefundStatus;
  /** A PIX refund's `D…` end-to-end id once paid; null otherwise. */
  endtoend: string | null;
  created_at: string;
}

/** The spec's "Transaction creation response", exactly. */
export type TransactionCreated = z.infer<typeof transactionCreated>;

/** Dispute resource: the `data` of dispute.* events and of the sandbox answers. */
export type DisputeView = z.infer<typeof disputeView>;

/** The columns of a transaction view (transaction + customer); the search builds other joins over them. */
export const viewColumns = {
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
  refundedAmount: transactions.refundedAmount,
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
export function selectTransactionViews(on: DrizzleDb | Stores) {
  const db = handleOf(on);
  return db.select(viewColumns).from(transactions).innerJoin(customers, eq(customers.id, transactions.customerId));
}

export type TransactionViewRow = Awaited<ReturnType<ReturnType<typeof selectTransactionViews>['all']>>[number];

export function toTransactionView(r: TransactionViewRow, refundList: RefundView[] = []): TransactionView {
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
    refunded_amount: r.refundedAmount,
    refunds: refundList,
  };
}

const refundColumns = { transactionId: refunds.transactionId, id: refunds.id, amount: refunds.amount, status: refunds.status, endToEnd: refunds.endToEnd, createdAt: refunds.createdAt };
function toRefundView(r: { id: string; amount: number; status: RefundStatus; endToEnd: string | null; createdAt: string }): RefundView {
  return { id: r.id, amount: r.amount, status: r.status, endtoend: r.endToEnd, created_at: r.createdAt };
}

const refundsOfOne = perConnection((db) => db.select(refundColumns).from(refunds)
  .where(eq(refunds.transactionId, sql.placeholder('id'))).orderBy(asc(refunds.createdAt), asc(refunds.id)).prepare());

/**
 * Views of a page of rows with their refunds: one more query for the whole page (refunds_transaction_idx),
 * and none at all when no row is APPROVED (only those can have refunds).
 */
export async function toTransactionViews(db: Stores, rows: TransactionViewRow[]): Promise<TransactionView[]> {
  const approved = rows.filter((r) => r.status === 'APPROVED').map((r) => r.id);
  if (approved.length === 0) return rows.map((r) => toTransactionView(r));
  const found = approved.length === 1
    ? await refundsOfOne(db).execute({ id: approved[0] })
    : await db.handle.select(refundColumns).from(refunds).where(inArray(refunds.transactionId, approved)).orderBy(asc(refunds.createdAt), asc(refunds.id));
  const byTransaction = new Map<string, RefundView[]>();
  for (const r of found) {
    const list = byTransaction.get(r.transactionId) ?? [];
    list.push(toRefundView(r));
    byTransaction.set(r.transactionId, list);
  }
  return rows.map((r) => toTransactionView(r, byTransaction.get(r.id) ?? []));
}

export function customerView(c: { id: string; name: string; email: string; phone: string | null; document: string }): CustomerView {
  return { id: c.id, name: c.name, email: c.email, phone: c.phone, document: c.document };
}

/** The view of one of the account's transactions, or null (unknown and other accounts' look alike). */
const viewById = perConnection((db) => selectTransactionViews(db)
  .where(and(eq(transactions.accountId, sql.placeholder('accountId')), eq(transactions.id, sql.placeholder('id')))).prepare());

export async function transactionView(db: Stores, accountId: string, id: string): Promise<TransactionView | null> {
  const row = await first(viewById(db).execute({ accountId, id }));
  return row ? (await toTransactionViews(db, [row]))[0] : null;
}

export function toDisputeView(d: typeof disputes.$inferSelect): DisputeView {
  return { id: d.id, transaction_id: d.transactionId, status: d.status, amount: d.amount, created_at: d.createdAt, updated_at: d.updatedAt };
}
