// @engines none: a unit test with no database (runs once)
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  decryptSecret,
  encryptSecret,
  newWebhookSecret,
  secretKeyBytes,
} from '@/server/domain/webhooks/secrets';
import { signDelivery } from '@/server/domain/webhooks/signing';

const masterKey = Buffer.alloc(32, 7);

describe('webhook secrets', () => {
  it('generates whsec_ + base64 of 32 random bytes', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    expect(secretKeyBytes(a)).toHaveLength(32);
    expect(secretKeyBytes(a).toString('base64')).toBe(a.slice('whsec_'.length));
  });

  it('rejects malformed secrets instead of signing with a garbage key', () => {
    expect(() => secretKeyBytes('whsec_')).toThrow();
    expect(() => secretKeyBytes('whsec_not base64!')).toThrow();
    expect(() => secretKeyBytes('whsec_abc')).toThrow();
  });

  it('encrypts at rest with AES-256-GCM and round-trips', () => {
    const plain = newWebhookSecret();
    const stored = encryptSecret(plain, masterKey);
    expect(stored).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    const [, iv, tag] = stored.split(':');
    expect(Buffer.from(iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64')).toHaveLength(16);
    expect(stored).not.toContain(plain.slice(6));
    expect(decryptSecret(stored, masterKey)).toBe(plain);
    // Fresh IV each time.
    expect(encryptSecret(plain, masterKey)).not.toBe(stored);
  });

  it('fails loudly on tampering, wrong key or bad format', () => {
    const stored = encryptSecret('whsec_c2VjcmV0', masterKey);
    const [v, iv, tag, ct] = stored.split(':');
    const flip = (b64: string) => {
      const buf = Buffer.from(b64, 'base64');
      buf[0] ^= 1;
      return buf.toString('base64');
    };
    expect(() => decryptSecret([v, iv, tag, flip(ct)].join(':'), masterKey)).toThrow(/authentication/);
    expect(() => decryptSecret([v, iv, flip(tag), ct].join(':'), masterKey)).toThrow(/authentication/);
    expect(() => decryptSecret([v, flip(iv), tag, ct].join(':'), masterKey)).toThrow(/authentication/);
    expect(() => decryptSecret(stored, Buffer.alloc(32, 8))).toThrow(/authentication/);
    // Truncated tag would weaken GCM; refuse it.
    const shortTag = Buffer.from(tag, 'base64').subarray(0, 4).toString('base64');
    expect(() => decryptSecret([v, iv, shortTag, ct].join(':'), masterKey)).toThrow();
    expect(() => decryptSecret(`v2:${iv}:${tag}:${ct}`, masterKey)).toThrow();
    expect(() => decryptSecret('garbage', masterKey)).toThrow();
    expect(() => encryptSecret('x', Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('signDelivery', () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({
    id: 'evt_123',
    type: 'transaction.approved',
    category: 'transaction',
    created_at: '2025-01-01T00:00:00.000Z',
    data: { id: 'tx_1', amount: 1000, note: 'ação ✓' },
  });

  it('produces headers that standardwebhooks verifies', () => {
    const now = new Date();
    const headers = signDelivery({ eventId: 'evt_123', timestamp: now, body, secret, eventCategory: 'transaction' });
    expect(headers['webhook-id']).toBe('evt_123');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('pix-payments-webhooks/1');

    const wh = new Webhook(secret);
    expect(wh.verify(body, headers)).toEqual(JSON.parse(body));
    // Same bytes as the reference implementation's signer.
    expect(headers['webhook-signature']).toBe(wh.sign('evt_123', now, body));
  });

  it('is rejected for a tampered body, another id, or another secret', () => {
    const headers = signDelivery({ eventId: 'evt_1', timestamp: new Date(), body, secret, eventCategory: 'withdraw' });
    const wh = new Webhook(secret);
    expect(() => wh.verify(body.replace('1000', '1001'), headers)).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('adds the legacy x-webhook-* headers', () => {
    const cases = [
      ['transaction', 'TRANSACTION'],
      ['withdraw', 'WITHDRAW'],
      ['dispute', 'DISPUTE'],
    ] as const;
    for (const [category, header] of cases) {
      const h = signDelivery({ eventId: 'evt_9', timestamp: new Date(0), body, secret, eventCategory: category });
      expect(h['x-webhook-event']).toBe(header);
      const expected = createHmac('sha256', secretKeyBytes(secret)).update(body, 'utf8').digest('hex');
      expect(h['x-webhook-signature']).toBe(expected);
      expect(h['webhook-timestamp']).toBe('0');
    }
  });
});
