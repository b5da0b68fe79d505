import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DrizzleDb, Stores } from '../../../db';
import { handleOf } from '../../../db/stores';
import { withdrawalBatches, withdrawals } from '../../../db/schema';
import type { PixKeyType } from '../../../contract/pix/keys';
import type { FailureCode } from '../rails';
import { perConnection } from '../../../db/prepared';
import type { BatchStatus, WithdrawalStatus } from './rules';
import type { z } from 'zod';
import type { receipt, withdrawalResponse } from '../../routers/withdrawals/schemas';

export type Receipt = z.infer<typeof receipt>;

/** The spec's withdrawal query shape; its type is the contract's. */
export type WithdrawalView = z.infer<typeof withdrawalResponse>;

/** An item of the dashboard's list (withdrawals.list): the same view. */
export type WithdrawalListItem = WithdrawalView;

type WithdrawalRow = typeof withdrawals.$inferSelect;
type BatchRow = typeof withdrawalBatches.$inferSelect;

/** What the view reads of the rows. */
type ViewedWithdrawal = Pick<WithdrawalRow, 'id' | 'status' | 'amount' | 'key' | 'keyType' | 'description' | 'detailsName' | 'detailsDocument' | 'postback' | 'externalRef' | 'createdAt' | 'updatedAt'>;
type ViewedBatch = Pick<BatchRow, 'id' | 'status' | 'amount' | 'endToEnd' | 'receiverName' | 'receiverBank' | 'receiverBankIspb' | 'failureCode' | 'failureReason'>;

function receiptOf(b: ViewedBatch): Receipt {
  const paid = b.status === 'PAID';
  const failed = b.status === 'ERROR';
  return {
    status: b.status,
    endtoend: paid ? b.endToEnd : null,
    identifier: b.id,
    amount: b.amount,
    receiver_name: paid ? b.receiverName : null,
    receiver_bank: paid ? b.receiverBank : null,
    receiver_bank_ispb: paid ? b.receiverBankIspb : null,
    failure_code: failed ? b.failureCode : null,
    // a batch failed before reasons were kept still says it failed, in words
    failure_reason: failed ? (b.failureReason ?? 'The payment failed; no reason was recorded.') : null,
  };
}

/**
 * The view of a withdrawal as its create job has just written it (REQUESTED, every batch PENDING), from
 * the written values rather than read back: the same builder, so the same view as a GET in that job.
 */
export function requestedWithdrawalView(w: Omit<ViewedWithdrawal, 'status'>, batches: { id: string; amount: number }[]): WithdrawalView {
  return viewOf({ ...w, status: 'REQUESTED' }, batches.map((b) => ({
    id: b.id, amount: b.amount, status: 'PENDING', endToEnd: null, receiverName: null, receiverBank: null, receiverBankIspb: null, failureCode: null, failureReason: null,
  })));
}

