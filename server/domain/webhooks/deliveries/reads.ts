import type { Stores } from '../../../../db';
import type { DeliveryLog, DeliveryRow } from '../../../../db/stores/deliveries';
import type { DeliveryStatus, DeliveryTarget } from '../../../../contract/enums';
import { DomainError } from '../../../errors';
import type { Services } from '../../../services';
import { deliveryBody } from '../../events';
import { liveWebhook } from '../subscriptions';
import { decodeCursor, encodeCursor } from '../../cursor';
import { ID_PREFIX } from '../../../../contract/ids';

// The delivery log, as the webhook API and the dashboard read it.

export type { DeliveryStatus } from '../../../../contract/enums';

// The shapes the log answers with, owned here: the router's schemas (server/routers/webhooks/schemas.ts)
// are checked against them at compile time.

/** One attempt to deliver, oldest first in its delivery. */
export interface DeliveryAttemptView {
  at: string;
  /** Same as `at` (kept for the first clients of the resend answer). */
  attempted_at: string;
  /** The HTTP status answered; null when none (timeout, refused…). */
  status_code: number | null;
  duration_ms: number;
  /** The first 1 KiB of the receiver's answer. */
  response_excerpt: string | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: DeliveryAttemptView[];
  next_attempt_at: string | null;
  created_at: string;
  webhook_id: string | null;
  target: DeliveryTarget;
  url: string;
  resource_id: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  updated_at: string;
}

async function withAttempts(tx: Stores, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = await tx.deliveries.attemptsOf(rows.map((r) => r.id));
  const byDelivery = new Map<string, DeliveryAttemptView[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId) ?? [];
    list.push({ at: a.attemptedAt, attempted_at: a.attemptedAt, status_code: a.statusCode, duration_ms: a.durationMs, response_excerpt: a.responseExcerpt, error: a.error });
    byDelivery.set(a.deliveryId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    event_id: r.eventId,
    event_type: r.eventType,
    status: r.status,
    attempts: byDelivery.get(r.id) ?? [],
    next_attempt_at: r.nextAttemptAt,
    created_at: r.createdAt,
    webhook_id: r.webhookId,
    target: r.target,
    url: r.url,
    resource_id: r.resourceId,
    attempt_count: r.attempts,
    last_status_code: r.lastStatusCode,
    last_error: r.lastError,
    updated_at: r.updatedAt,
  }));
}

/** One page of the log's deliveries, newest first, each with its attempts (oldest first). */
async function deliveryPage(tx: Stores, which: DeliveryLog, q: { cursor?: string | null; limit?: number }) {
  const limit = q.limit ?? 20;
  const after = q.cursor ? decodeCursor(q.cursor, ID_PREFIX.delivery) : null;
  const rows = await tx.deliveries.logPage(which, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: await withAttempts(tx, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/**
 * A webhook's deliveries, newest first, each with its attempts (oldest first), optionally only those
 * in one status (the dashboard's "failed only"), one page and its `next_cursor`.
 */
export async function listDeliveries(s: Services, accountId: string, q: { magic_id: string; status?: DeliveryStatus; cursor?: string | null; limit?: number }) {
  // deliveries and their attempts from one snapshot: a record committing between the reads would show an attempt beside a stale status
  return s.db.read.snapshot(async (db) => {
    await liveWebhook(db, accountId, q.magic_id);
    return deliveryPage(db, { webhookId: q.magic_id, status: q.status }, q);
  });
}

/** One delivery of the account with its attempts and the exact body every attempt sent. */
export async function getDelivery(s: Services, accountId: string, deliveryId: string) {
  return s.db.read.snapshot(async (db) => {
    const view = await deliveryOf(db, accountId, deliveryId);
    const e = await db.events.envelopeOf(view.event_id);
    return { ...view, payload: deliveryBody(view.target, e!) };
  });
}

/**
 * The account's postback deliveries (optionally of one resource: a withdrawal, transaction or dispute
 * id), newest first: the only way to find a postback delivery's attempts and id, to resend it by hand.
 * With `target: 'pix'`, the same for its API Pix notifications to its keys' webhooks (resource: the e2eid).
 */
export async function listPostbackDeliveries(s: Services, accountId: string, q: { resourceId?: string | null; target?: 'postback' | 'pix'; cursor?: string | null; limit?: number }) {
  return s.db.read.snapshot((db) => deliveryPage(db, { postbacksOf: accountId, resourceId: q.resourceId, target: q.target }, q));
}

/** One delivery of the account as the log shows it, or 404. */
export async function deliveryOf(tx: Stores, accountId: string, id: string): Promise<DeliveryView> {
  const row = await tx.deliveries.ofAccount(accountId, id);
  if (!row) throw new DomainError('NOT_FOUND', 'delivery not found');
  return (await withAttempts(tx, [row]))[0];
}
