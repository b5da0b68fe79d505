import { z } from 'zod';
import { getDelivery, listDeliveries, listPostbackDeliveries } from '../../domain/webhooks/deliveries/reads';
import { resendDelivery, sendTestEvent } from '../../domain/webhooks/deliveries/by-hand';
import type { Context } from '../../context';
import { DomainError, validationError } from '../../errors';
import {
  createWebhook, deleteWebhook, listWebhooks, pauseWebhook, resumeWebhook, revealWebhookSecret, rotateWebhookSecret, rotateWebhookSecretConfirmed, updateWebhook,
  type SecretDisclosure,
} from '../../domain/webhooks/subscriptions';
import { markReplayed, personProcedure, router, webhookApiProcedure, type AuthedContext } from '../../trpc';
import {
  createWebhookHeaders, createWebhookRequest, deliveryFound, deliveryIdInput, deliveryList, deliveryPage, deliveryResent, listDeliveriesInput,
  listPostbackDeliveriesInput, revealSecretRequest, testEventSent, updateWebhookRequest, webhookCreated, webhookDeleted, webhookIdInput,
  webhookList, webhookUpdated,
} from './schemas';

const AUTH_401 = 'Missing x-api-key/x-token, or they are not of the same account';
const NOT_FOUND_404 = 'No such webhook of this account';

