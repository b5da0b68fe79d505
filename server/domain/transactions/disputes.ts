import type { Stores } from '../../../db';
import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { recordEvent } from '../events';
import { newId } from '../ids';
import { transfer } from '../ledger';
import { requireSandbox } from './pay';
import { toDisputeView, type DisputeView } from './view';

async function recordDisputeEvent(tx: Stores, accountId: string, id: string, type: 'dispute.opened' | 'dispute.won' | 'dispute.lost', at: Date) {
  const row = await tx.transactions.dispute(id);
  if (!row) throw new DomainError('INTERNAL', 'dispute vanished inside its own job');
  const view = toDisputeView(row);
  await recordEvent(tx, { accountId, type, resourceId: id, payload: view, at });
  return view;
}

/**
 * POST /sandbox/transactions/{id}/dispute: the cardholder disputes an APPROVED CARD transaction. Its
 * total minus what was already refunded moves available → blocked whatever the balance: a dispute is
 * always recorded, and when `available` does not cover the hold it goes below zero (the one movement the
 * ledger allows to do that; later credits cover the shortfall, withdrawals and refunds wait). One
 * dispute per transaction, ever: a second one is 409.
 */
export async function openDispute(s: Services, accountId: string, transactionId: string): Promise<DisputeView> {
  requireSandbox(s);
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    // PostgreSQL runs jobs concurrently: the charge's row lock serializes its refunds, disputes and payment
    const t = await tx.transactions.lockForDispute(accountId, transactionId);
    if (!t) throw new DomainError('NOT_FOUND', 'transaction not found');
    if (t.method !== 'CARD' || t.status !== 'APPROVED') {
      throw new DomainError('INVALID_STATE', 'only an APPROVED CARD transaction can be disputed');
    }
    const existing = await tx.transactions.disputeIdOf(t.id);
    if (existing) throw new DomainError('CONFLICT', `this transaction already has a dispute (${existing})`);
    // docs/decisions.md "Refunds": the hold is what refunds have not already given back (a trigger checks it too)
    const hold = t.amount - t.refundedAmount;
    if (hold <= 0) throw new DomainError('INVALID_STATE', 'the transaction is fully refunded: nothing is left to dispute');
    const id = newId('dispute');
    await tx.transactions.insertDispute({ id, accountId, transactionId: t.id, status: 'OPEN', amount: hold, createdAt: iso, updatedAt: iso });
    await transfer(tx, {
      accountId, kind: 'dispute_hold', resourceId: id, description: `dispute on ${t.id}`,
      from: { account: accountId, book: 'available' }, to: { account: accountId, book: 'blocked' }, amount: hold, at,
    });
    return recordDisputeEvent(tx, accountId, id, 'dispute.opened', at);
  });
}

export type DisputeOutcome = 'won' | 'lost';

/**
 * POST /sandbox/disputes/{id}/{won|lost}: won releases the hold (blocked → available); lost keeps it
 * (blocked → the chargebacks system book). Resolving again with the same outcome answers the dispute
 * unchanged; the other outcome on a closed dispute is 422 INVALID_STATE.
 */
export async function resolveDispute(s: Services, accountId: string, disputeId: string, outcome: DisputeOutcome): Promise<DisputeView> {
  requireSandbox(s);
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    // the charge's row lock (as refunds take it), then the dispute as it is now: a refund failing meanwhile grows its amount
    const d = await tx.transactions.lockDispute(accountId, disputeId);
    if (!d) throw new DomainError('NOT_FOUND', 'dispute not found');
    const target = outcome === 'won' ? 'WON' : 'LOST';
    if (d.status === target) return toDisputeView(d);
    if (d.status !== 'OPEN') throw new DomainError('INVALID_STATE', `the dispute is already ${d.status}`);
    if (!(await tx.transactions.closeDispute(d.id, { status: target, updatedAt: at.toISOString() }))) {
      throw new DomainError('INVALID_STATE', 'the dispute changed while being resolved');
    }
    await transfer(tx, {
      accountId, kind: outcome === 'won' ? 'dispute_release' : 'chargeback', resourceId: d.id,
      description: `dispute ${outcome} on ${d.transactionId}`,
      from: { account: accountId, book: 'blocked' },
      to: outcome === 'won' ? { account: accountId, book: 'available' } : { system: 'chargebacks' },
      amount: d.amount, at,
    });
    return recordDisputeEvent(tx, accountId, d.id, outcome === 'won' ? 'dispute.won' : 'dispute.lost', at);
  });
}
