import type { Stores } from '../../../db';
import type { ChargeRefundRow, DisputeRow, TransactionViewRow } from '../../../db/stores/transactions';

export type { TransactionMethod, TransactionStatus } from '../../../contract/enums';
import type { DisputeStatus, TransactionMethod, TransactionStatus } from '../../../contract/enums';
export type { RefundStatus } from '../../../contract/enums';
import type { RefundStatus } from '../../../contract/enums';
export type { TransactionViewRow } from '../../../db/stores/transactions';

// The shapes the domain answers with. The router's zod schemas (server/routers/transactions/schemas.ts)
// are checked against these at compile time, not the other way round.

/** One line of a charge. */
export interface TransactionItem {
  /** Cents. */
  unitPrice: number;
  quantity: number;
  title: string;
  tangible: boolean;
}

export interface CustomerView {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  document: string;
}

/** docs/decisions.md "Refunds": one refund as the transaction's query shape lists it. */
export interface RefundView {
  id: string;
  amount: number;
  status: RefundStatus;
  /** A PIX refund's `D…` end-to-end id once paid; null otherwise. */
  endtoend: string | null;
  created_at: string;
}

/** The query shape (spec "Transaction"), plus created_at/updated_at, refunded_amount and refunds. */
export interface TransactionView {
  id: string;
  status: TransactionStatus;
  /** Cents. */
  total: number;
  method: TransactionMethod;
  currency: string;
  /** End-to-end id of the Pix payment; null until a PIX is paid. */
  endtoend: string | null;
  postback: string | null;
  items: TransactionItem[];
  customer: CustomerView;
  external_ref: string | null;
  metadata: string | null;
  created_at: string;
  updated_at: string;
  /** Cents refunded (refunds in ERROR do not count); 0 when none. */
  refunded_amount: number;
  /** Oldest first. */
  refunds: RefundView[];
}

/** The spec's "Transaction creation response", exactly. */
export interface TransactionCreated {
  id: string;
  status: TransactionStatus;
  /** Cents. */
  total: number;
  method: TransactionMethod;
  /** Pix BR Code ("copia e cola") for PIX; null otherwise. */
  qrcode: string | null;
  /** Invoice id for INVOICE; null otherwise. */
  invoice: string | null;
  currency: 'BRL';
  /** Letters and digits; the txid of the Pix BR Code. */
  identifier: string;
  external_ref: string | null;
  customer: CustomerView;
  created_at: string;
  updated_at: string;
}

/** Dispute resource: the `data` of dispute.* events and of the sandbox answers. */
export interface DisputeView {
  id: string;
  transaction_id: string;
  status: DisputeStatus;
  /** Cents held, released or charged back. */
  amount: number;
  created_at: string;
  updated_at: string;
}

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

function toRefundView(r: ChargeRefundRow): RefundView {
  return { id: r.id, amount: r.amount, status: r.status, endtoend: r.endToEnd, created_at: r.createdAt };
}

/**
 * Views of a page of rows with their refunds: one more query for the whole page (refunds_transaction_idx),
 * and none at all when no row is APPROVED (only those can have refunds).
 */
export async function toTransactionViews(tx: Stores, rows: TransactionViewRow[]): Promise<TransactionView[]> {
  const approved = rows.filter((r) => r.status === 'APPROVED').map((r) => r.id);
  if (approved.length === 0) return rows.map((r) => toTransactionView(r));
  const found = await tx.transactions.refundsOf(approved);
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
export async function transactionView(tx: Stores, accountId: string, id: string): Promise<TransactionView | null> {
  const row = await tx.transactions.viewRow(accountId, id);
  return row ? (await toTransactionViews(tx, [row]))[0] : null;
}

export function toDisputeView(d: DisputeRow): DisputeView {
  return { id: d.id, transaction_id: d.transactionId, status: d.status, amount: d.amount, created_at: d.createdAt, updated_at: d.updatedAt };
}
