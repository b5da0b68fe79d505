import type { Stores } from '../../../db';
import type { Services } from '../../services';
import { recordEvent } from '../events';
import { transfer } from '../ledger';
import type { PixPaymentOrder, PixPaymentOutcome, PixRail } from '../rails';
import { claimDue, settleWithRail } from '../rails/pass';
import { eventForTransition, isSettled, withdrawalStatusOf } from './rules';
import { log } from '../../log';
import { reportOutcome } from '../outcomes';
import { withdrawalView } from './view';

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
 */
export async function applyPaymentOutcome(s: Services, order: PixPaymentOrder, outcome: PixPaymentOutcome): Promise<boolean> {
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    const store = tx.withdrawals;
    // Sibling batches settle in concurrent jobs on PostgreSQL: each must see the others' outcome to
    // compute the withdrawal's status (and its last event), and one batch must not be applied twice:
    // the withdrawal's row is locked before the batch is read.
    const batch = await store.lockBatchToSettle(order.withdrawalId, order.batchId);
    if (!batch || batch.status !== 'PENDING') return false;
    const { accountId, withdrawalId, amount } = batch;

    if (outcome.status === 'PENDING') {
      await store.retryBatchLater(order.batchId, outcome.retryAt.toISOString(), iso);
      return true;
    }
    if (outcome.status === 'PAID') {
      await store.markBatchPaid(order.batchId, {
        endToEnd: outcome.endToEndId, receiverName: outcome.receiverName, receiverBank: outcome.receiverBank, receiverBankIspb: outcome.receiverBankIspb,
      }, iso);
      await transfer(tx, {
        accountId, kind: 'withdrawal_paid', resourceId: order.batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { system: 'pix_out' },
        description: `Pix batch paid (${outcome.endToEndId})`,
      });
    } else {
      await store.markBatchFailed(order.batchId, outcome.code, outcome.reason.slice(0, 500), iso);
      await transfer(tx, {
        accountId, kind: 'withdrawal_failed', resourceId: order.batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { account: accountId, book: 'available' },
        description: 'Pix batch failed: amount returned',
      });
    }

    const before = await store.statusOf(withdrawalId);
    if (before === null) throw new Error(`withdrawal ${withdrawalId} of batch ${order.batchId} is missing`);
    const statuses = await store.batchStatuses(withdrawalId);
    const after = withdrawalStatusOf(statuses);
    await store.updateStatus(withdrawalId, after, iso);
    const type = eventForTransition(before, after, isSettled(statuses));
    if (isSettled(statuses) && after !== 'REQUESTED') reportOutcome(tx, { resource: 'withdrawal', status: after });
    if (type) {
      const payload = await withdrawalView(tx, accountId, withdrawalId);
      await recordEvent(tx, { accountId, type, resourceId: withdrawalId, payload, at });
    }
    return true;
  });
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
