import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { cents } from './columns';

// Mirrors db/schema/limits.ts. scripts/db-generate.sh makes these tables UNLOGGED: losing them in a crash
// only resets the limits, and they are written on every request.

export const limitBuckets = pgTable('limit_buckets', {
  key: text('key').primaryKey(),
  tatUs: bigint('tat_us', cents).notNull(),
});

export const limitAttempts = pgTable('limit_attempts', {
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  attempts: integer('attempts').notNull(),
  windowEndsMs: bigint('window_ends_ms', cents).notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.key] })]);

export const limitSignInDelays = pgTable('limit_sign_in_delays', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  notBeforeMs: bigint('not_before_ms', cents).notNull(),
  lastFailureMs: bigint('last_failure_ms', cents).notNull(),
  inFlight: integer('in_flight').notNull(),
  leaseEndsMs: bigint('lease_ends_ms', cents).notNull(),
});
