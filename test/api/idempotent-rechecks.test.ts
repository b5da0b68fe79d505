import { first } from '../../db/query';
import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhooks, withdrawals } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import type { DomainError } from '../../server/errors';
import { IDEMPOTENCY_TTL_MS } from '../../server/domain/idempotency';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';
import { txBody } from '../support/transactions';

/**
 * A replay answers what was stored even if a rule or a DNS answer changed since (docs/decisions.md
 * "Idempotency": byte for byte): the checks that live outside the writer (URL/DNS, rules that change) are
 * skipped for a genuine replay and only for one, i.e. an answer found inside the write job itself.
 */
let s: TestServices;
let clock: ManualClock;
let accountId: string;
beforeEach(async () => {
  clock = new ManualClock(new Date('2026-02-10T13:00:00.000Z'));
  s = await makeTestServices({ clock, config: { webhookAllowPrivateUrls: true } });
  accountId = (await makeAccount(s, { balance: 10_000_000 })).account_id;
});
afterEach(async () => { await s.cleanup(); });

const createCaller = createCallerFactory(appRouter);
const keyed = (kind: 'bearer' | 'webhook-api', key: string) => {
  const ctx = createContextInner({ services: s, auth: { kind, accountId }, headers: { 'idempotency-key': key }, transport: 'rest' });
  return { ctx, api: createCaller(ctx) };
};
async function refusal(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(TRPCError);
  return (e as TRPCError).cause as DomainError;
}

/** Lets `fn` run just before the next write job is queued: "the key expires before the write job runs". */
function beforeNextWrite(fn: () => void) {
  const write = s.db.write;
  s.db.write = (job) => { s.db.write = write; fn(); return write(job); };
}

// a URL the guard refuses once private addresses are no longer allowed (no DNS involved)
const HOOK = 'http://127.0.0.1:9/hook';

describe('createWebhook', () => {
  it('checks the URL when the stored answer the read connection saw has expired by the time the write job runs', async () => {
    const body = { url: HOOK, events: ['withdraw' as const] };
    await keyed('webhook-api', 'k-exp').api.webhooks.create(body);
    s.config.webhookAllowPrivateUrls = false;
    // still a live answer when the request arrives, gone when its job runs
    clock.advance(IDEMPOTENCY_TTL_MS - 1_000);
    beforeNextWrite(() => clock.advance(2_000));
    const e = await refusal(keyed('webhook-api', 'k-exp').api.webhooks.create(body));
    expect(e.status).toBe(400);
    expect(e.extra.issues?.[0].path).toBe('url');
    expect((await s.db.read.handle.select().from(webhooks))).toHaveLength(1);
  });

  it('a replay found inside the write job still skips the check', async () => {
    const body = { url: HOOK, events: ['withdraw' as const] };
    const first = await keyed('webhook-api', 'k-live').api.webhooks.create(body);
    s.config.webhookAllowPrivateUrls = false;
    const replay = keyed('webhook-api', 'k-live');
    expect(await replay.api.webhooks.create(body)).toEqual(first);
    expect(replay.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
  });
});

describe('createWithdrawal and createTransaction', () => {
  const withdrawal = { amount: 250_000, key: 'fulano@example.com', key_type: 'EMAIL' as const, details: { name: 'Fulano', document: '529.982.247-25' }, postback: HOOK };

  it('a genuine replay of a withdrawal is answered even though the postback rule changed since', async () => {
    const first = keyed('bearer', 'wd-1');
    const created = await first.api.withdrawals.create(withdrawal);
    s.config.webhookAllowPrivateUrls = false;
    // and the batch cap too: today the same amount would need more batches than allowed
    s.config.pixMaxBatchCents = 1;
    const replay = keyed('bearer', 'wd-1');
    expect(await replay.api.withdrawals.create(withdrawal)).toEqual(created);
    expect(replay.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    expect((await s.db.read.handle.select().from(withdrawals))).toHaveLength(1);
    // a new key is judged by today's rules
    const fresh = await refusal(keyed('bearer', 'wd-2').api.withdrawals.create(withdrawal));
    expect(fresh.extra.issues?.map((i) => i.path).sort()).toEqual(['amount', 'postback']);
    // and a different body under the old key is still a 422, not a 400
    expect((await refusal(keyed('bearer', 'wd-1').api.withdrawals.create({ ...withdrawal, amount: 1 }))).status).toBe(422);
  });

  it('a genuine replay of a transaction is answered even though the postback rule changed since', async () => {
    const body = txBody('CARD', { postback: HOOK });
    const created = await keyed('bearer', 'tx-1').api.transactions.create(body);
    s.config.webhookAllowPrivateUrls = false;
    const replay = keyed('bearer', 'tx-1');
    expect(await replay.api.transactions.create(body)).toEqual(created);
    expect(replay.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    expect((await refusal(keyed('bearer', 'tx-2').api.transactions.create(body))).extra.issues?.[0].path).toBe('postback');
  });
});
