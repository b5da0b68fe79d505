import type { Stores } from '../../../../db';
import type { DeliveryChange } from '../../../../db/stores/deliveries';
import type { DeliveryStatus } from '../../../../contract/enums';
import type { SendWebhookResult } from '../sender';

/*
 * Recording an attempt's outcome (docs/decisions.md "Events and deliveries"):
 * - Attempt n+1 waits WEBHOOK_RETRY_SCHEDULE[n] seconds after attempt n failed ([0] is the delay of the
 *   first attempt); after the last entry the delivery is FAILED. Success = a 2xx within the timeout;
 *   a redirect is a failure.
 * - HTTP 410 from a webhook's URL disables the webhook (active=false): that delivery and every other
 *   pending delivery of the webhook become FAILED ("webhook disabled after HTTP 410"). A 410 from a
 *   postback URL fails only that delivery.
 * - An attempt that was in flight when its webhook was deleted or disabled is still recorded, and not
 *   retried; a by-hand resend's attempt is final.
 * - Whenever a delivery leaves PENDING, the head of its queue becomes due, in the same write job.
 */

export interface AttemptOutcome { deliveryId: string; result: SendWebhookResult; startedAt: Date; finishedAt: Date }

const DISABLED_410 = 'webhook disabled after HTTP 410';

/**
 * Records attempts and each delivery's next state, all in the caller's one write job: the attempt
 * rows in one insert, the state changes grouped into as few updates as there are distinct outcomes
 * (typically one: every delivery that got its 2xx).
 */
export async function recordAttempts(tx: Stores, outcomes: AttemptOutcome[], schedule: number[], now: Date): Promise<Map<string, DeliveryStatus>> {
  const out = new Map<string, DeliveryStatus>();
  if (outcomes.length === 0) return out;
  const rows = await tx.deliveries.attemptTargets(outcomes.map((o) => o.deliveryId));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const known = outcomes.filter((o) => byId.has(o.deliveryId));
  await tx.deliveries.insertAttempts(known.map(({ deliveryId, result, startedAt }) => ({
    deliveryId, attemptedAt: startedAt.toISOString(), statusCode: result.status, durationMs: result.durationMs,
    responseExcerpt: result.responseExcerpt, error: result.error,
  })));

  // 410 first: it disables the webhook, which stops the other deliveries of this batch to it too.
  const disabled = new Set<string>();
  const left: string[] = []; // deliveries that leave PENDING here: their queues move on
  const iso = now.toISOString();
  for (const { deliveryId, result } of known) {
    const d = byId.get(deliveryId)!;
    if (result.status !== 410 || d.target !== 'webhook' || !d.webhookId || disabled.has(d.webhookId)) continue;
    disabled.add(d.webhookId);
    await tx.webhooks.deactivate(d.webhookId, iso);
    left.push(...await tx.deliveries.failPendingOfWebhook(d.webhookId, DISABLED_410, iso));
  }

  const groups = new Map<string, { set: DeliveryChange; ids: string[] }>();
  for (const { deliveryId, result, finishedAt } of known) {
    const d = byId.get(deliveryId)!;
    if (d.status === 'DELIVERED') {
      // A late record: this instance stalled past its lease and another one took the delivery over and
      // delivered it meanwhile. The attempt is logged; the delivery stays DELIVERED.
      out.set(deliveryId, 'DELIVERED');
      const set = { updatedAt: iso };
      const key = JSON.stringify(set);
      const g = groups.get(key) ?? { set, ids: [] as string[] };
      g.ids.push(deliveryId);
      groups.set(key, g);
      continue;
    }
    const attempts = d.attempts + 1;
    const stopped = d.target === 'webhook' && (d.webhookActive !== 1 || d.webhookDeletedAt !== null || disabled.has(d.webhookId ?? ''));
    let status: DeliveryStatus;
    let nextAttemptAt: string | null = null;
    let lastError = result.error;
    if (result.ok) {
      status = 'DELIVERED';
      lastError = null;
    } else if (result.status === 410) {
      status = 'FAILED';
      if (d.target === 'webhook') lastError = DISABLED_410;
    } else if (d.status !== 'PENDING' || stopped || d.manual === 1 || attempts >= schedule.length) {
      // stopped meanwhile (webhook deleted or disabled), a by-hand resend, or the schedule is exhausted
      status = 'FAILED';
    } else {
      status = 'PENDING';
      nextAttemptAt = new Date(finishedAt.getTime() + (schedule[attempts] ?? 0) * 1000).toISOString();
    }
    out.set(deliveryId, status);
    if (status !== 'PENDING') left.push(deliveryId);
    // (recording the attempt ends this instance's claim on the delivery: PostgreSQL's lease)
    const set: DeliveryChange = { status, nextAttemptAt, lastStatusCode: result.status, lastError, manual: 0, leaseExpiresAt: null, updatedAt: iso };
    const key = JSON.stringify(set);
    const g = groups.get(key) ?? { set, ids: [] as string[] };
    g.ids.push(deliveryId);
    groups.set(key, g);
  }
  for (const g of groups.values()) await tx.deliveries.recordAttempt(g.ids, g.set);
  await tx.deliveries.promoteQueueHeads(left, iso);
  return out;
}
