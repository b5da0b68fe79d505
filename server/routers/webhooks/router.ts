import { z } from 'zod';
import { listDeliveries, listPostbackDeliveries, resendDelivery } from '../../domain/webhooks/deliveries';
import { createWebhook, deleteWebhook, listWebhooks } from '../../domain/webhooks/subscriptions';
import type { Context } from '../../context';
import { validationError } from '../../errors';
import { router, webhookApiProcedure, markReplayed } from '../../trpc';
import {
  createWebhookHeaders, createWebhookRequest, deliveryPage, deliveryResent, listDeliveriesInput, listPostbackDeliveriesInput, resendDeliveryInput,
  webhookCreated, webhookDeleted, webhookIdInput, webhookList,
} from './schemas';

const AUTH_401 = 'Missing x-api-key/x-token, or they are not of the same account';

/** The webhook API's success envelope (spec "Webhook"): shaped here, never by the domain. */
function envelope<T>(code: number, content: T, message: string, timestamp: string) {
  return { code, content, message, timestamp };
}
const now = (ctx: Context) => ctx.services.clock.now().toISOString();

export const webhooksRouter = router({
  create: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks', successStatus: 201,
      openapi: {
        method: 'POST', path: '/api/webhooks', tags: ['webhooks'], summary: 'Create a webhook',
        description: 'Registers a callback URL for the categories in `events`. `idempotency-key` is required. Deliveries are signed with Standard Webhooks headers using the returned `secret`.',
        requestHeaders: createWebhookHeaders,
        errorResponses: { 400: 'Invalid input, or a missing idempotency-key (nothing stored)', 401: AUTH_401, 409: 'The same idempotency-key is still running', 422: 'idempotency-key reused with a different body, or too many webhooks', 429: 'Rate limited' },
      },
    })
    .input(createWebhookRequest)
    .output(webhookCreated)
    .mutation(async ({ ctx, input }) => {
      const idempotencyKey = ctx.headers['idempotency-key'];
      // REST requires the key (DECISIONS "Idempotency"); tRPC callers (the dashboard) may omit it
      if (idempotencyKey === undefined && ctx.transport === 'rest') throw validationError([{ path: 'idempotency-key', message: 'header is required' }]);
      const { webhook, replayed } = await createWebhook(ctx.services, ctx.auth.accountId, input, { idempotencyKey });
      markReplayed(ctx, replayed);
      // the creation time, not now: a replay is the same bytes as the first answer
      return envelope(201, webhook, 'Webhook created', webhook.created_at);
    }),

  list: webhookApiProcedure
    .meta({ auth: 'webhook-api', envelope: 'webhooks', openapi: { method: 'GET', path: '/api/webhooks', tags: ['webhooks'], summary: 'List webhooks', description: 'Every webhook of the account that is not deleted, with its secret.', errorResponses: { 401: AUTH_401, 429: 'Rate limited' } } })
    .input(z.strictObject({}).optional())
    .output(webhookList)
    .query(async ({ ctx }) => envelope(200, await listWebhooks(ctx.services, ctx.auth.accountId), 'Webhooks listed', now(ctx))),

  delete: webhookApiProcedure
    .meta({ auth: 'webhook-api', envelope: 'webhooks', openapi: { method: 'DELETE', path: '/api/webhooks/{magic_id}', tags: ['webhooks'], summary: 'Delete a webhook', description: 'It disappears from the list; its pending deliveries stop (FAILED, "webhook deleted").', errorResponses: { 401: AUTH_401, 404: 'No such webhook of this account', 429: 'Rate limited' } } })
    .input(webhookIdInput)
    .output(webhookDeleted)
    .mutation(async ({ ctx, input }) => {
      const { deleted_at } = await deleteWebhook(ctx.services, ctx.auth.accountId, input.magic_id);
      return { code: 200, message: 'Webhook deleted', timestamp: deleted_at };
    }),

  /** The delivery log of one webhook (dashboard; tRPC only). */
  deliveries: webhookApiProcedure
    .input(listDeliveriesInput)
    .output(deliveryPage)
    .query(({ ctx, input }) => listDeliveries(ctx.services, ctx.auth.accountId, input)),

  /** The account's postback deliveries, to find one to resend (tRPC only). */
  postbackDeliveries: webhookApiProcedure
    .input(listPostbackDeliveriesInput)
    .output(deliveryPage)
    .query(({ ctx, input }) => listPostbackDeliveries(ctx.services, ctx.auth.accountId, input)),

  resend: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks', successStatus: 202,
      openapi: {
        method: 'POST', path: '/api/webhooks/deliveries/{delivery_id}/resend', tags: ['webhooks'], summary: 'Resend a delivery',
        description: 'Queues a new attempt of a delivery (webhook or postback) now, with the same body and webhook-id. A finished delivery gets one attempt, which starts no new retry schedule; a pending one is attempted now. The webhook must exist and be active.',
        errorResponses: { 401: AUTH_401, 404: 'No such delivery of this account', 422: 'The webhook was deleted or is inactive', 429: 'Rate limited' },
      },
    })
    .input(resendDeliveryInput)
    .output(deliveryResent)
    .mutation(async ({ ctx, input }) =>
      envelope(202, await resendDelivery(ctx.services, ctx.auth.accountId, input.delivery_id), 'Delivery queued for resend', now(ctx))),
});
