import { createHmac } from 'node:crypto';
import { secretKeyBytes } from './secrets';

import type { EventCategory } from '../enums';

export interface SignDeliveryInput {
  eventId: string;
  timestamp: Date;
  /** The exact bytes that will be sent; signatures are over this string, so never re-serialise. */
  body: string;
  secret: string;
  eventCategory: EventCategory;
}

export interface DeliveryHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-webhook-event': 'TRANSACTION' | 'WITHDRAW' | 'DISPUTE';
  'x-webhook-signature': string;
  'content-type': 'application/json';
  'user-agent': string;
  [name: string]: string;
}

const CATEGORY_HEADER = {
  transaction: 'TRANSACTION',
  withdraw: 'WITHDRAW',
  dispute: 'DISPUTE',
} as const;

export const WEBHOOK_USER_AGENT = 'pix-payments-webhooks/1';

/**
 * Headers for one delivery attempt: Standard Webhooks (`webhook-*`) plus the legacy
 * `x-webhook-*` pair that existing integrations read. Both HMACs use the same key bytes.
 */
export function signDelivery(input: SignDeliveryInput): DeliveryHeaders {
  const key = secretKeyBytes(input.secret);
  const ts = String(Math.floor(input.timestamp.getTime() / 1000));
  const standard = createHmac('sha256', key)
    .update(`${input.eventId}.${ts}.${input.body}`, 'utf8')
    .digest('base64');
  const legacy = createHmac('sha256', key).update(input.body, 'utf8').digest('hex');
  return {
    'webhook-id': input.eventId,
    'webhook-timestamp': ts,
    'webhook-signature': `v1,${standard}`,
    'x-webhook-event': CATEGORY_HEADER[input.eventCategory],
    'x-webhook-signature': legacy,
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
  };
}
