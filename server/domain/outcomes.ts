import type { Stores } from '../../db';

/**
 * Final outcomes of withdrawals and transactions, announced once the job that reached them has
 * committed (a rolled-back job announces nothing). Operations counts them (metrics); the domain only
 * reports them, and knows nothing of who listens.
 */
export type Outcome =
  | { resource: 'withdrawal'; status: 'PAID' | 'PARTIALLY_PAID' | 'ERROR' }
  | { resource: 'transaction'; status: 'APPROVED' | 'REFUSED' }; // an expired charge is REFUSED

const listeners = new Set<(o: Outcome) => void>();

export function onOutcome(fn: (o: Outcome) => void): () => void {
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

/** Call inside the write job that reaches the outcome. */
export function reportOutcome(tx: Stores, o: Outcome): void {
  if (listeners.size === 0) return;
  tx.afterCommit(() => { for (const l of listeners) l(o); });
}
