import { z } from 'zod';
import { DomainError } from '../../errors';
import { confirmPassword } from '../../domain/sessions';
import { getDelivery, listDeliveries, listPostbackDeliveries, resendDelivery, sendTestEvent } from '../../domain/webhooks/deliveries';
import {
  createWebhook, deleteWebhook, listWebhooks, pauseWebhook, resumeWebhook, revealWebhookSecret, rotateWebhookSecret, updateWebhook,
  type SecretDisclosure,
} from '../../domain/webhooks/subscriptions';
import { dashboardProcedure, router, webhookApiProcedure, noteReplay, type AuthedContext } from '../../trpc';
import {
  createWebhookHeaders, createWebhookRequest, deliveryFound, deliveryIdInput, deliveryList, deliveryPage, deliveryResent, listDeliveriesInput,
  listPostbackDeliveriesInput, revealSecretRequest, testEventSent, updateWebhookRequest, webhookCreated, webhookDeleted, webhookIdInput,
  webhookList, webhookUpdated,
} from './schemas';

const AUTH_401 = 'Missing x-api-key/x-token, or they are not of the same account';
const NOT_FOUND_404 = 'No such webhook of this account';

/** The webhook API sees secrets as it always did; a dashboard session sees them masked (reveal asks for the password). */
const disclosure = (ctx: AuthedContext): SecretDisclosure => (ctx.auth.kind === 'session' ? 'masked' : 'plain');

