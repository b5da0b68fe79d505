import type { Stores } from '../../../db';
import type { DueClaim, DueHere } from '../../../db/stores/claims';
import { log } from '../../log';
import type { Services } from '../../services';

/** The prepared statements of one kind of row the rail settles (withdrawal batches, refunds). */
export interface ClaimStatements<O> {
  /**
   * Any one row due for this instance, on the read connection: an idle pass writes nothing. Every kind of
   * row keeps an affinity (claimed_by: the instance that created or last claimed it; db/stores/claims.ts
   * dueHere, one condition for all): another instance's row is due here only once due before
   * `foreignDueBefore`, so a busy, stopped or dead instance's work still moves.
   */
  anyDue: { execute(values: DueHere): Promise<unknown[]> };
  /** Moves up to `limit` rows due for this instance to `leaseUntil` and stamps `instance`; returns their ids. */
  claim: { execute(values: DueClaim): Promise<{ id: string }[]> };
  /** What the rail needs of the rows with these ids (a JSON array). */
  orders: { execute(values: { ids: string }): Promise<O[]> };
}

/**
 * Claims up to `limit` due rows for this instance in one write job and returns their orders. A claim
 * moves the row's due_at forward by the lease (JOB_LEASE_MS) and stamps claimed_by: other instances'
 * passes skip it meanwhile (on PostgreSQL they also skip the rows a concurrent claim holds, FOR UPDATE
 * SKIP LOCKED, rather than wait for them), and if this instance dies before applying an outcome, the row
 * falls due again when the lease runs out and another instance takes it over.
 */
export async function claimDue<O>(s: Services, statements: (tx: Stores) => ClaimStatements<O>, now: Date, limit: number): Promise<O[]> {
  const iso = now.toISOString();
  const due: DueHere = { now: iso, instance: s.instance, foreignDueBefore: new Date(now.getTime() - s.config.jobAffinityMs).toISOString() };
  if ((await statements(s.db.read).anyDue.execute(due)).length === 0) return [];
  return s.db.write(async (tx) => {
    const st = statements(tx);
    const leaseUntil = new Date(now.getTime() + s.config.jobLeaseMs).toISOString();
    const claimed = await st.claim.execute({ ...due, limit, leaseUntil });
    if (claimed.length === 0) return [];
    return st.orders.execute({ ids: JSON.stringify(claimed.map((c) => c.id)) });
  });
}

/**
 * One pass of a settlement job over due rows: ask the rail about each order (outside any write job:
 * for a real PSP that is network), then apply every outcome as its own write job, queued together so
 * they share one commit. A rail call that throws becomes "ask again at now + retryMs". Returns how many
 * outcomes were applied, so a failing write cannot make the job loop spin.
 */
export async function settleWithRail<O, R>(o: {
  job: string;
  orders: O[];
  idOf: (order: O) => string;
  ask: (order: O) => Promise<R>;
  later: () => R;
  apply: (order: O, outcome: R) => Promise<boolean>;
}): Promise<number> {
  if (o.orders.length === 0) return 0;
  const outcomes = await Promise.all(o.orders.map(async (order) => {
    try {
      return await o.ask(order);
    } catch (err) {
      log.error({ err, job: o.job, order: o.idOf(order) }, 'the rail failed; retrying later');
      return o.later();
    }
  }));
  const applied = await Promise.allSettled(o.orders.map((order, i) => o.apply(order, outcomes[i])));
  let handled = 0;
  for (const [i, r] of applied.entries()) {
    if (r.status === 'fulfilled') handled += 1;
    else log.error({ err: r.reason, job: o.job, order: o.idOf(o.orders[i]) }, 'could not apply the outcome');
  }
  return handled;
}
