import type { Services } from '../../services';
import { recordTransactionEvent } from './create';

export const EXPIRY_BATCH = 100;

/**
 * One pass of the expiry job: PENDING Pix charges whose `expires_at` has passed become REFUSED
 * (refused_reason "expired") with a `transaction.expired` event. The read connection says whether any
 * is due (transactions_expiry_idx); then one write job claims and expires them in one update, the due
 * rows selected under the write (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so instances running this
 * pass together each expire different charges, a payment that won the race is left alone (the row no
 * longer matches), and a restart simply finds the same rows again. The whole claim is inside one job,
 * so there is no lease to lose. Returns how many expired.
 */
export async function expireDuePixCharges(s: Services, limit = EXPIRY_BATCH): Promise<number> {
  const now = s.clock.now().toISOString();
  if (!(await s.db.read.transactions.anyExpiryDue(now))) return 0;
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const expired = await tx.transactions.expireDue(at.toISOString(), limit);
    // events in expiry order (RETURNING promises none)
    expired.sort((a, b) => (a.expiresAt! < b.expiresAt! ? -1 : a.expiresAt! > b.expiresAt! ? 1 : 0));
    for (const t of expired) await recordTransactionEvent(tx, t.accountId, t.id, 'transaction.expired', at);
    return expired.length;
  });
}
