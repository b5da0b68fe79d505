import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { DELIVERY_STATUSES, DELIVERY_TARGETS } from '../../contract/enums';

/** Webhook endpoints, the deliveries of events to them (and to postback URLs), and each attempt. */
export function webhookTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts, events }: { accounts: { id: unknown }; events: { id: unknown } }) {
  const webhooks = k.table('webhooks', {
    id: k.text('id').primaryKey(), // magic_id
    accountId: k.text('account_id').references(() => accounts.id),
    url: k.text('url'),
    /** AES-GCM encrypted `whsec_…`: it must stay readable to sign deliveries. */
    secretEnc: k.text('secret_enc'),
    /** JSON array of categories: transaction, withdraw, dispute. */
    events: k.text('events'),
    active: k.int('active').default(1),
    /** Set while the merchant has paused the endpoint: no deliveries are created or attempted for it. */
    pausedAt: k.instantOrNull('paused_at'),
    /** The secret before the last rotation (encrypted), still signed with until `previous_secret_expires_at`. */
    previousSecretEnc: k.textOrNull('previous_secret_enc'),
    previousSecretExpiresAt: k.instantOrNull('previous_secret_expires_at'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
    deletedAt: k.instantOrNull('deleted_at'),
  }, (t) => [
    k.index('webhooks_account_idx').on(t.accountId),
    k.check('webhooks_active_bool', sql`${t.active} IN (0, 1)`),
  ]);

  /** One event to one target (a webhook or a resource's postback URL). */
  const deliveries = k.table('deliveries', {
    id: k.text('id').primaryKey(),
    eventId: k.text('event_id').references(() => events.id),
    eventSeq: k.cents('event_seq'),
    accountId: k.text('account_id').references(() => accounts.id),
    webhookId: k.textOrNull('webhook_id').references(() => webhooks.id),
    target: k.enumText('target', DELIVERY_TARGETS),
    url: k.text('url'),
    /** Events of one resource go to one target in order; this is the ordering key. */
    resourceId: k.text('resource_id'),
    status: k.enumText('status', DELIVERY_STATUSES),
    attempts: k.int('attempts').default(0),
    /** When the next attempt is due; NULL while PENDING behind an earlier delivery of its queue (or once finished). */
    nextAttemptAt: k.instantOrNull('next_attempt_at'),
    lastStatusCode: k.intOrNull('last_status_code'),
    /** Why the last attempt failed, or why the delivery stopped (webhook disabled or deleted). */
    lastError: k.textOrNull('last_error'),
    /** 1 while a by-hand resend is queued: that one attempt is final, it starts no retry schedule. */
    manual: k.int('manual').default(0),
    /**
     * PostgreSQL: while an instance sends this delivery, until when its claim holds (renewed while the send
     * is in flight, cleared when the attempt is recorded); past it another instance takes the delivery over.
     * Always NULL on SQLite, whose one delivering process keeps what it sends in memory.
     */
    leaseExpiresAt: k.instantOrNull('lease_expires_at'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    // (no index on event_id: deliveries are joined to their event, never found by it, and events are
    // never deleted, so no foreign-key check ever searches deliveries by it)
    k.index('deliveries_due_idx').on(t.status, t.nextAttemptAt),
    // the fair sender's walk over the accounts with due work, and each account's oldest due heads
    k.index('deliveries_account_due_idx').on(t.status, t.accountId, t.nextAttemptAt),
    k.index('deliveries_order_idx').on(t.url, t.resourceId, t.status, t.eventSeq),
    k.index('deliveries_webhook_idx').on(t.webhookId, t.createdAt),
    // the postback delivery log (webhooks.postbackDeliveries)
    k.index('deliveries_account_target_idx').on(t.accountId, t.target, t.createdAt),
    k.check('deliveries_manual_bool', sql`${t.manual} IN (0, 1)`),
    k.check('deliveries_attempts_nonneg', sql`${t.attempts} >= 0`),
  ]);

  const deliveryAttempts = k.table('delivery_attempts', {
    id: k.serial('id'),
    deliveryId: k.text('delivery_id').references(() => deliveries.id),
    attemptedAt: k.instant('attempted_at'),
    statusCode: k.intOrNull('status_code'),
    durationMs: k.int('duration_ms'),
    /** First 1 KiB of the receiver's answer. */
    responseExcerpt: k.textOrNull('response_excerpt'),
    error: k.textOrNull('error'),
  }, (t) => [k.index('delivery_attempts_delivery_idx').on(t.deliveryId, t.id)]);

  return { webhooks, deliveries, deliveryAttempts };
}
