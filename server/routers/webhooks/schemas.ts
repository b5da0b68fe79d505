import { z } from 'zod';
import { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_CATEGORIES } from '../../domain/webhooks/categories';
import { DELIVERY_STATUSES, DELIVERY_TARGETS } from '../../domain/enums';
import { isoTimestamp, strictInt } from '../common';

const category = z.enum(WEBHOOK_CATEGORIES, { error: 'must be one of transaction, withdraw, dispute' });

export const createWebhookRequest = z.strictObject({
  url: z.string().trim().min(1, 'must not be empty').max(MAX_WEBHOOK_URL_LENGTH, `at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
    .describe('http(s) callback URL; private, loopback and link-local hosts are refused'),
  events: z.array(category).min(1, 'must list at least one of transaction, withdraw, dispute').max(WEBHOOK_CATEGORIES.length)
    .refine((list) => new Set(list).size === list.length, 'must not repeat a category')
    .describe('Subscribed categories: transaction, withdraw, dispute'),
});

export const createWebhookHeaders = z.object({
  'idempotency-key': z.string().max(255).describe('Required on REST. Same key + same body within 24 h → the stored answer again (idempotent-replayed: true); another body → 422'),
});

export const webhookIdInput = z.strictObject({ magic_id: z.string().min(1).max(64).describe('The webhook identifier') });

export const webhookView = z.object({
  magic_id: z.string(),
  url: z.string(),
  secret: z.string().describe('whsec_… signing secret (Standard Webhooks)'),
  events: z.array(category),
  active: z.boolean().describe('false once the receiver answered 410 Gone'),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});

const envelope = <T extends z.ZodType>(content: T) => z.object({
  code: z.number().int(),
  content,
  message: z.string(),
  timestamp: isoTimestamp,
});

export const webhookCreated = envelope(webhookView);
export const webhookList = envelope(z.array(webhookView));
export const webhookDeleted = z.object({ code: z.number().int(), message: z.string(), timestamp: isoTimestamp });

export const deliveryAttemptView = z.object({
  attempted_at: isoTimestamp,
  status_code: z.number().int().nullable().describe('HTTP status answered, null when none (timeout, refused, …)'),
  duration_ms: z.number().int(),
  response_excerpt: z.string().nullable().describe('First 1 KiB of the answer'),
  error: z.string().nullable(),
});

export const deliveryView = z.object({
  id: z.string(),
  webhook_id: z.string().nullable(),
  target: z.enum(DELIVERY_TARGETS),
  url: z.string(),
  event_id: z.string().describe('Sent as webhook-id on every attempt'),
  event_type: z.string(),
  resource_id: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  attempts: z.array(deliveryAttemptView),
});

export const listDeliveriesInput = z.strictObject({
  webhookId: z.string().min(1).max(64),
  cursor: z.string().max(200).nullish(),
  limit: strictInt(1, 100).optional(),
});

export const listPostbackDeliveriesInput = z.strictObject({
  resourceId: z.string().min(1).max(64).nullish().describe('Only the postbacks of this withdrawal, transaction or dispute'),
  cursor: z.string().max(200).nullish(),
  limit: strictInt(1, 100).optional(),
});

export const deliveryPage = z.object({ items: z.array(deliveryView), next_cursor: z.string().nullable() });

export const resendDeliveryInput = z.strictObject({ delivery_id: z.string().min(1).max(64).describe('The delivery identifier') });

export const deliveryResent = envelope(deliveryView);
