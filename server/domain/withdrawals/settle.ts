import type { Stores } from '../../../db';
import type { BatchRow } from '../../../db/stores/withdrawals';
import type { Services } from '../../services';
import { recordEvent } from '../events';
import { refusalError, transfer } from '../ledger';
import type { PixPaymentOrder, PixPaymentOutcome, PixRail } from '../rails';
import { claimDue, settleWithRail } from '../rails/pass';
import { eventForTransition, isSettled, withdrawalStatusOf, type BatchStatus } from './rules';
import { log } from '../../log';
import { reportOutcome } from '../outcomes';
import { withdrawalView, withdrawalViewOf } from './view';

/** Batches handled per pass: bounds one pass's rail calls and the size of its commit group. */
export const SETTLEMENT_PASS_SIZE = 25;
/** When the rail call itself fails (network, PSP down), the batch is tried again this much later. */
export const RAIL_RETRY_MS = 30_000;

/** Due batches with what the rail needs to pay them. */
export async function duePaymentOrders(tx: Stores, now: Date, limit = SETTLEMENT_PASS_SIZE): Promise<PixPaymentOrder[]> {
  return tx.withdrawals.duePaymentOrders(now.toISOString(), limit);
}

/** The claim's statements of due batches (db/stores/withdrawals.ts batchClaims). */
function batchClaims(tx: Stores) {
  return tx.withdrawals.batchClaims;
}

/**
 * Claims up to `limit` due batches for this instance (claimDue: due_at moved forward by the lease,
 * claimed_by stamped) and returns what the rail needs to pay them. Nothing is written when nothing is due.
 */
export async function claimDuePaymentOrders(s: Services, now: Date, limit = SETTLEMENT_PASS_SIZE): Promise<PixPaymentOrder[]> {
  return claimDue(s, batchClaims, now, limit);
}

/**
 * Applies one rail outcome in one write job: the batch's new status, its ledger entry
 * (withdrawals_in_flight → pix_out when paid, → available when failed), the withdrawal's recomputed
 * status and the event of that change. The batch must still be PENDING, so an outcome applied twice
 * (two workers, a re-run after a crash) moves money once. Returns whether anything changed.
 *
 * One read: the withdrawal and its batches' statuses, under the withdrawal's row lock. The new statuses,
 * the event and (mostly) its payload are computed from that read and the changes this job makes (as POST
 * does with what it writes), so the writes need no answer (on PostgreSQL they travel together: two round
 * trips per outcome, a third only to read back the payload of a withdrawal some other batch of which has settled).
 */
export async function applyPaymentOutcome(s: Services, order: PixPaymentOrder, outcome: PixPaymentOutcome): Promise<boolean> {
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    const store = tx.withdrawals;
    const { accountId, withdrawalId, batchId } = order;
    // Sibling batches settle in concurrent jobs on PostgreSQL: each must see the others' outcome to
    // compute the withdrawal's status (and its last event), and one batch must not be applied twice:
    // the withdrawal's row is locked before its batches are read.
    const found = await store.lockToSettle(accountId, withdrawalId);
    const batch = found?.batches.find((b) => b.id === batchId);
    if (!found || !batch || batch.status !== 'PENDING') return false;
    const amount = batch.amount;

    if (outcome.status === 'PENDING') {
      await store.retryBatchLater(batchId, outcome.retryAt.toISOString(), iso);
      return true;
    }
    let settled: BatchRow;
    if (outcome.status === 'PAID') {
      const paid = { endToEnd: outcome.endToEndId, receiverName: outcome.receiverName, receiverBank: outcome.receiverBank, receiverBankIspb: outcome.receiverBankIspb };
      await store.markBatchPaid(batchId, paid, iso);
      await transfer(tx, {
        accountId, kind: 'withdrawal_paid', resourceId: batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { system: 'pix_out' },
        description: `Pix batch paid (${outcome.endToEndId})`,
      }, refusalError);
      settled = { ...unsettled(batch), status: 'PAID', ...paid };
    } else {
      const reason = outcome.reason.slice(0, 500);
      await store.markBatchFailed(batchId, outcome.code, reason, iso);
      await transfer(tx, {
        accountId, kind: 'withdrawal_failed', resourceId: batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { account: accountId, book: 'available' },
        description: 'Pix batch failed: amount returned',
      }, refusalError);
      settled = { ...unsettled(batch), status: 'ERROR', failureCode: outcome.code, failureReason: reason };
    }

    const before = found.withdrawal.status;
    const statuses = found.batches.map((b) => (b.id === batchId ? settled.status : b.status));
    const after = withdrawalStatusOf(statuses);
    await store.updateStatus(withdrawalId, after, iso);
    const type = eventForTransition(before, after, isSettled(statuses));
    if (isSettled(statuses) && after !== 'REQUESTED') reportOutcome(tx, { resource: 'withdrawal', status: after });
    if (type) {
      // a PENDING batch shows only its id, amount and status: while every other batch is PENDING (a withdrawal
      // of one batch, the first outcome of several) the payload is what this job read and wrote; otherwise it
      // is read back, with this job's changes
      const payload = found.batches.every((b) => b.id === batchId || b.status === 'PENDING')
        ? withdrawalViewOf({ withdrawal: { ...found.withdrawal, status: after, updatedAt: iso }, batches: found.batches.map((b) => (b.id === batchId ? settled : unsettled(b))) })
        : await withdrawalView(tx, accountId, withdrawalId);
      await recordEvent(tx, { accountId, type, resourceId: withdrawalId, payload, at });
    }
    return true;
  });
}

/** A batch not settled yet, as its view reads it. */
function unsettled(b: { id: string; status: BatchStatus; amount: number }): BatchRow {
  return { ...b, endToEnd: null, receiverName: null, receiverBank: null, receiverBankIspb: null, failureCode: null, failureReason: null };
}

/**
 * One pass of the settlement job: claims due batches (claimDuePaymentOrders), asks the rail about each
 * (outside any write job: for a real PSP that is a network call), then applies the outcomes, each in
 * its own job (queued together so they share one commit on SQLite). State lives only in the rows: a
 * crash anywhere leaves the batch PENDING, due again when its lease runs out, and the next pass (of any
 * instance, or this one after a restart) sends it again under the same id. With N instances each batch
 * is asked about by one of them per lease. Returns how many outcomes it applied.
 */
export async function runSettlementPass(s: Services, rail: PixRail, limit = SETTLEMENT_PASS_SIZE): Promise<number> {
  const now = s.clock.now();
  return settleWithRail<PixPaymentOrder, PixPaymentOutcome>({
    job: 'settlement',
    orders: await claimDuePaymentOrders(s, now, limit),
    idOf: (order) => `batch ${order.batchId}`,
    ask: (order) => rail.pay(order, now),
    later: () => ({ status: 'PENDING', retryAt: new Date(now.getTime() + RAIL_RETRY_MS) }),
    apply: (order, outcome) => applyPaymentOutcome(s, order, outcome),
  });
}
