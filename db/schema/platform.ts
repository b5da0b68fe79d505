import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { STORED_EVENT_CATEGORIES } from '../../contract/enums';

/**
 * Every state change records one event in the same transaction as the change. `seq` gives a total
 * order, used to deliver a resource's events in the order they happened.
 */
export const events = sqliteTable('events', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  type: text('type').notNull(),
  category: text('category', { enum: STORED_EVENT_CATEGORIES }).notNull(),
  resourceId: text('resource_id').notNull(),
  /** The resource as its GET returns it at the moment of the event (JSON). */
  payload: text('payload').notNull(),
  createdAt: text('created_at').notNull(),
  /** Set once the dispatcher has fanned the event out into deliveries. */
  dispatchedAt: text('dispatched_at'),
  /** The `x-request-id` of the request whose change this event reports (null for background work), for the delivery logs. */
  requestId: text('request_id'),
}, (t) => [
  // Every index here is paid by every write that records an event; each is kept because a plan needs
  // it (test/api/index-plans.test.ts). No query looks events up by resource_id, so it has no index.
  index('events_account_idx').on(t.accountId, t.seq),
  index('events_undispatched_idx').on(t.dispatchedAt, t.seq),
]);

/** Stored answers of idempotent POSTs: written in the same transaction as the effect. */
export const idempotencyKeys = sqliteTable('idempotency_keys', {
  accountId: text('account_id').notNull().references(() => accounts.id),
  /** The named operation (withdrawal.create, …): REST and tRPC share one key space per operation. */
  operation: text('operation').notNull(),
  key: text('key').notNull(),
  /** HMAC of the canonical request; never the request itself (it may hold a card). */
  fingerprint: text('fingerprint').notNull(),
  /** The operation's plain result as JSON; the edge shapes the answer from it, the same bytes each time. */
  result: text('result').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.accountId, t.operation, t.key] }),
  index('idempotency_keys_expires_idx').on(t.expiresAt),
]);
