import type { Stores } from '../../../db';
import type { HoldingDispute } from '../../../db/stores/refunds';
import { notifyDevolucaoSettled } from '../pix-api/received';
import { DomainError } from '../../errors';
import { wake, type Services } from '../../services';
import { checkIdempotencyKey, requestFingerprint, runIdempotent, type IdempotentCreateOptions, type IdempotentOperation, type IdempotentResult } from '../idempotency';
import { newId } from '../ids';
import { transfer, type BookRef } from '../ledger';
import type { LedgerEntryKind } from '../../../contract/ledger';
import { railFor, type PixRail, type RefundOrder, type RefundOutcome } from '../rails';
import { claimDue, settleWithRail, type ClaimStatements } from '../rails/pass';
import { recordTransactionEvent } from './create';
import { transactionView, type TransactionView } from './view';

/** The body of POST /transaction/{id}/refund, after the schema has checked its shape. */
export interface RefundRequest {
  /** Cents; without it the whole refundable remainder. */
  amount?: number;
  reason?: string | null;
}

/** Idempotency scope: one key space for every charge's refunds; the fingerprint names the charge. */
/** The idempotency scope: one key space per operation (the transaction id is part of the request). */
const OPERATION: IdempotentOperation = 'refund.create';

/** The job wakes the refund settlement loop under this name. */
export const REFUND_SETTLEMENT_JOB = 'refund-settlement';

/**
 * What can still be refunded of a charge, or why nothing can. docs/decisions.md "Refunds": only APPROVED
 * charges; while a dispute is open, and after it is lost, none; otherwise total minus refunds so far
 * (a won dispute holds nothing). Run inside the job that refunds, so the answer cannot go stale.
 */
async function refundable(tx: Stores, accountId: string, transactionId: string): Promise<number> {
  // PostgreSQL runs jobs concurrently: the charge's row lock serializes its refunds, disputes and payment
  const t = await tx.refunds.lockForRefund(accountId, transactionId);
  if (!t) throw new DomainError('NOT_FOUND', 'transaction not found');
  if (t.status !== 'APPROVED') throw new DomainError('INVALID_STATE', `the transaction is ${t.status}; only APPROVED transactions can be refunded`);
  const dispute = await tx.refunds.holdingDispute(transactionId);
  if (dispute) {
    throw new DomainError('INVALID_STATE', dispute.status === 'OPEN'
      ? `the transaction has an open dispute (${dispute.id}); it cannot be refunded while the dispute holds it`
      : `the transaction lost its dispute (${dispute.id}); its money was charged back`);
  }
  return t.amount - t.refundedAmount;
}

/**
 * POST /transaction/{id}/refund. One write job stores the refund (PENDING, due when the rail settles
 * it), debits it from `available` into refunds_in_flight, records `transaction.refunded` and stores the
 * idempotent answer: the charge as its query returns it. A balance that does not cover the refund, or
 * an amount beyond what is refundable, is a 422 and nothing is written. The database refuses the same
 * things again (triggers on refunds, the CHECK on transactions.refunded_amount and on the balance).
 */
export async function refundTransaction(
  s: Services,
  accountId: string,
  transactionId: string,
  input: RefundRequest,
  opts: IdempotentCreateOptions = {},
): Promise<IdempotentResult<{ transaction: TransactionView }>> {
  const idempotencyKey = checkIdempotencyKey(opts.idempotencyKey);
  const rail = railFor(s.config);
  const body = { amount: input.amount ?? null, reason: input.reason ?? null };
  const fingerprint = requestFingerprint(s.masterKey, OPERATION, { transactionId, ...body });

  const answer = await runIdempotent<{ transaction: TransactionView }>(
    s, { accountId, operation: OPERATION, key: idempotencyKey }, fingerprint,
    async (tx) => {
      const at = s.clock.now();
      await requestRefund(tx, rail, { accountId, transactionId, amount: input.amount, reason: input.reason ?? null, at, origin: s.instance });
      return { transaction: (await transactionView(tx, accountId, transactionId))! };
    },
  );
  if (!answer.replayed) wake(s, REFUND_SETTLEMENT_JOB);
  return answer;
}

