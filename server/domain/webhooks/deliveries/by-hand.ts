import { DomainError } from '../../../errors';
import type { Services } from '../../../services';
import { liveWebhook } from '../subscriptions';
import { pixCallbackStillRegistered } from '../../pix-api/webhooks';
import { newId } from '../../ids';
import { deliveryOf } from './reads';

// What the merchant queues by hand: a resend of a delivery, a test event to one webhook.

/**
 * Queues a delivery again by hand: a new attempt soon, same event, same webhook-id. A finished
 * delivery gets exactly one more attempt; a pending one has its next attempt moved to now. The
 * webhook must still exist, be active and not paused; the attempt goes to its current URL. An API Pix
 * notification (target `pix`) needs a key's webhook of the account still pointing where it went.
 */
export async function resendDelivery(s: Services, accountId: string, deliveryId: string) {
  const content = await s.db.write(async (tx) => {
    const d = await tx.deliveries.forResend(accountId, deliveryId);
    if (!d) throw new DomainError('NOT_FOUND', 'delivery not found');
    let url: string | undefined;
    if (d.target === 'webhook' && d.webhookId) {
      const hook = await tx.webhooks.stateOf(d.webhookId);
      if (!hook || hook.deletedAt) throw new DomainError('INVALID_STATE', 'the webhook of this delivery was deleted');
      if (hook.active !== 1) throw new DomainError('INVALID_STATE', 'the webhook of this delivery is inactive');
      if (hook.pausedAt) throw new DomainError('INVALID_STATE', 'the webhook of this delivery is paused; resume it first');
      // the merchant may have fixed the URL since: a resend goes where the webhook points now
      url = hook.url;
    }
    if (d.target === 'pix' && !(await pixCallbackStillRegistered(tx, accountId, d.url))) {
      throw new DomainError('INVALID_STATE', 'the Pix key webhook of this delivery was removed');
    }
    const at = s.clock.now().toISOString();
    await tx.deliveries.requeue(deliveryId, d.status === 'PENDING'
      ? { nextAttemptAt: at, updatedAt: at, url }
      : { status: 'PENDING', nextAttemptAt: at, manual: 1, updatedAt: at, url });
    return deliveryOf(tx, accountId, deliveryId);
  });
  s.wake.delivery?.();
  return content;
}

/**
 * Sends a signed `webhook.test` event to one webhook only: the event is recorded already dispatched (the
 * fan-out never sees it) together with its single delivery, in one write job; the sender picks it up
 * like any other delivery (same signing, timeout, attempt log and retry schedule).
 */
export async function sendTestEvent(s: Services, accountId: string, webhookId: string) {
  const deliveryId = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, webhookId);
    if (hook.active !== 1) throw new DomainError('INVALID_STATE', 'the webhook is inactive (its receiver answered 410); resume it first');
    if (hook.pausedAt) throw new DomainError('INVALID_STATE', 'the webhook is paused; resume it first');
    const now = s.clock.now();
    const at = now.toISOString();
    const eventId = newId('event');
    const payload = JSON.stringify({ magic_id: hook.id, url: hook.url, events: JSON.parse(hook.events) as string[] });
    const seq = await tx.events.recordDispatched({
      id: eventId, accountId, type: 'webhook.test', category: 'webhook', resourceId: hook.id, payload, createdAt: at,
    });
    const id = newId('delivery');
    await tx.deliveries.insertDeliveries([{
      id, eventId, eventSeq: seq, accountId, webhookId: hook.id, target: 'webhook', url: hook.url, resourceId: hook.id,
      status: 'PENDING', attempts: 0, nextAttemptAt: at, createdAt: at, updatedAt: at,
    }]);
    await tx.deliveries.holdBehindEarlier([id]);
    return id;
  });
  s.wake.delivery?.();
  return { delivery_id: deliveryId };
}
