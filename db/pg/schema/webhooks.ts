import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { events } from './platform';
import { cents, timestamp } from './columns';
import { DELIVERY_STATUSES, DELIVERY_TARGETS } from '../../../server/domain/enums';

// Mirrors db/schema/webhooks.ts.

export const webhooks = pgTable('webhooks', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  url: text('url').notNull(),
  secretEnc: text('secret_enc').notNull(),
  events: text('events').notNull(),
  active: integer('active').notNull().default(1),
  pausedAt: timestamp('paused_at'),
  previousSecretEnc: text('previous_secret_enc'),
  previousSecretExpiresAt: timestamp('previous_secret_expires_at'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
  deletedAt: timestamp('deleted_at'),
}, (t) => [
  index('webhooks_account_idx').on(t.accountId),
  check('webhooks_active_bool', sql`${t.active} IN (0, 1)`),
]);

export const deliveries = pgTable('deliveries', {
  id: text('id').primaryKey(),
  eventId: text('event_id').notNull().references(() => events.id),
  eventSeq: bigint('event_seq', cents).notNull(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  webhookId: text('webhook_id').references(() => webhooks.id),
  target: text('target', { enum: DELIVERY_TARGETS }).notNull(),
  url: text('url').notNull(),
  resourceId: text('resource_id').notNull(),
  status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  manual: integer('manual').notNull().default(0),
  /** While an instance sends this delivery, until when its claim holds (db/schema/webhooks.ts). */
  leaseExpiresAt: timestamp('lease_expires_at'),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  index('deliveries_due_idx').on(t.status, t.nextAttemptAt),
  index('deliveries_account_due_idx').on(t.status, t.accountId, t.nextAttemptAt),
  index('deliveries_order_idx').on(t.url, t.resourceId, t.status, t.eventSeq),
  index('deliveries_webhook_idx').on(t.webhookId, t.createdAt),
  index('deliveries_account_target_idx').on(t.accountId, t.target, t.createdAt),
  check('deliveries_manual_bool', sql`${t.manual} IN (0, 1)`),
  check('deliveries_attempts_nonneg', sql`${t.attempts} >= 0`),
]);

export const deliveryAttempts = pgTable('delivery_attempts', {
  id: bigint('id', cents).primaryKey().generatedByDefaultAsIdentity(),
  deliveryId: text('delivery_id').notNull().references(() => deliveries.id),
  attemptedAt: timestamp('attempted_at').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms').notNull(),
  responseExcerpt: text('response_excerpt'),
  error: text('error'),
}, (t) => [index('delivery_attempts_delivery_idx').on(t.deliveryId, t.id)]);