/** One refund asked of a charge, as the write job that requests it knows it. */
export interface RefundRequestInJob {
  accountId: string;
  transactionId: string;
  /** Cents; without it the whole refundable remainder. */
  amount?: number;
  reason: string | null;
  at: Date;
  /** A `D…` end-to-end id reserved now for the return (an API Pix devolução's rtrId); else the rail gives one when it pays. */
  endToEnd?: string;
  /** The instance requesting it (Services.instance): its settlement pass takes the refund, others after JOB_AFFINITY_MS. */
  origin: string;
}

/**
 * Inside a write job: the refund itself, the one machinery of POST /transaction/{id}/refund and of the
 * API Pix's devoluções. Locks the charge, checks what is refundable, stores the refund (PENDING, due
 * when the rail settles it), debits it from `available` into refunds_in_flight and records
 * `transaction.refunded`. The caller wakes REFUND_SETTLEMENT_JOB once the job has committed.
 */
export async function requestRefund(tx: Stores, rail: PixRail | null, r: RefundRequestInJob): Promise<{ id: string; amount: number }> {
  const { accountId, transactionId, at } = r;
  const iso = at.toISOString();
  const left = await refundable(tx, accountId, transactionId);
  if (left === 0) throw new DomainError('INVALID_STATE', 'the transaction is already fully refunded');
  const amount = r.amount ?? left;
  if (amount > left) {
    throw new DomainError('UNPROCESSABLE', `amount: at most ${left} cents of this transaction can still be refunded`, {
      issues: [{ path: 'amount', message: `at most ${left} cents can still be refunded` }],
    });
  }
  const id = newId('refund');
  await tx.refunds.insertRefund({
    id, accountId, transactionId, amount, reason: r.reason, status: 'PENDING', endToEnd: r.endToEnd ?? null,
    // without a rail the refund is due at once: whichever rail is configured next picks it up
    dueAt: (rail ? rail.firstAttemptAt(at) : at).toISOString(), createdAt: iso, updatedAt: iso,
  }, r.origin);
  try {
    await transfer(tx, {
      accountId, kind: 'refund_requested', resourceId: id, amount, at,
      from: { account: accountId, book: 'available' }, to: { account: accountId, book: 'refunds_in_flight' },
      description: `refund of ${transactionId}`,
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'INSUFFICIENT_FUNDS') {
      throw new DomainError('INSUFFICIENT_FUNDS', `the available balance does not cover a refund of ${amount} cents`);
    }
    throw err;
  }
  await tx.refunds.touchCharge(transactionId, iso);
  await recordTransactionEvent(tx, accountId, transactionId, 'transaction.refunded', at);
  return { id, amount };
}

/** Refunds settled per pass: bounds one pass's rail calls and its commit group. */
export const REFUND_PASS_SIZE = 25;
export const REFUND_RAIL_RETRY_MS = 30_000;

/** The refunds' claim, in the shape claimDue (rails/pass.ts) runs for every kind of row the rail settles. */
const refundClaims = (tx: Stores): ClaimStatements<RefundOrder> => ({
  anyDue: { execute: async (due) => ((await tx.refunds.anyDue(due)) ? [due.now] : []) },
  claim: { execute: async (c) => (await tx.refunds.claimDue(c)).map((id) => ({ id })) },
  orders: { execute: ({ ids }) => tx.refunds.orders(JSON.parse(ids) as string[]) },
});

/**
 * Claims up to `limit` refunds due for this instance (its own, unclaimed ones, another's past
 * JOB_AFFINITY_MS; claimDue: due_at moved forward by the lease, claimed_by stamped, rows other claims
 * hold skipped) and returns what the rail needs to pay them back.
 */
export async function claimDueRefundOrders(s: Services, now: Date, limit = REFUND_PASS_SIZE): Promise<RefundOrder[]> {
  return claimDue(s, refundClaims, now, limit);
}

/**
 * Applies one rail outcome in one write job: the refund's status, its ledger entry (refunds_in_flight
 * → refunds_out when paid, → available when failed: the money comes back, unless a dispute holds the
 * charge: see failedRefundReturn), the charge's updated_at and the event. The refund must still be PENDING, so an outcome applied twice moves money once.
 */
export async function applyRefundOutcome(s: Services, order: RefundOrder, outcome: RefundOutcome): Promise<boolean> {
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    // the charge's row lock: one outcome per refund, and a dispute resolved meanwhile is seen as it is
    const r = await tx.refunds.lockForOutcome(order.transactionId, order.refundId);
    if (!r || r.status !== 'PENDING') return false;
    const { accountId, transactionId, amount } = r;
    if (outcome.status === 'PENDING') {
      await tx.refunds.retryAt(order.refundId, outcome.retryAt.toISOString(), iso);
      return true;
    }
    if (outcome.status === 'PAID') {
      await tx.refunds.markPaid(order.refundId, outcome.endToEndId, iso);
      await transfer(tx, {
        accountId, kind: 'refund_paid', resourceId: order.refundId, amount, at,
        from: { account: accountId, book: 'refunds_in_flight' }, to: { system: 'refunds_out' },
        description: outcome.endToEndId ? `refund paid (${outcome.endToEndId})` : 'refund paid',
      });
    } else {
      // read before the update: its trigger grows an open or lost dispute's amount by this refund
      const dispute = await tx.refunds.holdingDispute(transactionId);
      await tx.refunds.markFailed(order.refundId, outcome.reason.slice(0, 500), iso);
      await transfer(tx, { accountId, resourceId: order.refundId, amount, at, from: { account: accountId, book: 'refunds_in_flight' }, ...failedRefundReturn(accountId, dispute) });
    }
    await tx.refunds.touchCharge(transactionId, iso);
    await recordTransactionEvent(tx, accountId, transactionId, outcome.status === 'PAID' ? 'transaction.refund_paid' : 'transaction.refund_failed', at);
    await notifyDevolucaoSettled(tx, order.refundId, at);
    return true;
  });
}

