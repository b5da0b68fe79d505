import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { perConnection } from '../../../db/prepared';
import { first, skipLocked } from '../../../db/query';
import { transactions } from '../../../db/schema';
import type { Services } from '../../services';
import { recordTransactionEvent } from './create';

export const EXPIRY_BATCH = 100;

const ph = (name: string) => sql.placeholder(name);
/** PENDING charges whose expires_at is at or before `now` (transactions_expiry_idx). */
const dueCharges = (now: ReturnType<typeof ph>) =>
  and(eq(transactions.status, 'PENDING'), isNotNull(transactions.expiresAt), lte(transactions.expiresAt, now));
const statements = perConnection((db) => ({
  /** Whether any charge is due: an idle pass reads this one row and writes nothing. */
  anyDue: db.select({ id: transactions.id }).from(transactions).where(dueCharges(ph('now'))).limit(1).prepare(),
  /** Expires the oldest due charges that no concurrent job holds (on PostgreSQL another instance's pass skips them). */
  expire: db.update(transactions).set({ status: 'REFUSED', refusedReason: 'expired', updatedAt: ph('at') as unknown as string })
    .where(and(eq(transactions.status, 'PENDING'), inArray(transactions.id, skipLocked(db.select({ id: transactions.id }).from(transactions)
      .where(dueCharges(ph('at'))).orderBy(asc(transactions.expiresAt)).limit(ph('limit'))))))
    .returning({ id: transactions.id, accountId: transactions.accountId, expiresAt: transactions.expiresAt }).prepare(),
}));

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
  if (!(await first(statements(s.db.read).anyDue.execute({ now })))) return 0;
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const expired = await statements(tx).expire.execute({ at: at.toISOString(), limit });
    // events in expiry order (RETURNING promises none)
    expired.sort((a, b) => (a.expiresAt! < b.expiresAt! ? -1 : a.expiresAt! > b.expiresAt! ? 1 : 0));
    for (const t of expired) await recordTransactionEvent(tx, t.accountId, t.id, 'transaction.expired', at);
    return expired.length;
  });
}
