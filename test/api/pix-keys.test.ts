import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ledgerEntries, withdrawalBatches } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import type { DomainError } from '../../server/errors';
import { auditLedger, merchantBalance } from '../../server/domain/ledger';
import { railFor } from '../../server/domain/rails';
import { runSettlementPass } from '../../server/domain/withdrawals/settle';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/** pix.lookupKey (GET /pix/keys) through createCaller, and what the rail's directory means for settlement. */
let s: TestServices;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock(new Date('2026-05-04T15:00:00.000Z'));
  s = await makeTestServices({ clock, config: { sandboxSettlementDelayMs: 1_000, pixMaxBatchCents: 100_000 } });
});
afterEach(async () => { await s.cleanup(); });

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(TRPCError);
  return { code: (e as TRPCError).code, domain: (e as TRPCError).cause as DomainError };
}

describe('pix.lookupKey', () => {
  it('answers the holder with a masked document and a real bank, the same for the same key typed two ways', async () => {
    const acc = await makeAccount(s);
    const api = callerFor(s, acc.account_id);
    const a = await api.pix.lookupKey({ key: '529.982.247-25', key_type: 'CPF' });
    expect(a).toEqual({
      key: '52998224725', key_type: 'CPF',
      holder: { name: expect.stringMatching(/^\p{Lu}\p{L}+( \p{Lu}\p{L}+){2,3}$/u), document_masked: '***.982.247-**' },
      bank: { name: expect.any(String), ispb: expect.stringMatching(/^\d{8}$/) },
      timestamp: '2026-05-04T15:00:00.000Z',
    });
    expect(await api.pix.lookupKey({ key: '52998224725', key_type: 'CPF' })).toEqual(a);
    const company = await api.pix.lookupKey({ key: '11.222.333/0001-81', key_type: 'CNPJ' });
    expect(company.holder.document_masked).toBe('**.222.333/0001-**');
    const email = await api.pix.lookupKey({ key: ' Fulano@Example.COM ', key_type: 'EMAIL' });
    expect(email.key).toBe('fulano@example.com');
    expect(email.holder.document_masked).toMatch(/^(\*\*\*\.\d{3}\.\d{3}-\*\*|\*\*\.\d{3}\.\d{3}\/\d{4}-\*\*)$/);
  });

  it('refuses a malformed key with 400 naming the rule, as a withdrawal would', async () => {
    const api = callerFor(s, (await makeAccount(s)).account_id);
    for (const [key_type, key, rule] of [
      ['CPF', '529.982.247-26', /check digits/], ['EMAIL', 'not-an-email', /e-mail/], ['PHONE', '11987654321', /\+55/],
      ['EVP', 'abc', /UUID/], ['CNPJ', '11.222.333/0001-80', /check digits/],
    ] as const) {
      const f = await failure(api.pix.lookupKey({ key, key_type }));
      expect(f.code).toBe('BAD_REQUEST');
      expect(f.domain.code).toBe('VALIDATION');
      expect(f.domain.extra.issues?.[0].path).toBe('key');
      expect(f.domain.detail).toMatch(rule);
    }
    const wrongType = await failure(api.pix.lookupKey({ key: 'a@b.co', key_type: 'IBAN' as never }));
    expect(wrongType.domain.extra.issues?.[0].path).toBe('key_type');
  });

  it('answers 404 for a key the directory does not know', async () => {
    const api = callerFor(s, (await makeAccount(s)).account_id);
    const f = await failure(api.pix.lookupKey({ key: 'Unknown@Sandbox.test', key_type: 'EMAIL' }));
    expect([f.code, f.domain.code]).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect(f.domain.detail).toBe('no EMAIL Pix key unknown@sandbox.test is registered in the Pix directory');
  });

  it('needs credentials', async () => {
    const f = await failure(callerFor(s, null).pix.lookupKey({ key: 'a@b.co', key_type: 'EMAIL' }));
    expect(f.code).toBe('UNAUTHORIZED');
  });

  it('answers 503 when no rail is configured (SANDBOX=false)', async () => {
    await s.cleanup();
    s = await makeTestServices({ clock, config: { sandbox: false } });
    const f = await failure(callerFor(s, (await makeAccount(s)).account_id).pix.lookupKey({ key: 'a@b.co', key_type: 'EMAIL' }));
    expect([f.code, f.domain.status]).toEqual(['SERVICE_UNAVAILABLE', 503]);
  });
});

describe('a withdrawal to a key the directory does not know', () => {
  it('is accepted as before, then every batch fails with a reason and the money comes back', async () => {
    const acc = await makeAccount(s, { balance: 500_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create({ amount: 150_000, key: 'unknown@sandbox.test', key_type: 'EMAIL', details: { name: 'Ninguém', document: '52998224725' } });
    expect(res.data.map((b) => b.status)).toEqual(['PENDING', 'PENDING']);
    expect((await merchantBalance(s.db.read, acc.account_id)).available).toBe(350_000);
    clock.advance(1_000);
    expect(await runSettlementPass(s, railFor(s.config)!)).toBe(2);
    const view = await api.withdrawals.get({ identifier: res.data[0].identifier });
    expect(view.status).toBe('ERROR');
    expect(view.receipt).toEqual(res.data.map((b) => ({
      status: 'ERROR', endtoend: null, identifier: b.identifier, amount: b.amount,
      receiver_name: null, receiver_bank: null, receiver_bank_ispb: null,
      failure_code: 'KEY_NOT_FOUND', failure_reason: 'The Pix key is not registered in the Pix directory (DICT), so nothing was sent.',
    })));
    const rows = await s.db.read.handle.select().from(withdrawalBatches).where(eq(withdrawalBatches.withdrawalId, view.id));
    expect(rows.map((r) => [r.failureCode, r.failureReason])).toEqual(view.receipt.map((r) => [r.failure_code, r.failure_reason]));
    expect((await merchantBalance(s.db.read, acc.account_id)).available).toBe(500_000);
  });

  it('returns the money once when settlement passes race over its batches', async () => {
    const acc = await makeAccount(s, { balance: 500_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create({ amount: 250_000, key: 'unknown@sandbox.test', key_type: 'EMAIL', details: { name: 'Ninguém', document: '52998224725' } });
    clock.advance(1_000);
    const rail = railFor(s.config)!;
    await Promise.all([1, 2, 3, 4].map(() => runSettlementPass(s, rail)));
    // every pass read the same three due batches; each batch's refund was written by exactly one of them
    const refunds = await s.db.read.handle.select({ resourceId: ledgerEntries.resourceId }).from(ledgerEntries).where(eq(ledgerEntries.kind, 'withdrawal_failed'));
    expect(refunds.map((r) => r.resourceId).sort()).toEqual(res.data.map((b) => b.identifier).sort());
    const view = await api.withdrawals.get({ identifier: res.data[0].identifier });
    expect(view.receipt.map((r) => r.failure_code)).toEqual(['KEY_NOT_FOUND', 'KEY_NOT_FOUND', 'KEY_NOT_FOUND']);
    expect(await merchantBalance(s.db.read, acc.account_id)).toEqual({ available: 500_000, blocked: 0, inFlight: 0 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });
});