function viewOf(w: ViewedWithdrawal, batches: ViewedBatch[]): WithdrawalView {
  return {
    id: w.id,
    status: w.status,
    amount: w.amount,
    operation: {
      amount: w.amount,
      key: w.key,
      key_type: w.keyType,
      description: w.description,
      details: { name: w.detailsName, document: w.detailsDocument },
      postback: w.postback,
      external_ref: w.externalRef,
    },
    receipt: batches.map(receiptOf),
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/**
 * The stored columns the view reads of a withdrawal: never `select *`, which on SQLite also computes
 * the virtual search columns (details_name_search, details_name_words: dozens of nested replace() per
 * row) that no view shows. The list and search pages select these too.
 */
export const viewedWithdrawalColumns = {
  id: withdrawals.id, status: withdrawals.status, amount: withdrawals.amount, key: withdrawals.key, keyType: withdrawals.keyType,
  description: withdrawals.description, detailsName: withdrawals.detailsName, detailsDocument: withdrawals.detailsDocument,
  postback: withdrawals.postback, externalRef: withdrawals.externalRef, createdAt: withdrawals.createdAt, updatedAt: withdrawals.updatedAt,
};

/** The stored columns the view reads of a batch, and the withdrawal it belongs to (to group a page's batches). */
const viewedBatchColumns = {
  id: withdrawalBatches.id, status: withdrawalBatches.status, amount: withdrawalBatches.amount, endToEnd: withdrawalBatches.endToEnd,
  receiverName: withdrawalBatches.receiverName, receiverBank: withdrawalBatches.receiverBank, receiverBankIspb: withdrawalBatches.receiverBankIspb,
  failureCode: withdrawalBatches.failureCode, failureReason: withdrawalBatches.failureReason,
};

/**
 * A withdrawal and its batches in one statement (one row per batch, in their order): one statement
 * instead of two per GET and per event payload, and on PostgreSQL one statement is one snapshot, so the
 * withdrawal's status and its batches always agree without a transaction around them. `by: 'batch'`
 * finds the withdrawal by one of its batch identifiers in the same statement (GET /withdraw?identifier=
 * wdb_…, the usual query, then costs one statement rather than two). Exported for the plan test.
 */
export function withdrawalWithBatchesQuery(on: DrizzleDb | Stores, by: 'id' | 'batch' = 'id') {
  const db = handleOf(on);
  const which = by === 'id'
    ? eq(withdrawals.id, sql.placeholder('id'))
    : eq(withdrawals.id, db.select({ id: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
      .where(and(eq(withdrawalBatches.id, sql.placeholder('batchId')), eq(withdrawalBatches.accountId, sql.placeholder('accountId')))));
  return db.select({
    ...viewedWithdrawalColumns,
    batchId: withdrawalBatches.id, batchStatus: withdrawalBatches.status, batchAmount: withdrawalBatches.amount, batchEndToEnd: withdrawalBatches.endToEnd,
    batchReceiverName: withdrawalBatches.receiverName, batchReceiverBank: withdrawalBatches.receiverBank, batchReceiverBankIspb: withdrawalBatches.receiverBankIspb,
    batchFailureCode: withdrawalBatches.failureCode, batchFailureReason: withdrawalBatches.failureReason,
  }).from(withdrawals)
    .leftJoin(withdrawalBatches, eq(withdrawalBatches.withdrawalId, withdrawals.id))
    .where(and(which, eq(withdrawals.accountId, sql.placeholder('accountId'))))
    .orderBy(asc(withdrawalBatches.seq));
}

/** The hot lookups of GET /withdraw and of every event payload, prepared once per connection. */
export const withdrawalLookups = perConnection((db) => ({
  withdrawalWithBatches: withdrawalWithBatchesQuery(db).prepare(),
  withdrawalWithBatchesByBatch: withdrawalWithBatchesQuery(db, 'batch').prepare(),
  idOfBatch: db.select({ id: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
    .where(and(eq(withdrawalBatches.id, sql.placeholder('id')), eq(withdrawalBatches.accountId, sql.placeholder('accountId')))).prepare(),
  idOfExternalRef: db.select({ id: withdrawals.id }).from(withdrawals)
    .where(and(eq(withdrawals.accountId, sql.placeholder('accountId')), eq(withdrawals.externalRef, sql.placeholder('externalRef')))).prepare(),
}));

type JoinedRow = Awaited<ReturnType<ReturnType<typeof withdrawalLookups>['withdrawalWithBatches']['execute']>>[number];

function viewOfJoined(rows: JoinedRow[]): WithdrawalView | null {
  const w = rows[0];
  if (!w) return null;
  const batches: ViewedBatch[] = [];
  for (const r of rows) {
    if (r.batchId === null) continue;
    batches.push({
      id: r.batchId, status: r.batchStatus!, amount: r.batchAmount!, endToEnd: r.batchEndToEnd, receiverName: r.batchReceiverName,
      receiverBank: r.batchReceiverBank, receiverBankIspb: r.batchReceiverBankIspb, failureCode: r.batchFailureCode, failureReason: r.batchFailureReason,
    });
  }
  return viewOf(w, batches);
}

/**
 * The one builder of the withdrawal as GET /withdraw returns it: used by GET, by the dashboard list and
 * for event payloads (called inside the write job, it sees that job's own changes). Null when the
 * withdrawal does not exist or belongs to another account. One statement: consistent on its own on
 * both engines.
 */
export async function withdrawalView(db: Stores, accountId: string, id: string): Promise<WithdrawalView | null> {
  return viewOfJoined(await withdrawalLookups(db).withdrawalWithBatches.execute({ id, accountId }));
}

/** The same view, found by one of the withdrawal's batch identifiers (one statement). */
export async function withdrawalViewByBatch(db: Stores, accountId: string, batchId: string): Promise<WithdrawalView | null> {
  return viewOfJoined(await withdrawalLookups(db).withdrawalWithBatchesByBatch.execute({ batchId, accountId }));
}

/** The batches of many withdrawals in one query (withdrawal_batches_withdrawal_idx). Exported for the plan test. */
export function batchesOfQuery(db: Stores, withdrawalIds: string[]) {
  return db.handle.select({ ...viewedBatchColumns, withdrawalId: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
    .where(inArray(withdrawalBatches.withdrawalId, withdrawalIds))
    .orderBy(asc(withdrawalBatches.withdrawalId), asc(withdrawalBatches.seq));
}

/** Views of many withdrawals with one query for all their batches (no query per row). */
export async function withdrawalViews(db: Stores, rows: ViewedWithdrawal[]): Promise<WithdrawalView[]> {
  if (rows.length === 0) return [];
  const batches = await batchesOfQuery(db, rows.map((r) => r.id));
  const byWithdrawal = new Map<string, ViewedBatch[]>();
  for (const b of batches) {
    const list = byWithdrawal.get(b.withdrawalId);
    if (list) list.push(b);
    else byWithdrawal.set(b.withdrawalId, [b]);
  }
  return rows.map((r) => viewOf(r, byWithdrawal.get(r.id) ?? []));
}
