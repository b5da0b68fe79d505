import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../../../contract/ids';
import { DomainError, validationError } from '../../errors';
import { toDisputeView, toTransactionViews, type DisputeView, type TransactionMethod, type TransactionStatus, type TransactionView } from './view';
import type { Services } from '../../services';

export interface TransactionLookup { id?: string; identifier?: string; endtoend?: string; external_ref?: string }

const LOOKUP_KEYS = ['id', 'identifier', 'endtoend', 'external_ref'] as const;

/**
 * GET /transaction: any of id, identifier, endtoend, external_ref; every one given must match the same
 * transaction of this account, else 404 (another account's transaction looks exactly like none).
 */
export async function getTransaction(s: Pick<Services, 'db'>, accountId: string, q: TransactionLookup): Promise<TransactionView> {
  const reads = s.db.read;
  if (!LOOKUP_KEYS.some((k) => q[k] !== undefined)) {
    throw validationError([{ path: '', message: 'give at least one of id, identifier, endtoend, external_ref' }]);
  }
  // the charge and its refunds as of one commit
  return reads.snapshot(async (r) => {
    const rows = await r.transactions.lookupViewRows(accountId, { id: q.id, identifier: q.identifier, endtoend: q.endtoend, external_ref: q.external_ref });
    if (rows.length !== 1) throw new DomainError('NOT_FOUND', 'transaction not found');
    return (await toTransactionViews(r, rows))[0];
  });
}

export interface TransactionListQuery {
  cursor?: string | null;
  limit?: number;
  status?: TransactionStatus;
  method?: TransactionMethod;
  /** ISO 8601; created_at ≥ from. */
  from?: string;
  /** ISO 8601; created_at < to. */
  to?: string;
}

/** A page of GET /transactions: newest first; `next_cursor` null on the last page. */
export interface TransactionPage {
  items: TransactionView[];
  next_cursor: string | null;
}

function isoInstant(path: string, s: string): string {
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) throw validationError([{ path, message: 'must be an ISO 8601 timestamp' }]);
  // stored timestamps are toISOString() (UTC, Z), so compare in that form whatever offset was sent
  return d.toISOString();
}

/**
 * Newest first, keyset-paged on (created_at, id): the (account_id[, status], created_at, id) indexes
 * serve both the order and the cursor, and each page is one joined query.
 */
export async function listTransactions(s: Pick<Services, 'db'>, accountId: string, q: TransactionListQuery): Promise<TransactionPage> {
  const reads = s.db.read;
  const limit = q.limit ?? 20;
  const rows = await reads.transactions.listPage({
    accountId, status: q.status, method: q.method,
    since: q.from !== undefined ? isoInstant('from', q.from) : undefined,
    until: q.to !== undefined ? isoInstant('to', q.to) : undefined,
    before: q.cursor ? decodeCursor(q.cursor, ID_PREFIX.transaction) : undefined,
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: await toTransactionViews(reads, page), next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}

/** The disputes of one of the account's transactions, oldest first (dashboard). */
export async function transactionDisputes(s: Pick<Services, 'db'>, accountId: string, transactionId: string): Promise<DisputeView[]> {
  const reads = s.db.read;
  if (!(await reads.transactions.hasCharge(accountId, transactionId))) throw new DomainError('NOT_FOUND', 'transaction not found');
  return (await reads.transactions.disputesOf(transactionId)).map(toDisputeView);
}

/** How a charge is paid: its Pix BR Code, its boleto, or the card it was charged on. */
export interface PaymentDetails {
  id: string;
  method: TransactionMethod;
  qrcode: string | null;
  expires_at: string | null;
  invoice: { id: string; due_date: string; digitable_line: string } | null;
  card: { brand: string; last4: string; holder_name: string; installments: number } | null;
  refused_reason: string | null;
}

export async function paymentDetails(s: Pick<Services, 'db'>, accountId: string, transactionId: string): Promise<PaymentDetails> {
  const reads = s.db.read;
  const t = await reads.transactions.paymentRow(accountId, transactionId);
  if (!t) throw new DomainError('NOT_FOUND', 'transaction not found');
  return {
    id: t.id,
    method: t.method,
    qrcode: t.qrcode,
    expires_at: t.expiresAt,
    invoice: t.invoiceId && t.invoiceDueDate && t.invoiceDigitableLine ? { id: t.invoiceId, due_date: t.invoiceDueDate, digitable_line: t.invoiceDigitableLine } : null,
    card: t.cardBrand && t.cardLast4 && t.cardHolderName ? { brand: t.cardBrand, last4: t.cardLast4, holder_name: t.cardHolderName, installments: t.installments ?? 1 } : null,
    refused_reason: t.refusedReason,
  };
}
