import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../../../db';
import { withdrawalBatches, withdrawals } from '../../../db/schema';
import type { PixKeyType } from '../pix/keys';
import type { FailureCode } from '../rails';
import { perConnection } from '../../../db/prepared';
import type { BatchStatus, WithdrawalStatus } from './rules';
import type { z } from 'zod';
import type { receipt, withdrawalResponse } from '../../routers/withdrawals/schemas';
import { first } from '../../../db/query';

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

/** The hot lookups of GET /withdraw and of every event payload, prepared once per connection. */
export const withdrawalLookups = perConnection((db) => ({
  withdrawal: db.select().from(withdrawals)
    .where(and(eq(withdrawals.id, sql.placeholder('id')), eq(withdrawals.accountId, sql.placeholder('accountId')))).prepare(),
  batches: db.select().from(withdrawalBatches)
    .where(eq(withdrawalBatches.withdrawalId, sql.placeholder('id'))).orderBy(asc(withdrawalBatches.seq)).prepare(),
  idOfBatch: db.select({ id: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
    .where(and(eq(withdrawalBatches.id, sql.placeholder('id')), eq(withdrawalBatches.accountId, sql.placeholder('accountId')))).prepare(),
  idOfExternalRef: db.select({ id: withdrawals.id }).from(withdrawals)
    .where(and(eq(withdrawals.accountId, sql.placeholder('accountId')), eq(withdrawals.externalRef, sql.placeholder('externalRef')))).prepare(),
}));

/**
 * The one builder of the withdrawal as GET /withdraw returns it: used by GET, by the dashboard list and
 * for event payloads (called inside the write job, it sees that job's own changes). Null when the
 * withdrawal does not exist or belongs to another account.
 */
export async function withdrawalView(db: DrizzleDb, accountId: string, id: string): Promise<WithdrawalView | null> {
  const q = withdrawalLookups(db);
  const w = await first(q.withdrawal.execute({ id, accountId }));
  if (!w) return null;
  return viewOf(w, await q.batches.execute({ id }));
}

/** The batches of many withdrawals in one query (withdrawal_batches_withdrawal_idx). Exported for the plan test. */
export function batchesOfQuery(db: DrizzleDb, withdrawalIds: string[]) {
  return db.select().from(withdrawalBatches)
    .where(inArray(withdrawalBatches.withdrawalId, withdrawalIds))
    .orderBy(asc(withdrawalBatches.withdrawalId), asc(withdrawalBatches.seq));
}

/** Views of many withdrawals with one query for all their batches (no query per row). */
export async function withdrawalViews(db: DrizzleDb, rows: WithdrawalRow[]): Promise<WithdrawalView[]> {
  if (rows.length === 0) return [];
  const batches = await batchesOfQuery(db, rows.map((r) => r.id));
  const byWithdrawal = new Map<string, BatchRow[]>();
  for (const b of batches) {
    const list = byWithdrawal.get(b.withdrawalId);
    if (list) list.push(b);
    else byWithdrawal.set(b.withdrawalId, [b]);
  }
  return rows.map((r) => viewOf(r, byWithdrawal.get(r.id) ?? []));
}
