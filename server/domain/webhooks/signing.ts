import { createHmac } from 'node:crypto';
import { secretKeyBytes } from './secrets';

import type { StoredEventCategory } from '../../../contract/enums';

export interface SignDeliveryInput {
  eventId: string;
  timestamp: Date;
  /** The exact bytes that will be sent; signatures are over this string, so never re-serialise. */
  body: string;
  /** The current secret: every signature header is made with it. */
  secret: string;
  /** The secret before a rotation, while it is still honoured: a second `v1,` signature (Standard Webhooks allows several). */
  previousSecret?: string | null;
  eventCategory: StoredEventCategory;
}

export interface DeliveryHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-webhook-event': 'TRANSACTION' | 'WITHDRAW' | 'DISPUTE' | 'TEST' | 'PIX';
  'x-webhook-signature': string;
  'content-type': 'application/json';
  'user-agent': string;
  [name: string]: string;
}

const CATEGORY_HEADER = {
  transaction: 'TRANSACTION',
  withdraw: 'WITHDRAW',
  dispute: 'DISPUTE',
  webhook: 'TEST',
  pix: 'PIX',
} as const;

export const WEBHOOK_USER_AGENT = 'pix-payments-webhooks/1';

/**
 * Headers for one delivery attempt: Standard Webhooks (`webhook-*`) plus the legacy
 * `x-webhook-*` pair that existing integrations read. Both HMACs use the same key bytes.
 */
export function signDelivery(input: SignDeliveryInput): DeliveryHeaders {
  const key = secretKeyBytes(input.secret);
  const ts = String(Math.floor(input.timestamp.getTime() / 1000));
  const standard = (k: Buffer) => createHmac('sha256', k).update(`${input.eventId}.${ts}.${input.body}`, 'utf8').digest('base64');
  const legacy = createHmac('sha256', key).update(input.body, 'utf8').digest('hex');
  // During a rotation receivers may still hold the old secret: one signature per secret, space-separated.
  const signatures = [`v1,${standard(key)}`];
  if (input.previousSecret) signatures.push(`v1,${standard(secretKeyBytes(input.previousSecret))}`);
  return {
    'webhook-id': input.eventId,
    'webhook-timestamp': ts,
    'webhook-signature': signatures.join(' '),
    'x-webhook-event': CATEGORY_HEADER[input.eventCategory],
    'x-webhook-signature': legacy,
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
  };
}
