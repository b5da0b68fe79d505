import { sql } from 'drizzle-orm';
import type { Stores } from '../../../db';
import { onPostgres } from '../../../db/dialect';
import { lockNames, rawChanges, rawExec, rawRows } from '../../../db/query';

/*
 * Ordering queues: the PENDING deliveries of one resource to one URL, in event order. Only the head
 * of a queue is ever due; the others wait with next_attempt_at NULL, so the sender's due query never
 * has to wade through deliveries stuck behind a receiver that is down. Whenever a delivery leaves
 * PENDING, the head of its queue is promoted (next_attempt_at = now) in the same write job. The due
 * query still checks "no earlier PENDING delivery in the queue" itself, so a resend of an older
 * delivery, or any slip here, can never reorder a queue.
 */

const EARLIER_PENDING = sql`SELECT 1 FROM deliveries p
  WHERE p.url = deliveries.url AND p.resource_id = deliveries.resource_id AND p.status = 'PENDING'
    AND (p.event_seq < deliveries.event_seq OR (p.event_seq = deliveries.event_seq AND p.id < deliveries.id))`;

const ids = (list: string[]) => sql.join(list.map((id) => sql`${id}`), sql`, `);

function chunks<T>(list: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * Holds the queues of these deliveries until the job commits. On PostgreSQL a job that queues a new
 * delivery and a job that finishes the one ahead of it can run at once; without this each would miss
 * the other's uncommitted row and the new delivery would wait for the sweep instead of going next.
 * SQLite's single writer already runs them one after the other.
 */
async function lockQueuesOf(tx: Stores, deliveryIds: string[]): Promise<void> {
  if (!onPostgres || deliveryIds.length === 0) return;
  const keys: { url: string; resource_id: string }[] = [];
  for (const part of chunks(deliveryIds)) {
    keys.push(...await rawRows<{ url: string; resource_id: string }>(tx, sql`SELECT url, resource_id FROM deliveries WHERE id IN (${ids(part)})`));
  }
  await lockNames(tx, keys.map((k) => `delivery-queue\n${k.url}\n${k.resource_id}`));
}

/** New deliveries that are not the head of their queue wait (next_attempt_at NULL). */
export async function holdBehindEarlier(tx: Stores, deliveryIds: string[]): Promise<void> {
  await lockQueuesOf(tx, deliveryIds);
  for (const part of chunks(deliveryIds)) {
    await rawExec(tx, sql`UPDATE deliveries SET next_attempt_at = NULL
      WHERE id IN (${ids(part)}) AND status = 'PENDING' AND EXISTS (${EARLIER_PENDING})`);
  }
}

/** After these deliveries left PENDING: the head of each of their queues becomes due now, if it was waiting. */
export async function promoteQueueHeads(tx: Stores, finishedIds: string[], at: string): Promise<void> {
  await lockQueuesOf(tx, finishedIds);
  for (const part of chunks(finishedIds)) {
    await rawExec(tx, sql`UPDATE deliveries SET next_attempt_at = ${at}, updated_at = ${at}
      WHERE status = 'PENDING' AND next_attempt_at IS NULL AND id IN (
        SELECT (SELECT p.id FROM deliveries p
                WHERE p.url = q.url AND p.resource_id = q.resource_id AND p.status = 'PENDING'
                ORDER BY p.event_seq, p.id LIMIT 1)
        FROM deliveries q WHERE q.id IN (${ids(part)}))`);
  }
}

/** Safety net: waiting deliveries with nothing ahead of them become due (returns how many). */
export async function releaseOrphanedWaits(tx: Stores, at: string): Promise<number> {
  return rawChanges(tx, sql`UPDATE deliveries SET next_attempt_at = ${at}, updated_at = ${at}
    WHERE status = 'PENDING' AND next_attempt_at IS NULL AND NOT EXISTS (${EARLIER_PENDING})`);
}

/** Whether any waiting delivery has nothing ahead of it (a cheap read before the write above). */
export async function hasOrphanedWaits(db: Stores): Promise<boolean> {
  return (await rawRows(db, sql`SELECT 1 FROM deliveries WHERE status = 'PENDING' AND next_attempt_at IS NULL
    AND NOT EXISTS (${EARLIER_PENDING}) LIMIT 1`)).length > 0;
}