/**
 * Where a failed refund's amount goes. Normally back to `available`. A dispute opened while it was
 * pending held the charge's total minus refunds counting this one (docs/decisions.md "Refunds"), so the amount
 * the refund no longer gives back must be disputed too: into the hold (`blocked`) while the dispute is
 * open, to the chargeback once it is lost; either way refunds plus the hold stay equal to the total.
 * The dispute's amount grows by it in the same statement (trigger refunds_failed).
 */
function failedRefundReturn(accountId: string, dispute: HoldingDispute | null): { kind: LedgerEntryKind; to: BookRef; description: string } {
  if (dispute?.status === 'OPEN') {
    return { kind: 'refund_failed_held', to: { account: accountId, book: 'blocked' as const }, description: `refund failed: amount held by dispute ${dispute.id}` };
  }
  if (dispute?.status === 'LOST') {
    return { kind: 'refund_failed_chargeback', to: { system: 'chargebacks' as const }, description: `refund failed: amount charged back by dispute ${dispute.id}` };
  }
  return { kind: 'refund_failed', to: { account: accountId, book: 'available' as const }, description: 'refund failed: amount returned' };
}

/**
 * One pass of the refund settlement job, exactly like the withdrawal one: claimed refunds, the rail asked
 * about each, each outcome applied in its own job (a crash leaves the refund PENDING, due again when its
 * lease runs out).
 */
export async function runRefundPass(s: Services, rail: PixRail, limit = REFUND_PASS_SIZE): Promise<number> {
  const now = s.clock.now();
  return settleWithRail<RefundOrder, RefundOutcome>({
    job: 'refunds',
    orders: await claimDueRefundOrders(s, now, limit),
    idOf: (order) => `refund ${order.refundId}`,
    ask: (order) => rail.refund(order, now),
    later: () => ({ status: 'PENDING', retryAt: new Date(now.getTime() + REFUND_RAIL_RETRY_MS) }),
    apply: (order, outcome) => applyRefundOutcome(s, order, outcome),
  });
}
