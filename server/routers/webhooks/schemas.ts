import { presentedPassword } from '../../domain/sign-in-rules';
import { z } from 'zod';
import { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_CATEGORIES } from '../../../contract/webhooks';
import { DELIVERY_STATUSES, DELIVERY_TARGETS } from '../../../contract/enums';
import { describes, isoTimestamp, queryInt, strictInt } from '../common';
import type { WebhookView } from '../../domain/webhooks/subscriptions';
import type { DeliveryAttemptView, DeliveryView } from '../../domain/webhooks/deliveries/reads';

const category = z.enum(WEBHOOK_CATEGORIES, { error: 'must be one of transaction, withdraw, dispute' });

const webhookUrl = z.string().trim().min(1, 'must not be empty').max(MAX_WEBHOOK_URL_LENGTH, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .describe('http(s) callback URL; private, loopback and link-local hosts are refused');
const webhookEvents = z.array(category).min(1, 'must list at least one of transaction, withdraw, dispute').max(WEBHOOK_CATEGORIES.length)
  .refine((list) => new Set(list).size === list.length, 'must not repeat a category')
  .describe('Subscribed categories: transaction, withdraw, dispute');

export const createWebhookRequest = z.strictObject({ url: webhookUrl, events: webhookEvents });

export const createWebhookHeaders = z.object({
  'idempotency-key': z.string().max(255).describe('Required on REST. Same key + same body within 24 h → the stored answer again (idempotent-replayed: true); another body → 422'),
});

const magicId = z.string().min(1).max(64).describe('The webhook identifier');
export const webhookIdInput = z.strictObject({ magic_id: magicId });

export const updateWebhookRequest = z.strictObject({
  magic_id: magicId,
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
}).refine((b) => b.url !== undefined || b.events !== undefined, { message: 'send url and/or events', path: ['url'] });

export const revealSecretRequest = z.strictObject({
  magic_id: magicId,
  password: presentedPassword.describe('The signed-in person\'s dashboard password'),
});

export const webhookView = describes<WebhookView>()(z.object({
  magic_id: z.string(),
  url: z.string(),
  secret: z.string().describe('whsec_… signing secret (Standard Webhooks); masked (whsec_…last4) for dashboard sessions'),
  events: z.array(category),
  active: z.boolean().describe('false once the receiver answered 410 Gone (resume re-enables it)'),
  paused: z.boolean().describe('Paused by the merchant: events meanwhile are not queued for it, queued deliveries wait'),
  previous_secret_expires_at: z.string().nullable().describe('After a rotation: until when the previous secret still signs deliveries (a second v1 signature)'),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
}));

const envelope = <T extends z.ZodType>(content: T) => z.object({
  code: z.number().int(),
  content,
  message: z.string(),
  timestamp: isoTimestamp,
});

export const webhookCreated = envelope(webhookView);
export const webhookList = envelope(z.array(webhookView));
export const webhookDeleted = z.object({ code: z.number().int(), message: z.string(), timestamp: isoTimestamp });

export const webhookUpdated = envelope(webhookView);

const deliveryStatus = z.enum(DELIVERY_STATUSES);

export const deliveryAttemptView = describes<DeliveryAttemptView>()(z.object({
  at: isoTimestamp.describe('When the attempt started'),
  attempted_at: isoTimestamp.describe('Same as at (kept for the first clients of the resend answer)'),
  status_code: z.number().int().nullable().describe('HTTP status answered, null when none (timeout, refused, …)'),
  duration_ms: z.number().int(),
  response_excerpt: z.string().nullable().describe('First 1 KiB of the receiver\'s answer'),
  error: z.string().nullable(),
}));

export const deliveryView = describes<DeliveryView>()(z.object({
  id: z.string(),
  event_id: z.string().describe('Sent as webhook-id on every attempt'),
  event_type: z.string(),
  status: deliveryStatus,
  attempts: z.array(deliveryAttemptView).describe('Oldest first'),
  next_attempt_at: z.string().nullable(),
  created_at: isoTimestamp,
  webhook_id: z.string().nullable(),
  target: z.enum(DELIVERY_TARGETS),
  url: z.string(),
  resource_id: z.string(),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  updated_at: isoTimestamp,
}));

const cursor = z.string().max(200).nullish().describe('next_cursor of the previous page');
const pageLimit = queryInt(1, 100).optional().describe('1–100, default 20');

export const listDeliveriesInput = z.strictObject({
  magic_id: magicId,
  status: deliveryStatus.optional().describe('Only deliveries in this status (FAILED: the ones that gave up)'),
  cursor,
  limit: pageLimit,
});

export const deliveryList = z.object({
  code: z.number().int(),
  content: z.array(deliveryView).describe('Newest first'),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last one'),
  message: z.string(),
  timestamp: isoTimestamp,
});

export const listPostbackDeliveriesInput = z.strictObject({
  resourceId: z.string().min(1).max(64).nullish().describe('Only the postbacks of this withdrawal, transaction or dispute (or the notifications of this e2eid)'),
  target: z.enum(['postback', 'pix']).optional().describe('pix: the API Pix notifications to the keys\' webhooks instead of the postbacks'),
  cursor,
  limit: pageLimit,
});

export const deliveryPage = z.object({ items: z.array(deliveryView), next_cursor: z.string().nullable() });

export const deliveryIdInput = z.strictObject({ delivery_id: z.string().min(1).max(64).describe('The delivery identifier') });

export const deliveryResent = envelope(deliveryView);

export const deliveryFound = envelope(deliveryView.extend({
  payload: z.string().describe('The exact body every attempt sent (the event envelope as JSON text; {"pix":[…]} for an API Pix notification)'),
}));

export const testEventSent = envelope(z.object({ delivery_id: z.string() }));
