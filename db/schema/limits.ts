import type { Columns, Dialect, Kit } from './kit';

/**
 * The request and credential limits of db/memory-rate-limits.ts, as rows that every instance on one
 * PostgreSQL shares (db/pg/rate-limits.ts). On SQLite one process serves everything and keeps its limits
 * in memory (MemoryRateLimits), so these tables stay empty there; they exist so that both engines have
 * the same schema. Times are milliseconds (microseconds for `tat_us`) since the epoch, on the service's
 * clock (64-bit: `cents` columns). Losing every row only resets the limits: scripts/db-generate.sh makes
 * them UNLOGGED on PostgreSQL, where they are written on every request.
 */
export function limitTables<D extends Dialect, C extends Columns>(k: Kit<D, C>) {
  /** A request rate per key (an account) by GCRA: the theoretical arrival time of the next request. */
  const limitBuckets = k.table('limit_buckets', {
    key: k.text('key').primaryKey(),
    tatUs: k.cents('tat_us'),
  });

  /** Attempts per key (`kind`: which limit) in a fixed window from the key's first attempt. */
  const limitAttempts = k.table('limit_attempts', {
    kind: k.text('kind'),
    key: k.text('key'),
    attempts: k.int('attempts'),
    windowEndsMs: k.cents('window_ends_ms'),
  }, (t) => [k.primaryKey({ columns: [t.kind, t.key] })]);

  /**
   * The growing delay of sign-in failures per email. A check in flight holds the email (non-clean
   * attempts wait for it) until it settles or its lease runs out (an instance that died mid-check).
   */
  const limitSignInDelays = k.table('limit_sign_in_delays', {
    key: k.text('key').primaryKey(),
    failures: k.int('failures'),
    notBeforeMs: k.cents('not_before_ms'),
    lastFailureMs: k.cents('last_failure_ms'),
    inFlight: k.int('in_flight'),
    leaseEndsMs: k.cents('lease_ends_ms'),
  });

  return { limitBuckets, limitAttempts, limitSignInDelays };
}
