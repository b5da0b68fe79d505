import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { events } from './platform';
import { DELIVERY_STATUSES, DELIVERY_TARGETS } from '../../server/domain/enums';

export const webhooks = sqliteTable('webhooks', {
  id: text('id').primaryKey(), // magic_id
  accountId: text('account_id').notNull().references(() => accounts.id),
  url: text('url').notNull(),
  /** AES-GCM encrypted `whsec_…`: it must stay readable to sign deliveries. */
  secretEnc: text('secret_enc').notNull(),
  /** JSON array of categories: transaction, withdraw, dispute. */
  events: text('events').notNull(),
  active: integer('active').notNull().default(1),
  /** Set while the merchant has paused the endpoint: no deliveries are created or attempted for it. */
  pausedAt: text('paused_at'),
  /** The secret before the last rotation (encrypted), still signed with until `previous_secret_expires_at`. */
  previousSecretEnc: text('previous_secret_enc'),
  previousSecretExpiresAt: text('previous_secret_expires_at'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  deletedAt: text('deleted_at'),
}, (t) => [
  index('webhooks_account_idx').on(t.accountId),
  check('webhooks_active_bool', sql`${t.active} IN (0, 1)`),
]);

/** One event to one target (a webhook or a resource's postback URL). */
export const deliveries = sqliteTable('deliveries', {
  id: text('id').primaryKey(),
  eventId: text('event_id').notNull().references(() => events.id),
  eventSeq: integer('event_seq').notNull(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  webhookId: text('webhook_id').references(() => webhooks.id),
  target: text('target', { enum: DELIVERY_TARGETS }).notNull(),
  url: text('url').notNull(),
  /** Events of one resource go to one target in order; this is the ordering key. */
  resourceId: text('resource_id').notNull(),
  status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  /** When the next attempt is due; NULL while PENDING behind an earlier delivery of its queue (or once finished). */
  nextAttemptAt: text('next_attempt_at'),
  lastStatusCode: integer('last_status_code'),
  /** Why the last attempt failed, or why the delivery stopped (webhook disabled or deleted). */
  lastError: text('last_error'),
  /** 1 while a by-hand resend is queued: that one attempt is final, it starts no retry schedule. */
  manual: integer('manual').notNull().default(0),
  /**
   * PostgreSQL: while an instance sends this delivery, until when its claim holds (renewed while the send
   * is in flight, cleared when the attempt is recorded); past it another instance takes the delivery over.
   * Always NULL on SQLite, whose one delivering process keeps what it sends in memory.
   */
  leaseExpiresAt: text('lease_expires_at'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  // (no index on event_id: deliveries are joined to their event, never found by it, and events are
  // never deleted, so no foreign-key check ever searches deliveries by it)
  index('deliveries_due_idx').on(t.status, t.nextAttemptAt),
  // the fair sender's walk over the accounts with due work, and each account's oldest due heads
  index('deliveries_account_due_idx').on(t.status, t.accountId, t.nextAttemptAt),
  index('deliveries_order_idx').on(t.url, t.resourceId, t.status, t.eventSeq),
  index('deliveries_webhook_idx').on(t.webhookId, t.createdAt),
  // the postback delivery log (webhooks.postbackDeliveries)
  index('deliveries_account_target_idx').on(t.accountId, t.target, t.createdAt),
  check('deliveries_manual_bool', sql`${t.manual} IN (0, 1)`),
  check('deliveries_attempts_nonneg', sql`${t.attempts} >= 0`),
]);

export const deliveryAttempts = sqliteTable('delivery_attempts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  deliveryId: text('delivery_id').notNull().references(() => deliveries.id),
  attemptedAt: text('attempted_at').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms').notNull(),
  /** First 1 KiB of the receiver's answer. */
  responseExcerpt: text('response_excerpt'),
  error: text('error'),
}, (t) => [index('delivery_attempts_delivery_idx').on(t.deliveryId, t.id)]);
