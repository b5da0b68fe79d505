// The pure rules of a withdrawal (docs/decisions.md "Withdrawals"): how an amount is split into batches and
// what the withdrawal's status is given its batches'. No database here, so they are unit-tested alone.

export { WITHDRAWAL_STATUSES, type BatchStatus, type WithdrawalStatus } from '../enums';
import type { BatchStatus, WithdrawalStatus } from '../enums';


/**
 * Bounds the work one request can cause: every batch is a row, a receipt in each event payload and a
 * rail call. With the default PIX_MAX_BATCH_CENTS this allows R$ 15,000,000.00 per request.
 */
export const MAX_BATCHES_PER_WITHDRAWAL = 1000;

/** Full batches of `maxBatch`, then one remainder batch (if any). */
export function splitIntoBatches(amount: number, maxBatch: number): number[] {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new RangeError('amount must be a positive integer of cents');
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new RangeError('the batch cap must be a positive integer of cents');
  const full = Math.floor(amount / maxBatch);
  const rest = amount - full * maxBatch;
  const out: number[] = new Array(full).fill(maxBatch);
  if (rest > 0) out.push(rest);
  return out;
}

export function batchCount(amount: number, maxBatch: number): number {
  return Math.ceil(amount / maxBatch);
}

/**
 * REQUESTED while any batch is pending and none is paid; PARTIALLY_PAID when some are paid and others
 * pending or failed; PAID when all are paid; ERROR when all failed. (Failed + pending with none paid is
 * still REQUESTED: nothing has reached the receiver yet and something still may.)
 */
export function withdrawalStatusOf(batches: readonly BatchStatus[]): WithdrawalStatus {
  if (batches.length === 0) throw new RangeError('a withdrawal has at least one batch');
  let paid = 0;
  let failed = 0;
  for (const b of batches) {
    if (b === 'PAID') paid += 1;
    else if (b === 'ERROR') failed += 1;
  }
  if (paid === batches.length) return 'PAID';
  if (failed === batches.length) return 'ERROR';
  if (paid > 0) return 'PARTIALLY_PAID';
  return 'REQUESTED';
}

/** True once no batch can change any more. */
export function isSettled(batches: readonly BatchStatus[]): boolean {
  return batches.every((b) => b !== 'PENDING');
}

/** Shown for a details.document that is neither a valid CPF nor a valid CNPJ. */
export const DOCUMENT_RULE = 'must be a valid CPF (11 digits) or CNPJ (14 characters) with matching check digits';

export type WithdrawalEventType = 'withdraw.paid' | 'withdraw.partially_paid' | 'withdraw.error';

/**
 * The event a batch outcome records, if any. An event is recorded whenever the withdrawal's status
 * changes (so the first paid batch of several records `withdraw.partially_paid` while others are still
 * pending), and once more when a PARTIALLY_PAID withdrawal settles without changing status (its last
 * batches failed): otherwise a receiver would never learn that the remaining batches ended and their
 * money went back to the balance.
 */
export function eventForTransition(before: WithdrawalStatus, after: WithdrawalStatus, settled: boolean): WithdrawalEventType | null {
  if (before === after && !(settled && after === 'PARTIALLY_PAID')) return null;
  switch (after) {
    case 'PAID': return 'withdraw.paid';
    case 'PARTIALLY_PAID': return 'withdraw.partially_paid';
    case 'ERROR': return 'withdraw.error';
    default: return null;
  }
}
