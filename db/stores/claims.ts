// The one condition of the rows the settlement pass claims (withdrawal batches, refunds): which are due for
// this instance. Both stores build their probe and their claim on it, on both engines.
import { and, eq, isNull, lte, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';

/**
 * The values every due-here statement is run with (rails/pass.ts claimDue computes them). A type, not an
 * interface: a prepared statement takes a Record<string, unknown>, which an interface does not satisfy.
 */
export type DueHere = {
  now: string;
  /** This instance's name (Services.instance), as claimed_by holds it. */
  instance: string;
  /** now − JOB_AFFINITY_MS: another instance's rows are due here only if due before this. */
  foreignDueBefore: string;
};

/** A claim of the rows due here: how many at most, and the lease they are claimed until. */
export type DueClaim = DueHere & { limit: number; leaseUntil: string };

/** The columns of a kind of row the rail settles that the claim looks at. */
export interface ClaimedColumns { status: AnyColumn; dueAt: AnyColumn; claimedBy: AnyColumn }

/**
 * PENDING rows due for this instance (placeholders `now`, `instance`, `foreignDueBefore`): those it created
 * or last claimed (claimed_by), unclaimed ones, and another instance's once they have been due for
 * JOB_AFFINITY_MS (that instance is busy, stopped or gone). The first two terms keep the due index usable:
 * status and due_at lead.
 */
export function dueHere(t: ClaimedColumns): SQL {
  const ph = (name: keyof DueHere) => sql.placeholder(name);
  return and(eq(t.status, 'PENDING'), lte(t.dueAt, ph('now')),
    or(eq(t.claimedBy, ph('instance')), isNull(t.claimedBy), lte(t.dueAt, ph('foreignDueBefore'))))!;
}
