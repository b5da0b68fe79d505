import type { Stores } from '../../../db';
import type { BatchRow, WithdrawalRow, WithdrawalWithBatches } from '../../../db/stores/withdrawals';
import type { PixKeyType } from '../../../contract/pix/keys';
import type { FailureCode } from '../../../contract/enums';
import type { BatchStatus, WithdrawalStatus } from './rules';

/**
 * A batch as the spec's withdrawal query shows it (`receipt`). What a batch has only once paid (its
 * end-to-end id, the receiver) or once failed (why) is null otherwise.
 */
export interface Receipt {
  status: BatchStatus;
  endtoend: string | null;
  identifier: string;
  amount: number;
  receiver_name: string | null;
  receiver_bank: string | null;
  receiver_bank_ispb: string | null;
  failure_code: FailureCode | null;
  failure_reason: string | null;
}

/** What was asked for, as the request gave it (the document normalised). */
export interface WithdrawalOperation {
  amount: number;
  key: string;
  key_type: PixKeyType;
  description: string | null;
  details: { name: string; document: string };
  postback: string | null;
  external_ref: string | null;
}

/**
 * The spec's withdrawal query shape (GET /withdraw, the dashboard's list and search, event payloads).
 * The domain owns it: the router's schema (server/routers/withdrawals/schemas.ts withdrawalResponse) is
 * checked against it at compile time.
 */
export interface WithdrawalView {
  id: string;
  status: WithdrawalStatus;
  amount: number;
  operation: WithdrawalOperation;
  /** Every batch, in order. */
  receipt: Receipt[];
  created_at: string;
  updated_at: string;
}

/** An item of the dashboard's list (withdrawals.list): the same view. */
export type WithdrawalListItem = WithdrawalView;

/** A page of the dashboard's list or search. */
export interface WithdrawalPage {
  items: WithdrawalListItem[];
  next_cursor: string | null;
}

function receiptOf(b: BatchRow): Receipt {
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
export function requestedWithdrawalView(w: Omit<WithdrawalRow, 'status'>, batches: { id: string; amount: number }[]): WithdrawalView {
  return viewOf({ ...w, status: 'REQUESTED' }, batches.map((b) => ({
    id: b.id, amount: b.amount, status: 'PENDING', endToEnd: null, receiverName: null, receiverBank: null, receiverBankIspb: null, failureCode: null, failureReason: null,
  })));
}

function viewOf(w: WithdrawalRow, batches: BatchRow[]): WithdrawalView {
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
 * The view of a withdrawal and its batches as the caller holds them: a write job that has just changed
 * what it read (settlement) builds its event's payload from that, instead of reading it back.
 */
export function withdrawalViewOf(found: WithdrawalWithBatches): WithdrawalView {
  return viewOf(found.withdrawal, found.batches);
}

function viewOfFound(found: WithdrawalWithBatches | null): WithdrawalView | null {
  return found ? viewOf(found.withdrawal, found.batches) : null;
}

/**
 * The one builder of the withdrawal as GET /withdraw returns it: used by GET, by the dashboard list and
 * for event payloads (called inside the write job, it sees that job's own changes). Null when the
 * withdrawal does not exist or belongs to another account. One statement: consistent on its own on
 * both engines.
 */
export async function withdrawalView(tx: Stores, accountId: string, id: string): Promise<WithdrawalView | null> {
  return viewOfFound(await tx.withdrawals.withBatches(accountId, id));
}

/** The same view, found by one of the withdrawal's batch identifiers (one statement). */
export async function withdrawalViewByBatch(tx: Stores, accountId: string, batchId: string): Promise<WithdrawalView | null> {
  return viewOfFound(await tx.withdrawals.withBatchesByBatch(accountId, batchId));
}

/** Views of many withdrawals with one query for all their batches (no query per row). */
export async function withdrawalViews(tx: Stores, rows: WithdrawalRow[]): Promise<WithdrawalView[]> {
  if (rows.length === 0) return [];
  const batches = await tx.withdrawals.batchesOf(rows.map((r) => r.id));
  const byWithdrawal = new Map<string, BatchRow[]>();
  for (const b of batches) {
    const list = byWithdrawal.get(b.withdrawalId);
    if (list) list.push(b);
    else byWithdrawal.set(b.withdrawalId, [b]);
  }
  return rows.map((r) => viewOf(r, byWithdrawal.get(r.id) ?? []));
}
