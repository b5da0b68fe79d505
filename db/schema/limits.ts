import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The request and credential limits of db/memory-rate-limits.ts, as rows that every instance on one
 * PostgreSQL shares (db/pg/rate-limits.ts). On SQLite one process serves everything and keeps its limits
 * in memory (MemoryRateLimits), so these tables stay empty there; they exist so that both engines have
 * the same schema. Times are milliseconds (microseconds for `tat_us`) since the epoch, on the service's
 * clock. Losing every row only resets the limits (PostgreSQL keeps them UNLOGGED).
 */

/** A request rate per key (an account) by GCRA: the theoretical arrival time of the next request. */
export const limitBuckets = sqliteTable('limit_buckets', {
  key: text('key').primaryKey(),
  tatUs: integer('tat_us').notNull(),
});

/** Attempts per key (`kind`: which limit) in a fixed window from the key's first attempt. */
export const limitAttempts = sqliteTable('limit_attempts', {
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  attempts: integer('attempts').notNull(),
  windowEndsMs: integer('window_ends_ms').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.key] })]);

/**
 * The growing delay of sign-in failures per email. A check in flight holds the email (non-clean
 * attempts wait for it) until it settles or its lease runs out (an instance that died mid-check).
 */
export const limitSignInDelays = sqliteTable('limit_sign_in_delays', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  notBeforeMs: integer('not_before_ms').notNull(),
  lastFailureMs: integer('last_failure_ms').notNull(),
  inFlight: integer('in_flight').notNull(),
  leaseEndsMs: integer('lease_ends_ms').notNull(),
});
