import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Stores } from '../../../db';
import { withdrawalBatches, withdrawals } from '../../../db/schema';
import type { Services } from '../../services';
import { recordEvent } from '../events';
import { transfer } from '../ledger';
import type { PixPaymentOrder, PixPaymentOutcome, PixRail } from '../rails';
import { claimDue, settleWithRail } from '../rails/pass';
import { eventForTransition, isSettled, withdrawalStatusOf } from './rules';
import { perConnection } from '../../../db/prepared';
import { first, lockRows, skipLocked } from '../../../db/query';
import { jsonStringList } from '../../../db/dialect';
import { log } from '../../log';
import { reportOutcome } from '../outcomes';
import { withdrawalView } from './view';

/** Batches handled per pass: bounds one pass's rail calls and the size of its commit group. */
export const SETTLEMENT_PASS_SIZE = 25;
/** When the rail call itself fails (network, PSP down), the batch is tried again this much later. */
export const RAIL_RETRY_MS = 30_000;

/** Due PENDING batches, oldest due first (withdrawal_batches_due_idx). Exported for the plan test. */
export function duePaymentOrdersQuery(db: Stores, now: Date, limit = SETTLEMENT_PASS_SIZE) {
  return db.handle.select({
    batchId: withdrawalBatches.id, withdrawalId: withdrawalBatches.withdrawalId, accountId: withdrawalBatches.accountId,
    seq: withdrawalBatches.seq, amount: withdrawalBatches.amount,
    key: withdrawals.key, keyType: withdrawals.keyType, receiverName: withdrawals.detailsName, receiverDocument: withdrawals.detailsDocument,
  }).from(withdrawalBatches)
    .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
    .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, now.toISOString())))
    .orderBy(asc(withdrawalBatches.dueAt))
    .limit(limit);
}

const ph = (name: string) => sql.placeholder(name);
/** The query above with its values bound per call: prepared once per connection (it runs after every commit). */
const dueOrders = perConnection((db) => db.select({
  batchId: withdrawalBatches.id, withdrawalId: withdrawalBatches.withdrawalId, accountId: withdrawalBatches.accountId,
  seq: withdrawalBatches.seq, amount: withdrawalBatches.amount,
  key: withdrawals.key, keyType: withdrawals.keyType, receiverName: withdrawals.detailsName, receiverDocument: withdrawals.detailsDocument,
}).from(withdrawalBatches)
  .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
  .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, ph('now'))))
  .orderBy(asc(withdrawalBatches.dueAt))
  .limit(ph('limit'))
  .prepare());

/** Due batches with what the rail needs to pay them. */
export async function duePaymentOrders(db: Stores, now: Date, limit = SETTLEMENT_PASS_SIZE): Promise<PixPaymentOrder[]> {
  return dueOrders(db).execute({ now: now.toISOString(), limit });
}

const claims = perConnection((db) => ({
  /** Whether anything is due: an idle pass reads this one row and writes nothing. */
  anyDue: db.select({ id: withdrawalBatches.id }).from(withdrawalBatches)
    .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, ph('now')))).limit(1).prepare(),
  /** Takes the oldest due batches nobody else is claiming: due again only when the lease runs out. */
  claim: db.update(withdrawalBatches).set({ dueAt: ph('leaseUntil') as unknown as string, claimedBy: ph('instance') as unknown as string })
    .where(inArray(withdrawalBatches.id, skipLocked(db.select({ id: withdrawalBatches.id }).from(withdrawalBatches)
      .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, ph('now'))))
      .orderBy(asc(withdrawalBatches.dueAt)).limit(ph('limit')))))
    .returning({ id: withdrawalBatches.id }).prepare(),
  orders: db.select({
    batchId: withdrawalBatches.id, withdrawalId: withdrawalBatches.withdrawalId, accountId: withdrawalBatches.accountId,
    seq: withdrawalBatches.seq, amount: withdrawalBatches.amount,
    key: withdrawals.key, keyType: withdrawals.keyType, receiverName: withdrawals.detailsName, receiverDocument: withdrawals.detailsDocument,
  }).from(withdrawalBatches)
    .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
    .where(inArray(withdrawalBatches.id, jsonStringList(ph('ids'))))
    // a withdrawal's batches in their order, so its events come in that order too
    .orderBy(asc(withdrawalBatches.createdAt), asc(withdrawalBatches.withdrawalId), asc(withdrawalBatches.seq)).prepare(),
}));

