import { and, desc, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { perConnection } from '../../../db/prepared';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX } from '../ids';
import type { Stores } from '../../../db';
import { disputes, transactions } from '../../../db/schema';
import { DomainError, validationError } from '../../errors';
import { selectTransactionViews, toDisputeView, toTransactionViews, type DisputeView, type TransactionMethod, type TransactionStatus, type TransactionView } from './view';
import type { z } from 'zod';
import type { paymentDetails as paymentDetailsSchema, transactionPage } from '../../routers/transactions/schemas';
import { first } from '../../../db/query';

export interface TransactionLookup { id?: string; identifier?: string; endtoend?: string; external_ref?: string }

/**
 * GET /transaction: any of id, identifier, endtoend, external_ref; every one given must match the same
 * transaction of this account, else 404 (another account's transaction looks exactly like none).
 */
const LOOKUP_COLUMNS = {
  id: transactions.id, identifier: transactions.identifier, endtoend: transactions.endToEnd, external_ref: transactions.externalRef,
} as const;
type LookupKey = keyof typeof LOOKUP_COLUMNS;

/** One prepared statement per combination of lookup keys (at most 15), built on first use per connection. */
const lookupStatements = perConnection((db) => {
  const cache = new Map<string, ReturnType<typeof build>>();
  function build(keys: LookupKey[]) {
    const conds: SQL[] = [eq(transactions.accountId, sql.placeholder('accountId')), ...keys.map((k) => eq(LOOKUP_COLUMNS[k], sql.placeholder(k)))];
    return selectTransactionViews(db).where(and(...conds)).limit(2).prepare();
  }
  return (keys: LookupKey[]) => {
    const name = keys.join(',');
    let stmt = cache.get(name);
    if (!stmt) { stmt = build(keys); cache.set(name, stmt); }
    return stmt;
  };
});

/**
 * GET /transaction: any of id, identifier, endtoend, external_ref; every one given must match the same
 * transaction of this account, else 404 (another account's transaction looks exactly like none).
 */
export async function getTransaction(db: Stores, accountId: string, q: TransactionLookup): Promise<TransactionView> {
  const keys = (Object.keys(LOOKUP_COLUMNS) as LookupKey[]).filter((k) => q[k] !== undefined);
  if (!keys.length) {
    throw validationError([{ path: '', message: 'give at least one of id, identifier, endtoend, external_ref' }]);
  }
  const params: Record<string, string> = { accountId };
  for (const k of keys) params[k] = q[k]!;
  // the charge and its refunds as of one commit
  return db.snapshot(async (r) => {
    const rows = await lookupStatements(r)(keys).execute(params);
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

export type TransactionPage = z.infer<typeof transactionPage>;

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
export async function listTransactions(db: Stores, accountId: string, q: TransactionListQuery): Promise<TransactionPage> {
  const limit = q.limit ?? 20;
  const conds: SQL[] = [eq(transactions.accountId, accountId)];
  if (q.status) conds.push(eq(transactions.status, q.status));
  if (q.method) conds.push(eq(transactions.method, q.method));
  if (q.from !== undefined) conds.push(gte(transactions.createdAt, isoInstant('from', q.from)));
  if (q.to !== undefined) conds.push(lt(transactions.createdAt, isoInstant('to', q.to)));
  if (q.cursor) {
    const { createdAt, id } = decodeCursor(q.cursor, ID_PREFIX.transaction);
    conds.push(or(lt(transactions.createdAt, createdAt), and(eq(transactions.createdAt, createdAt), lt(transactions.id, id)))!);
  }
  const rows = await selectTransactionViews(db).where(and(...conds))
    .orderBy(desc(transactions.createdAt), desc(transactions.id)).limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: await toTransactionViews(db, page), next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}

/** The disputes of one of the account's transactions, oldest first (dashboard). */
export async function transactionDisputes(db: Stores, accountId: string, transactionId: string): Promise<DisputeView[]> {
  const t = await first(db.handle.select({ id: transactions.id }).from(transactions)
    .where(and(eq(transactions.accountId, accountId), eq(transactions.id, transactionId))));
  if (!t) throw new DomainError('NOT_FOUND', 'transaction not found');
  const rows = await db.handle.select().from(disputes).where(eq(disputes.transactionId, transactionId)).orderBy(disputes.createdAt, disputes.id);
  return rows.map(toDisputeView);
}

export type PaymentDetails = z.infer<typeof paymentDetailsSchema>;

export async function paymentDetails(db: Stores, accountId: string, transactionId: string): Promise<PaymentDetails> {
  const t = await first(db.handle.select().from(transactions)
    .where(and(eq(transactions.accountId, accountId), eq(transactions.id, transactionId))));
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