/** The webhook API sees secrets as it always did; a dashboard session sees them masked (reveal asks for the password). */
const disclosure = (ctx: AuthedContext): SecretDisclosure => (ctx.auth.kind === 'session' ? 'masked' : 'plain');

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
      // REST requires the key (docs/decisions.md "Idempotency"); tRPC callers (the dashboard) may omit it
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
    .query(async ({ ctx }) => envelope(200, await listWebhooks(ctx.services, ctx.auth.accountId, { secrets: disclosure(ctx) }), 'Webhooks listed', now(ctx))),
  update: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'PATCH', path: '/api/webhooks/{magic_id}', tags: ['webhooks'], summary: 'Edit a webhook',
        description: 'Changes the URL and/or the subscribed categories. A new URL passes the same checks as at creation; deliveries still pending move to it. New categories apply to events from now on.',
        errorResponses: { 400: 'Invalid input (nothing changed)', 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(updateWebhookRequest)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input: { magic_id, ...changes } }) => envelope(200, await updateWebhook(ctx.services, ctx.auth.accountId, magic_id, changes, disclosure(ctx)), 'Webhook updated', now(ctx))),

  pause: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/pause', tags: ['webhooks'], summary: 'Pause a webhook',
        description: 'Nothing is delivered to a paused webhook. Events recorded while it is paused are not queued for it (they are skipped); deliveries queued before the pause wait, unattempted, and go out in order on resume.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => envelope(200, await pauseWebhook(ctx.services, ctx.auth.accountId, input.magic_id, disclosure(ctx)), 'Webhook paused', now(ctx))),

  resume: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/resume', tags: ['webhooks'], summary: 'Resume a webhook',
        description: 'Ends a pause (the deliveries that waited are sent) and re-enables a webhook disabled after a 410.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => envelope(200, await resumeWebhook(ctx.services, ctx.auth.accountId, input.magic_id, disclosure(ctx)), 'Webhook resumed', now(ctx))),

  rotateSecret: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/rotate-secret', tags: ['webhooks'], summary: 'Rotate the signing secret',
        description: 'Answers the new secret. For 24 hours every delivery carries two v1 signatures in webhook-signature (new secret first, then the previous one, space-separated, as Standard Webhooks allows), so receivers can switch without losing events; x-webhook-signature uses the new secret.',
        errorResponses: { 401: AUTH_401, 403: 'Dashboard sessions: rotate through rotateSecretConfirmed (password)', 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => {
      // the answer is the new secret in plain: a session must confirm the password (rotateSecretConfirmed)
      if (ctx.auth.kind === 'session') throw new DomainError('FORBIDDEN', 'confirm your password to rotate a secret');
      return envelope(200, await rotateWebhookSecret(ctx.services, ctx.auth.accountId, input.magic_id), 'Webhook secret rotated', now(ctx));
    }),

  /** Dashboard: rotate after re-entering the password (a miss counts as a failed sign-in). */
  rotateSecretConfirmed: personProcedure
    .input(revealSecretRequest)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => envelope(200,
      await rotateWebhookSecretConfirmed(ctx.services, ctx.actor, input.magic_id, input.password), 'Webhook secret rotated', now(ctx))),

  /** Dashboard: the signing secret again, after re-entering the password (a miss counts as a failed sign-in). */
  revealSecret: personProcedure
    .input(revealSecretRequest)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => envelope(200,
      await revealWebhookSecret(ctx.services, ctx.actor, input.magic_id, input.password),
      'Webhook secret revealed', now(ctx))),

  test: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks', successStatus: 202,
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/test', tags: ['webhooks'], summary: 'Send a test event',
        description: 'Signs and sends a `webhook.test` event (category webhook, x-webhook-event: TEST; data: the webhook\'s magic_id, url and events) to this webhook only, like any delivery: same headers, attempt log and retries. Answers the delivery id.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 422: 'The webhook is paused or inactive', 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(testEventSent)
    .mutation(async ({ ctx, input }) => envelope(202, await sendTestEvent(ctx.services, ctx.auth.accountId, input.magic_id), 'Test event queued', now(ctx))),

  delete: webhookApiProcedure
    .meta({ auth: 'webhook-api', envelope: 'webhooks', openapi: { method: 'DELETE', path: '/api/webhooks/{magic_id}', tags: ['webhooks'], summary: 'Delete a webhook', description: 'It disappears from the list; its pending deliveries stop (FAILED, "webhook deleted").', errorResponses: { 401: AUTH_401, 404: 'No such webhook of this account', 429: 'Rate limited' } } })
    .input(webhookIdInput)
    .output(webhookDeleted)
    .mutation(async ({ ctx, input }) => {
      const { deleted_at } = await deleteWebhook(ctx.services, ctx.auth.accountId, input.magic_id);
      return { code: 200, message: 'Webhook deleted', timestamp: deleted_at };
    }),

  deliveries: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'GET', path: '/api/webhooks/{magic_id}/deliveries', tags: ['webhooks'], summary: 'List a webhook\'s deliveries',
        description: 'Newest first, each with its attempts (oldest first: when, HTTP status, duration, first 1 KiB of the answer, error). Keyset paging: pass next_cursor as cursor.',
        errorResponses: { 400: 'Invalid input, or a cursor that is not from this list', 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(listDeliveriesInput)
    .output(deliveryList)
    .query(async ({ ctx, input }) => {
      const page = await listDeliveries(ctx.services, ctx.auth.accountId, input);
      return { code: 200, content: page.items, next_cursor: page.next_cursor, message: 'Deliveries listed', timestamp: now(ctx) };
    }),

  delivery: webhookApiProcedure
    .meta({
      auth: 'webhook-api', envelope: 'webhooks',
      openapi: {
        method: 'GET', path: '/api/webhooks/deliveries/{delivery_id}', tags: ['webhooks'], summary: 'One delivery with its payload',
        description: 'A delivery (webhook or postback) with its attempts and `payload`, the exact body every attempt sent.',
        errorResponses: { 401: AUTH_401, 404: 'No such delivery of this account', 429: 'Rate limited' },
      },
    })
    .input(deliveryIdInput)
    .output(deliveryFound)
    .query(async ({ ctx, input }) => envelope(200, await getDelivery(ctx.services, ctx.auth.accountId, input.delivery_id), 'Delivery found', now(ctx))),

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
        errorResponses: { 401: AUTH_401, 404: 'No such delivery of this account', 422: 'The webhook was deleted, is paused or inactive', 429: 'Rate limited' },
      },
    })
    .input(deliveryIdInput)
    .output(deliveryResent)
    .mutation(async ({ ctx, input }) =>
      envelope(202, await resendDelivery(ctx.services, ctx.auth.accountId, input.delivery_id), 'Delivery queued for resend', now(ctx))),
});