/**
 * Claims up to `limit` due batches for this instance (claimDue: due_at moved forward by the lease,
 * claimed_by stamped) and returns what the rail needs to pay them. Nothing is written when nothing is due.
 */
export async function claimDuePaymentOrders(s: Services, now: Date, limit = SETTLEMENT_PASS_SIZE): Promise<PixPaymentOrder[]> {
  return claimDue(s, claims, now, limit);
}

const settlementLookups = perConnection((db) => ({
  retryLater: db.update(withdrawalBatches).set({ dueAt: ph('dueAt') as unknown as string, updatedAt: ph('at') as unknown as string })
    .where(eq(withdrawalBatches.id, ph('id'))).prepare(),
  paid: db.update(withdrawalBatches).set({
    status: 'PAID', endToEnd: ph('endToEnd') as unknown as string, receiverName: ph('receiverName') as unknown as string,
    receiverBank: ph('receiverBank') as unknown as string, receiverBankIspb: ph('receiverBankIspb') as unknown as string, updatedAt: ph('at') as unknown as string,
  }).where(eq(withdrawalBatches.id, ph('id'))).prepare(),
  failed: db.update(withdrawalBatches).set({ status: 'ERROR', failureCode: ph('code') as unknown as 'REJECTED', failureReason: ph('reason') as unknown as string, updatedAt: ph('at') as unknown as string })
    .where(eq(withdrawalBatches.id, ph('id'))).prepare(),
  withdrawalStatusTo: db.update(withdrawals).set({ status: ph('status') as unknown as 'PAID', updatedAt: ph('at') as unknown as string })
    .where(eq(withdrawals.id, ph('id'))).prepare(),
  batch: db.select({ status: withdrawalBatches.status, amount: withdrawalBatches.amount, withdrawalId: withdrawalBatches.withdrawalId, accountId: withdrawalBatches.accountId })
    .from(withdrawalBatches).where(eq(withdrawalBatches.id, sql.placeholder('id'))).prepare(),
  withdrawalStatus: db.select({ status: withdrawals.status }).from(withdrawals).where(eq(withdrawals.id, sql.placeholder('id'))).prepare(),
  batchStatuses: db.select({ status: withdrawalBatches.status }).from(withdrawalBatches)
    .where(eq(withdrawalBatches.withdrawalId, sql.placeholder('id'))).prepare(),
}));

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
    const lookups = settlementLookups(tx);
    // Sibling batches settle in concurrent jobs on PostgreSQL: each must see the others' outcome to
    // compute the withdrawal's status (and its last event), and one batch must not be applied twice.
    await lockRows(tx, withdrawals, withdrawals.id, [order.withdrawalId]);
    const batch = await first(lookups.batch.execute({ id: order.batchId }));
    if (!batch || batch.status !== 'PENDING') return false;
    const { accountId, withdrawalId, amount } = batch;

    if (outcome.status === 'PENDING') {
      await lookups.retryLater.execute({ id: order.batchId, dueAt: outcome.retryAt.toISOString(), at: iso });
      return true;
    }
    if (outcome.status === 'PAID') {
      await lookups.paid.execute({
        id: order.batchId, endToEnd: outcome.endToEndId, receiverName: outcome.receiverName,
        receiverBank: outcome.receiverBank, receiverBankIspb: outcome.receiverBankIspb, at: iso,
      });
      await transfer(tx, {
        accountId, kind: 'withdrawal_paid', resourceId: order.batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { system: 'pix_out' },
        description: `Pix batch paid (${outcome.endToEndId})`,
      });
    } else {
      await lookups.failed.execute({ id: order.batchId, code: outcome.code, reason: outcome.reason.slice(0, 500), at: iso });
      await transfer(tx, {
        accountId, kind: 'withdrawal_failed', resourceId: order.batchId, amount, at,
        from: { account: accountId, book: 'withdrawals_in_flight' }, to: { account: accountId, book: 'available' },
        description: 'Pix batch failed: amount returned',
      });
    }

    const w = await first(lookups.withdrawalStatus.execute({ id: withdrawalId }));
    if (!w) throw new Error(`withdrawal ${withdrawalId} of batch ${order.batchId} is missing`);
    const statuses = (await lookups.batchStatuses.execute({ id: withdrawalId })).map((r) => r.status);
    const after = withdrawalStatusOf(statuses);
    await lookups.withdrawalStatusTo.execute({ id: withdrawalId, status: after, at: iso });
    const type = eventForTransition(w.status, after, isSettled(statuses));
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
