import { and, asc, eq, isNotNull, lte, sql } from 'drizzle-orm';
import { perConnection } from '../../../db/prepared';
import { touched } from '../../../db/query';
import { transactions } from '../../../db/schema';
import type { Services } from '../../services';
import { recordTransactionEvent } from './create';

export const EXPIRY_BATCH = 100;

const ph = (name: string) => sql.placeholder(name);
const statements = perConnection((db) => ({
  due: db.select({ id: transactions.id, accountId: transactions.accountId }).from(transactions)
    .where(and(eq(transactions.status, 'PENDING'), isNotNull(transactions.expiresAt), lte(transactions.expiresAt, ph('now'))))
    .orderBy(asc(transactions.expiresAt)).limit(ph('limit')).prepare(),
  expire: db.update(transactions).set({ status: 'REFUSED', refusedReason: 'expired', updatedAt: ph('at') as unknown as string })
    .where(and(eq(transactions.id, ph('id')), eq(transactions.status, 'PENDING'), lte(transactions.expiresAt, ph('at'))))
    .returning({ id: transactions.id }).prepare(),
}));

/**
 * One pass of the expiry job: PENDING Pix charges whose `expires_at` has passed become REFUSED
 * (refused_reason "expired") with a `transaction.expired` event. Due rows are found on the read
 * connection (transactions_expiry_idx), then each is re-checked and changed inside one write job by
 * an update conditional on PENDING and due, so a payment that won the race is left alone and a
 * restart simply finds the same rows again. Returns how many expired.
 */
export async function expireDuePixCharges(s: Services, limit = EXPIRY_BATCH): Promise<number> {
  const now = s.clock.now().toISOString();
  const due = await statements(s.db.read).due.execute({ now, limit });
  if (!due.length) return 0;
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    const expire = statements(tx).expire;
    let expired = 0;
    for (const t of due) {
      if (await touched(expire.execute({ id: t.id, at: iso })) !== 1) continue;
      await recordTransactionEvent(tx, t.accountId, t.id, 'transaction.expired', at);
      expired += 1;
    }
    return expired;
  });
}