export const webhooksRouter = router({
  create: webhookApiProcedure
    .meta({
      auth: 'webhook-api', successStatus: 201,
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
      const { replayed, ...answer } = await createWebhook(ctx.services, {
        accountId: ctx.auth.accountId, input, idempotencyKey: ctx.headers['idempotency-key'], requireKey: ctx.transport === 'rest',
      });
      noteReplay(ctx, { replayed, status: answer.code });
      return answer;
    }),

  list: webhookApiProcedure
    .meta({ auth: 'webhook-api', openapi: { method: 'GET', path: '/api/webhooks', tags: ['webhooks'], summary: 'List webhooks', description: 'Every webhook of the account that is not deleted, with its secret.', errorResponses: { 401: AUTH_401, 429: 'Rate limited' } } })
    .input(z.strictObject({}).optional())
    .output(webhookList)
    .query(({ ctx }) => listWebhooks(ctx.services, ctx.auth.accountId, { secrets: disclosure(ctx) })),

  update: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'PATCH', path: '/api/webhooks/{magic_id}', tags: ['webhooks'], summary: 'Edit a webhook',
        description: 'Changes the URL and/or the subscribed categories. A new URL passes the same checks as at creation; deliveries still pending move to it. New categories apply to events from now on.',
        errorResponses: { 400: 'Invalid input (nothing changed)', 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(updateWebhookRequest)
    .output(webhookUpdated)
    .mutation(({ ctx, input: { magic_id, ...changes } }) => updateWebhook(ctx.services, ctx.auth.accountId, magic_id, changes, disclosure(ctx))),

  pause: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/pause', tags: ['webhooks'], summary: 'Pause a webhook',
        description: 'Nothing is delivered to a paused webhook. Events recorded while it is paused are not queued for it (they are skipped); deliveries queued before the pause wait, unattempted, and go out in order on resume.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(({ ctx, input }) => pauseWebhook(ctx.services, ctx.auth.accountId, input.magic_id, disclosure(ctx))),

  resume: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/resume', tags: ['webhooks'], summary: 'Resume a webhook',
        description: 'Ends a pause (the deliveries that waited are sent) and re-enables a webhook disabled after a 410.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(({ ctx, input }) => resumeWebhook(ctx.services, ctx.auth.accountId, input.magic_id, disclosure(ctx))),

  rotateSecret: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/rotate-secret', tags: ['webhooks'], summary: 'Rotate the signing secret',
        description: 'Answers the new secret. For 24 hours every delivery carries two v1 signatures in webhook-signature (new secret first, then the previous one, space-separated, as Standard Webhooks allows), so receivers can switch without losing events; x-webhook-signature uses the new secret.',
        errorResponses: { 401: AUTH_401, 403: 'Dashboard sessions: rotate through rotateSecretConfirmed (password)', 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(webhookUpdated)
    .mutation(({ ctx, input }) => {
      // the answer is the new secret in plain: a session must confirm the password (rotateSecretConfirmed)
      if (ctx.auth.kind === 'session') throw new DomainError('FORBIDDEN', 'confirm your password to rotate a secret');
      return rotateWebhookSecret(ctx.services, ctx.auth.accountId, input.magic_id);
    }),

  /** Dashboard: rotate after re-entering the password (a miss counts as a failed sign-in). */
  rotateSecretConfirmed: dashboardProcedure
    .input(revealSecretRequest)
    .output(webhookUpdated)
    .mutation(async ({ ctx, input }) => {
      await confirmPassword(ctx.services, ctx.auth.userId!, input.password, ctx.ip);
      return rotateWebhookSecret(ctx.services, ctx.auth.accountId, input.magic_id);
    }),

  /** Dashboard: the signing secret again, after re-entering the password (a miss counts as a failed sign-in). */
  revealSecret: dashboardProcedure
    .input(revealSecretRequest)
    .output(webhookUpdated)
    .mutation(({ ctx, input }) => revealWebhookSecret(ctx.services, { accountId: ctx.auth.accountId, userId: ctx.auth.userId!, ip: ctx.ip }, input.magic_id, input.password)),

  test: webhookApiProcedure
    .meta({
      auth: 'webhook-api', successStatus: 202,
      openapi: {
        method: 'POST', path: '/api/webhooks/{magic_id}/test', tags: ['webhooks'], summary: 'Send a test event',
        description: 'Signs and sends a `webhook.test` event (category webhook, x-webhook-event: TEST; data: the webhook\'s magic_id, url and events) to this webhook only, like any delivery: same headers, attempt log and retries. Answers the delivery id.',
        errorResponses: { 401: AUTH_401, 404: NOT_FOUND_404, 422: 'The webhook is paused or inactive', 429: 'Rate limited' },
      },
    })
    .input(webhookIdInput)
    .output(testEventSent)
    .mutation(({ ctx, input }) => sendTestEvent(ctx.services, ctx.auth.accountId, input.magic_id)),

  delete: webhookApiProcedure
    .meta({ auth: 'webhook-api', openapi: { method: 'DELETE', path: '/api/webhooks/{magic_id}', tags: ['webhooks'], summary: 'Delete a webhook', description: 'It disappears from the list; its pending deliveries stop (FAILED, "webhook deleted").', errorResponses: { 401: AUTH_401, 404: 'No such webhook of this account', 429: 'Rate limited' } } })
    .input(webhookIdInput)
    .output(webhookDeleted)
    .mutation(({ ctx, input }) => deleteWebhook(ctx.services, ctx.auth.accountId, input.magic_id)),

  deliveries: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'GET', path: '/api/webhooks/{magic_id}/deliveries', tags: ['webhooks'], summary: 'List a webhook\'s deliveries',
        description: 'Newest first, each with its attempts (oldest first: when, HTTP status, duration, first 1 KiB of the answer, error). Keyset paging: pass next_cursor as cursor.',
        errorResponses: { 400: 'Invalid input, or a cursor that is not from this list', 401: AUTH_401, 404: NOT_FOUND_404, 429: 'Rate limited' },
      },
    })
    .input(listDeliveriesInput)
    .output(deliveryList)
    .query(({ ctx, input }) => listDeliveries(ctx.services, ctx.auth.accountId, input)),

  delivery: webhookApiProcedure
    .meta({
      auth: 'webhook-api',
      openapi: {
        method: 'GET', path: '/api/webhooks/deliveries/{delivery_id}', tags: ['webhooks'], summary: 'One delivery with its payload',
        description: 'A delivery (webhook or postback) with its attempts and `payload`, the exact body every attempt sent.',
        errorResponses: { 401: AUTH_401, 404: 'No such delivery of this account', 429: 'Rate limited' },
      },
    })
    .input(deliveryIdInput)
    .output(deliveryFound)
    .query(({ ctx, input }) => getDelivery(ctx.services, ctx.auth.accountId, input.delivery_id)),

  /** The account's postback deliveries, to find one to resend (tRPC only). */
  postbackDeliveries: webhookApiProcedure
    .input(listPostbackDeliveriesInput)
    .output(deliveryPage)
    .query(({ ctx, input }) => listPostbackDeliveries(ctx.services, ctx.auth.accountId, input)),

  resend: webhookApiProcedure
    .meta({
      auth: 'webhook-api', successStatus: 202,
      openapi: {
        method: 'POST', path: '/api/webhooks/deliveries/{delivery_id}/resend', tags: ['webhooks'], summary: 'Resend a delivery',
        description: 'Queues a new attempt of a delivery (webhook or postback) now, with the same body and webhook-id. A finished delivery gets one attempt, which starts no new retry schedule; a pending one is attempted now. The webhook must exist and be active.',
        errorResponses: { 401: AUTH_401, 404: 'No such delivery of this account', 422: 'The webhook was deleted, is paused or inactive', 429: 'Rate limited' },
      },
    })
    .input(deliveryIdInput)
    .output(deliveryResent)
    .mutation(({ ctx, input }) => resendDelivery(ctx.services, ctx.auth.accountId, input.delivery_id)),
});
