import { sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../client';
import { handleOf, type OnHandle } from '../stores/handle-of';
import {
  burstFor, GROWING_DELAY, SIGN_IN_ATTEMPTS_PER_ADDRESS, SIGN_IN_FAILURES_FORGOTTEN_MS, TOKEN_ATTEMPTS_PER_ADDRESS,
  type AttemptLimit, type PasswordLimits, type RateLimits, type RequestRate,
} from '../../contract/rate-limits';

/** The PostgreSQL handle behind a DrizzleDb (db/pg/open.ts casts it once). */
type Executes = { execute(query: SQL): Promise<Record<string, unknown>[]> };

/** How long a sign-in check holds its email before another instance may assume it died mid-check. */
export const SIGN_IN_LEASE_MS = 30_000;
/** Expired rows are deleted at most this often by one instance. */
export const PURGE_EVERY_MS = 60_000;

/**
 * The limits of db/memory-rate-limits.ts as rows of one PostgreSQL, shared by every instance on it
 * (docs/decisions.md "Engines": two instances together accept no more than the configured rate). Each check
 * is one statement, one round trip: an `INSERT … ON CONFLICT … DO UPDATE … WHERE <allowed>` that locks the
 * key's row, so concurrent checks of one key, from any instance, queue on that row and none reads a value
 * another is changing. When the update's condition refuses, the same statement reads the row as it stood
 * (its snapshot), for the seconds to wait. Times come from the service's clock (tests inject one), never
 * from the database. The tables are UNLOGGED (scripts/db-generate.sh): a crash only resets the limits.
 */
export class PgRateLimits implements RateLimits {
  readonly perAccount: RequestRate;
  readonly tokenByAddress: AttemptLimit;
  readonly signIn: PasswordLimits;
  private readonly db: Executes;
  private lastPurge = -Infinity;
  private purging: Promise<void> | null = null;

  constructor(on: OnHandle, rps: number, private readonly now: () => number = Date.now) {
    this.db = handleOf(on) as unknown as Executes;
    this.perAccount = { take: (key) => this.take(key, rps) };
    this.tokenByAddress = this.attempts('token', TOKEN_ATTEMPTS_PER_ADDRESS);
    this.signIn = {
      begin: (address, email) => this.beginSignIn(address, email),
      settle: (address, email, ok) => this.settleSignIn(address, email, ok),
      failures: async (email) => {
        const [row] = await this.db.execute(sql`SELECT failures FROM limit_sign_in_delays WHERE key = ${email}`);
        return row ? Number(row.failures) : 0;
      },
    };
  }

  /**
   * GCRA: a key's row holds its theoretical arrival time (TAT). A request at `now` is allowed when
   * TAT − now ≤ τ, where τ = (burst − 1)·T and T = 1/rate; allowing it moves TAT to max(TAT, now) + T.
   * So a quiet key takes `burst` requests at once, then one every T: the token bucket of MemoryRateLimits.
   */
  private async take(key: string, rps: number): Promise<number | null> {
    if (rps <= 0) return null;
    const t = this.now();
    this.purgeNow(t);
    const nowUs = Math.round(t * 1000);
    const periodUs = Math.max(1, Math.round(1_000_000 / rps));
    const toleranceUs = Math.max(0, Math.round(burstFor(rps) - 1)) * periodUs;
    const [row] = await this.db.execute(sql`
      WITH taken AS (
        INSERT INTO limit_buckets AS b (key, tat_us) VALUES (${key}, ${nowUs}::bigint + ${periodUs}::bigint)
        ON CONFLICT (key) DO UPDATE SET tat_us = greatest(b.tat_us, ${nowUs}::bigint) + ${periodUs}::bigint
        WHERE b.tat_us <= ${nowUs}::bigint + ${toleranceUs}::bigint
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM taken) AS ok, (SELECT tat_us FROM limit_buckets WHERE key = ${key}) AS tat_us`);
    if (row.ok) return null;
    const waitUs = Number(row.tat_us ?? 0) - toleranceUs - nowUs;
    return Math.max(1, Math.ceil(waitUs / 1_000_000));
  }

  /**
   * AttemptWindow (db/memory-rate-limits.ts) over rows: `kind` names the limit. The statement counts the
   * attempt unless the window is full; RETURNING gives the count with it (null: refused).
   */
  private countAttempt(kind: string, key: string, limit: { max: number; windowMs: number }, t: number): SQL {
    return sql`
      INSERT INTO limit_attempts AS a (kind, key, attempts, window_ends_ms)
      VALUES (${kind}, ${key}, 1, ${t}::bigint + ${limit.windowMs}::bigint)
      ON CONFLICT (kind, key) DO UPDATE SET
        attempts = CASE WHEN a.window_ends_ms <= ${t}::bigint THEN 1 ELSE a.attempts + 1 END,
        window_ends_ms = CASE WHEN a.window_ends_ms <= ${t}::bigint THEN ${t}::bigint + ${limit.windowMs}::bigint ELSE a.window_ends_ms END
      WHERE a.window_ends_ms <= ${t}::bigint OR a.attempts < ${limit.max}::int
      RETURNING attempts`;
  }

  private attempts(kind: string, limit: { max: number; windowMs: number }): AttemptLimit {
    return {
      attempt: async (key) => {
        const t = this.now();
        this.purgeNow(t);
        const [row] = await this.db.execute(sql`
          WITH counted AS (${this.countAttempt(kind, key, limit, t)})
          SELECT EXISTS (SELECT 1 FROM counted) AS ok,
                 (SELECT window_ends_ms FROM limit_attempts WHERE kind = ${kind} AND key = ${key}) AS window_ends_ms`);
        if (row.ok) return null;
        return Math.max(1, Math.ceil((Number(row.window_ends_ms ?? 0) - t) / 1000));
      },
      succeeded: (key) => this.uncount(kind, key),
    };
  }

  private async uncount(kind: string, key: string): Promise<void> {
    await this.db.execute(sql`UPDATE limit_attempts SET attempts = attempts - 1 WHERE kind = ${kind} AND key = ${key} AND attempts > 0`);
  }

  /**
   * PasswordLimits.begin in one statement: the address's window (AttemptWindow) counts the attempt, and
   * only if it did, the email's row (GrowingDelay) begins the check. The address's row stays locked until
   * the statement commits, so attempts from one address, on any instance, pass here one at a time: the
   * first is the clean one (its count is 1) and the next find its check in flight.
   *
   * A check in flight is counted in `in_flight` under a lease of SIGN_IN_LEASE_MS (renewed by every
   * begin): while it holds, attempts that are not clean wait, so concurrent guesses cannot slip in before
   * the first failure is recorded; if an instance dies mid-check the email is free when the lease runs out.
   * Clean attempts are never refused (docs/decisions.md "Sign-in and token limits": failures from elsewhere never keep the right person out).
   */
  private async beginSignIn(address: string, email: string): Promise<number | null> {
    const t = this.now();
    this.purgeNow(t);
    const idle = sql`(d.in_flight = 0 OR d.lease_ends_ms <= ${t}::bigint)`;
    const forgotten = sql`(${idle} AND ${t}::bigint - d.last_failure_ms >= ${SIGN_IN_FAILURES_FORGOTTEN_MS}::bigint)`;
    const [row] = await this.db.execute(sql`
      WITH counted AS (${this.countAttempt('sign-in', address, SIGN_IN_ATTEMPTS_PER_ADDRESS, t)}),
      begun AS (
        INSERT INTO limit_sign_in_delays AS d (key, failures, not_before_ms, last_failure_ms, in_flight, lease_ends_ms)
        SELECT ${email}, 0, 0, ${t}::bigint, 1, ${t}::bigint + ${SIGN_IN_LEASE_MS}::bigint FROM counted
        ON CONFLICT (key) DO UPDATE SET
          failures = CASE WHEN ${forgotten} THEN 0 ELSE d.failures END,
          not_before_ms = CASE WHEN ${forgotten} THEN 0 ELSE d.not_before_ms END,
          last_failure_ms = CASE WHEN ${forgotten} THEN ${t}::bigint ELSE d.last_failure_ms END,
          in_flight = CASE WHEN d.lease_ends_ms <= ${t}::bigint THEN 1 ELSE d.in_flight + 1 END,
          lease_ends_ms = ${t}::bigint + ${SIGN_IN_LEASE_MS}::bigint
        WHERE (SELECT attempts FROM counted) = 1 OR (${idle} AND d.not_before_ms <= ${t}::bigint)
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM counted) AS counted, EXISTS (SELECT 1 FROM begun) AS begun,
             (SELECT window_ends_ms FROM limit_attempts WHERE kind = 'sign-in' AND key = ${address}) AS window_ends_ms,
             (SELECT not_before_ms FROM limit_sign_in_delays WHERE key = ${email}) AS not_before_ms`);
    if (row.begun) return null;
    // refused by the email, the attempt stays counted against its address: trying harder only slows it down
    const until = row.counted ? Number(row.not_before_ms ?? 0) : Number(row.window_ends_ms ?? 0);
    return Math.max(1, Math.ceil((until - t) / 1000));
  }

  /** PasswordLimits.settle: the check is no longer in flight; a failure pushes the next check out (growingDelayMs). */
  private async settleSignIn(address: string, email: string, ok: boolean): Promise<void> {
    const t = this.now();
    // after n failures the next check waits first·2^(n−1), capped (growingDelayMs); `failures` is n − 1 here
    const delay = sql`least(${GROWING_DELAY.maxMs}::bigint, (${GROWING_DELAY.firstMs}::bigint * power(2, least(failures, 30)))::bigint)`;
    await this.db.execute(sql`
      UPDATE limit_sign_in_delays SET
        in_flight = CASE WHEN lease_ends_ms <= ${t}::bigint THEN 0 ELSE greatest(0, in_flight - 1) END,
        failures = CASE WHEN ${ok}::boolean THEN 0 ELSE failures + 1 END,
        not_before_ms = CASE WHEN ${ok}::boolean THEN 0 ELSE greatest(not_before_ms, ${t}::bigint + ${delay}) END,
        last_failure_ms = CASE WHEN ${ok}::boolean THEN last_failure_ms ELSE ${t}::bigint END
      WHERE key = ${email}`);
    if (ok) await this.uncount('sign-in', address);
  }

  /**
   * Deletes the rows that say nothing any more (a row's absence means the same), at most once per
   * PURGE_EVERY_MS on this instance's clock, in the background of the call that notices it is due.
   */
  private purgeNow(t: number) {
    if (t - this.lastPurge < PURGE_EVERY_MS || this.purging) return;
    this.lastPurge = t;
    this.purging = this.purge(t).catch(() => {}).finally(() => { this.purging = null; });
  }

  /** The purge itself (tests call it directly). */
  async purge(t: number = this.now()): Promise<void> {
    const nowUs = Math.round(t * 1000);
    await this.db.execute(sql`DELETE FROM limit_buckets WHERE tat_us <= ${nowUs}::bigint`);
    await this.db.execute(sql`DELETE FROM limit_attempts WHERE window_ends_ms <= ${t}::bigint`);
    await this.db.execute(sql`DELETE FROM limit_sign_in_delays
      WHERE (in_flight = 0 OR lease_ends_ms <= ${t}::bigint) AND not_before_ms <= ${t}::bigint
        AND last_failure_ms <= ${t}::bigint - ${SIGN_IN_FAILURES_FORGOTTEN_MS}::bigint`);
  }

  /** Waits for a purge in progress (so a test or a closing process leaves no statement running). */
  async settled(): Promise<void> {
    await this.purging;
  }
}
