import type { Columns, Dialect, Kit } from './kit';
import { STORED_EVENT_CATEGORIES } from '../../contract/enums';

/** The events every change records, and the stored answers of idempotent requests. */
export function platformTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts }: { accounts: { id: unknown } }) {
  /**
   * Every state change records one event in the same transaction as the change. `seq` gives a total
   * order, used to deliver a resource's events in the order they happened.
   */
  const events = k.table('events', {
    seq: k.serial('seq'),
    id: k.text('id').unique(),
    accountId: k.text('account_id').references(() => accounts.id),
    type: k.text('type'),
    category: k.enumText('category', STORED_EVENT_CATEGORIES),
    resourceId: k.text('resource_id'),
    /** The resource as its GET returns it at the moment of the event (JSON). */
    payload: k.text('payload'),
    createdAt: k.instant('created_at'),
    /** Set once the dispatcher has fanned the event out into deliveries. */
    dispatchedAt: k.instantOrNull('dispatched_at'),
    /** The `x-request-id` of the request whose change this event reports (null for background work), for the delivery logs. */
    requestId: k.textOrNull('request_id'),
  }, (t) => [
    // Every index here is paid by every write that records an event; each is kept because a plan needs
    // it (test/api/index-plans.test.ts). No query looks events up by resource_id, so it has no index.
    k.index('events_account_idx').on(t.accountId, t.seq),
    k.index('events_undispatched_idx').on(t.dispatchedAt, t.seq),
  ]);

  /** Stored answers of idempotent POSTs: written in the same transaction as the effect. */
  const idempotencyKeys = k.table('idempotency_keys', {
    accountId: k.text('account_id').references(() => accounts.id),
    /** The named operation (withdrawal.create, …): REST and tRPC share one key space per operation. */
    operation: k.text('operation'),
    key: k.text('key'),
    /** HMAC of the canonical request; never the request itself (it may hold a card). */
    fingerprint: k.text('fingerprint'),
    /** The operation's plain result as JSON; the edge shapes the answer from it, the same bytes each time. */
    result: k.text('result'),
    createdAt: k.instant('created_at'),
    expiresAt: k.instant('expires_at'),
  }, (t) => [
    k.primaryKey({ columns: [t.accountId, t.operation, t.key] }),
    k.index('idempotency_keys_expires_idx').on(t.expiresAt),
  ]);

  return { events, idempotencyKeys };
}
