import type { Stores } from '../../db';
import { newId } from './ids';

export const EVENT_TYPES = [
  'transaction.created', 'transaction.approved', 'transaction.refused', 'transaction.expired',
  'transaction.refunded', 'transaction.refund_paid', 'transaction.refund_failed',
  'withdraw.requested', 'withdraw.paid', 'withdraw.partially_paid', 'withdraw.error',
  'dispute.opened', 'dispute.won', 'dispute.lost',
  // sent by hand to one webhook (POST /api/webhooks/{magic_id}/test); never fanned out
  'webhook.test',
  // an API Pix notification to one key's webhook (server/domain/pix-api/webhooks.ts); never fanned out
  'pix.received', 'pix.devolucao',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export type { EventCategory, StoredEventCategory } from '../../contract/enums';
import type { DeliveryTarget, StoredEventCategory } from '../../contract/enums';

export function categoryOf(type: EventType): StoredEventCategory {
  return type.slice(0, type.indexOf('.')) as StoredEventCategory;
}

export interface RecordedEvent {
  id: string;
  seq: number;
  type: EventType;
  category: StoredEventCategory;
  resourceId: string;
  createdAt: string;
}

/**
 * Records an event inside the caller's write job, so the event exists if and only if the change it
 * reports was committed. `payload` is the resource as its GET returns it at this moment.
 */
export async function recordEvent(
  tx: Stores,
  e: { accountId: string; type: EventType; resourceId: string; payload: unknown; at: Date },
): Promise<RecordedEvent> {
  const row = eventRow(tx, e);
  const seq = await tx.events.record(row);
  return { id: row.id, seq, type: e.type, category: row.category, resourceId: e.resourceId, createdAt: row.createdAt };
}

/**
 * recordEvent for a job that does not read the event's seq: the store may send it without waiting for
 * the answer (on PostgreSQL it travels with the job's next statements).
 */
export async function recordEventUnread(
  tx: Stores,
  e: { accountId: string; type: EventType; resourceId: string; payload: unknown; at: Date },
): Promise<void> {
  await tx.events.recordUnread(eventRow(tx, e));
}

function eventRow(tx: Stores, e: { accountId: string; type: EventType; resourceId: string; payload: unknown; at: Date }) {
  if (e.type === 'webhook.test') throw new Error('test events are recorded by sendTestEvent, already dispatched');
  return {
    id: newId('event'), accountId: e.accountId, type: e.type, category: categoryOf(e.type), resourceId: e.resourceId,
    payload: JSON.stringify(e.payload), createdAt: e.at.toISOString(), requestId: tx.requestId,
  };
}

/**
 * The bytes a delivery sends, the same on every attempt: the event envelope, except to a Pix key's API Pix
 * webhook (target `pix`), which gets the payload alone, `{"pix":[…]}`, as the yaml's callback defines it.
 */
export function deliveryBody(target: DeliveryTarget, row: { id: string; type: string; category: string; createdAt: string; payload: string }): string {
  return target === 'pix' ? row.payload : eventEnvelope(row);
}

/** The envelope a receiver gets: docs/decisions.md "Events and deliveries". */
export function eventEnvelope(row: { id: string; type: string; category: string; createdAt: string; payload: string }): string {
  return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"category":${JSON.stringify(row.category)},"created_at":${JSON.stringify(row.createdAt)},"data":${row.payload}}`;
}
