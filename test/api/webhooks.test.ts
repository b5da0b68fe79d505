import { first } from '../../db/query';
import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accounts, customers, deliveries, disputes, events, transactions, webhooks, withdrawals } from '@/db/schema';
import { systemClock } from '@/server/clock';
import { createContextInner } from '@/server/context';
import { appRouter } from '@/server/routers';
import { createCallerFactory } from '@/server/trpc';
import type { Config } from '@/server/config';
import { toDomainError } from '@/server/errors';
import { recordEvent, type EventType } from '@/server/domain/events';
import { decryptSecret, secretKeyBytes } from '@/server/domain/webhooks/secrets';
import { closeWebhookAgents } from '@/server/domain/webhooks/sender';
import { startDeliveryJobs } from '@/server/jobs/delivery';
import { stopJobs } from '@/server/jobs';
import type { JobLoop } from '@/server/jobs/runner';
import { callerFor, makeAccount, makeTestServices, waitFor, type TestServices } from '../support/services';
import { startReceiver, type Receiver } from '../support/webhook-receiver';


let s: TestServices;
let accountId: string;
let receiver: Receiver;
let loops: JobLoop[] = [];

async function setup(config: Partial<Config> = {}) {
  s = await makeTestServices({
    clock: systemClock,
    config: { webhookAllowPrivateUrls: true, webhookRetryScheduleSeconds: [0, 0.05, 0.1], jobPollMs: 25, ...config },
  });
  accountId = (await makeAccount(s)).account_id;
  receiver = await startReceiver();
}

function startDelivering() {
  loops = startDeliveryJobs(s);
  for (const l of loops) s.wake[l.name] = l.wake;
}

beforeEach(async () => { await setup(); });
afterEach(async () => {
  await stopJobs(loops);
  loops = [];
  await receiver.close();
  await s.cleanup();
});
afterAll(() => closeWebhookAgents());

const api = () => callerFor(s, accountId, 'webhook-api');

function record(type: EventType, resourceId: string, payload: unknown = { id: resourceId, status: type.split('.')[1].toUpperCase() }, account = accountId) {
  return s.db.write((tx) => recordEvent(tx, { accountId: account, type, resourceId, payload, at: s.clock.now() }));
}

async function deliveryRows() {
  return s.db.read.handle.select().from(deliveries);
}

async function attemptsOf(webhookId: string) {
  return (await api().webhooks.deliveries({ magic_id: webhookId })).content;
}

function domainErr(err: unknown) {
  return toDomainError(err);
}

async function rejects(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return domainErr(err);
  }
  throw new Error('expected a rejection');
}

describe('webhook subscriptions (tRPC)', () => {
  it('creates, lists and deletes with the spec shape and envelopes; the secret is encrypted at rest', async () => {
    const created = await api().webhooks.create({ url: `${receiver.url}/hook`, events: ['transaction', 'withdraw'] });
    expect(created).toMatchObject({ code: 201, message: expect.any(String), timestamp: expect.any(String) });
    const w = created.content;
    expect(Object.keys(w).sort()).toEqual(['active', 'created_at', 'events', 'magic_id', 'paused', 'previous_secret_expires_at', 'secret', 'updated_at', 'url']);
    expect(w.magic_id).toMatch(/^wh_/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKeyBytes(w.secret)).toHaveLength(32);
    expect(w).toMatchObject({ url: `${receiver.url}/hook`, events: ['transaction', 'withdraw'], active: true });

    const row = (await first(s.db.read.handle.select().from(webhooks).where(eq(webhooks.id, w.magic_id))))!;
    expect(row.secretEnc).not.toContain(w.secret.slice(6));
    expect(decryptSecret(row.secretEnc, s.masterKey)).toBe(w.secret);

    const list = await api().webhooks.list();
    expect(list).toMatchObject({ code: 200, content: [w] });

    const del = await api().webhooks.delete({ magic_id: w.magic_id });
    expect(Object.keys(del).sort()).toEqual(['code', 'message', 'timestamp']);
    expect(del.code).toBe(200);
    expect((await api().webhooks.list()).content).toEqual([]);
    expect((await rejects(api().webhooks.delete({ magic_id: w.magic_id }))).status).toBe(404);
  });

  it("another account's webhook is a 404, and invisible in its list", async () => {
    const other = (await makeAccount(s)).account_id;
    const w = (await callerFor(s, other, 'webhook-api').webhooks.create({ url: `${receiver.url}/x`, events: ['dispute'] })).content;
    expect((await api().webhooks.list()).content).toEqual([]);
    expect((await rejects(api().webhooks.delete({ magic_id: w.magic_id }))).status).toBe(404);
    expect((await rejects(api().webhooks.deliveries({ magic_id: w.magic_id }))).status).toBe(404);
    expect((await callerFor(s, other, 'webhook-api').webhooks.list()).content).toHaveLength(1);
  });

  it('refuses bad events and URLs with a 400 naming the field; nothing is stored', async () => {
    const bad: [unknown, string][] = [
      [{ url: `${receiver.url}/a`, events: [] }, 'events'],
      [{ url: `${receiver.url}/a`, events: ['transaction', 'transaction'] }, 'events'],
      [{ url: `${receiver.url}/a`, events: ['refund'] }, 'events'],
      [{ url: `${receiver.url}/a` }, 'events'],
      [{ url: 'ftp://example.com/a', events: ['withdraw'] }, 'url'],
      [{ url: 'not a url', events: ['withdraw'] }, 'url'],
      [{ url: 'http://user:pw@example.com/', events: ['withdraw'] }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}`, events: ['withdraw'] }, 'url'],
      [{ events: ['withdraw'] }, 'url'],
      [{ url: `${receiver.url}/a`, events: ['withdraw'], extra: 1 }, 'extra'],
    ];
    for (const [input, field] of bad) {
      const e = await rejects(api().webhooks.create(input as never));
      expect(e.status, JSON.stringify(input)).toBe(400);
      expect(e.extra.issues?.map((i) => i.path.split('.')[0]), JSON.stringify(input)).toContain(field);
    }
    expect((await s.db.read.handle.select().from(webhooks))).toEqual([]);
  });

  it('refuses private and loopback URLs at registration unless WEBHOOK_ALLOW_PRIVATE_URLS', async () => {
    s.config.webhookAllowPrivateUrls = false;
    for (const url of ['http://127.0.0.1/hook', 'http://localhost/hook', 'http://[::1]/', 'http://2130706433/', 'http://0x7f000001/',
      'http://10.0.0.1/', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
      const e = await rejects(api().webhooks.create({ url, events: ['withdraw'] }));
      expect(e.status, url).toBe(400);
      expect(e.extra.issues?.[0].path, url).toBe('url');
    }
    expect((await s.db.read.handle.select().from(webhooks))).toEqual([]);
  });
});

describe('idempotency-key on create (docs/decisions.md "Idempotency")', () => {
  const createCaller = createCallerFactory(appRouter);
  const keyed = (key: string | undefined, transport: 'caller' | 'rest' = 'caller') => {
    const ctx = createContextInner({ services: s, auth: { kind: 'webhook-api', accountId }, headers: key === undefined ? {} : { 'idempotency-key': key }, transport });
    return { ctx, api: createCaller(ctx) };
  };

  it('same key while the first is running → 409 with retry-after; then the stored answer; another body → 422', async () => {
    const body = { url: `${receiver.url}/idem`, events: ['withdraw' as const] };
    const [a, b] = await Promise.allSettled([keyed('k-1').api.webhooks.create(body), keyed('k-1').api.webhooks.create(body)]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    const busy = domainErr((b as PromiseRejectedResult).reason);
    expect(busy).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', status: 409 });
    expect(busy.extra.retryAfterSeconds).toBeGreaterThan(0);

    const replay = keyed('k-1');
    expect(await replay.api.webhooks.create(body)).toEqual((a as PromiseFulfilledResult<unknown>).value);
    expect(replay.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    expect((await rejects(keyed('k-1').api.webhooks.create({ ...body, events: ['dispute'] }))).status).toBe(422);
    expect((await s.db.read.handle.select().from(webhooks))).toHaveLength(1);
  });

  it("a replay answers from the stored answer, not from today's URL check", async () => {
    const body = { url: `${receiver.url}/idem`, events: ['withdraw' as const] };
    const first = await keyed('k-2', 'rest').api.webhooks.create(body);
    // e.g. the policy tightened, or the name no longer resolves: the webhook exists all the same
    s.config.webhookAllowPrivateUrls = false;
    const replay = keyed('k-2', 'rest');
    expect(await replay.api.webhooks.create(body)).toEqual(first);
    expect(replay.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    expect((await rejects(keyed('k-2', 'rest').api.webhooks.create({ ...body, events: ['dispute'] }))).status).toBe(422);
    // a new key still gets the check
    expect((await rejects(keyed('k-3', 'rest').api.webhooks.create(body))).extra.issues?.[0].path).toBe('url');
    expect((await s.db.read.handle.select().from(webhooks))).toHaveLength(1);
  });

  it('REST requires the key (400 naming idempotency-key); a bad key is a 400 too; nothing stored', async () => {
    const body = { url: `${receiver.url}/idem`, events: ['withdraw' as const] };
    for (const key of [undefined, '', 'x'.repeat(256), 'has space']) {
      const e = await rejects(keyed(key, 'rest').api.webhooks.create(body));
      expect(e.status, String(key)).toBe(400);
      expect(e.extra.issues?.[0].path).toBe('idempotency-key');
    }
    expect((await s.db.read.handle.select().from(webhooks))).toEqual([]);
  });
});

describe('dispatch and delivery', () => {
  it('fans an event out to each subscribed webhook and the postback, signed and verifiable', async () => {
    const tx = await api().webhooks.create({ url: `${receiver.url}/tx`, events: ['transaction'] });
    const wd = await api().webhooks.create({ url: `${receiver.url}/wd`, events: ['withdraw', 'dispute'] });
    const gone = await api().webhooks.create({ url: `${receiver.url}/deleted`, events: ['withdraw'] });
    await api().webhooks.delete({ magic_id: gone.content.magic_id });
    const now = s.clock.now().toISOString();
    await s.db.write((t) => t.handle.insert(withdrawals).values({
      id: 'wd_postback1', accountId, status: 'REQUESTED', amount: 100, key: 'a@b.co', keyType: 'EMAIL', detailsName: 'A',
      detailsDocument: '52998224725', postback: `${receiver.url}/postback`, createdAt: now, updatedAt: now,
    }));
    startDelivering();
    const payload = { id: 'wd_postback1', status: 'REQUESTED', amount: 100, receipt: [], note: 'çã "quoted"' };
    const e = await record('withdraw.requested', 'wd_postback1', payload);

    await waitFor(async () => receiver.received.length >= 2 && (await deliveryRows()).every((d) => d.status === 'DELIVERED'), { what: 'two deliveries' });
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/postback', '/wd']);
    const ev = (await first(s.db.read.handle.select().from(events).where(eq(events.id, e.id))))!;
    expect(ev.dispatchedAt).not.toBeNull();

    const postbackSecret = decryptSecret((await first(s.db.read.handle.select().from(accounts).where(eq(accounts.id, accountId))))!.postbackSecretEnc, s.masterKey);
    for (const r of receiver.received) {
      const secret = r.path === '/wd' ? wd.content.secret : postbackSecret;
      expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(JSON.parse(r.body));
      expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', secretKeyBytes(secret)).update(r.body).digest('hex'));
      expect(r.headers['x-webhook-event']).toBe('WITHDRAW');
      expect(r.headers['webhook-id']).toBe(e.id);
      expect(r.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(JSON.parse(r.body)).toEqual({ id: e.id, type: 'withdraw.requested', category: 'withdraw', created_at: e.createdAt, data: payload });
      // a signature under another secret does not verify
      expect(() => new Webhook(tx.content.secret).verify(r.body, r.headers)).toThrow();
    }
    expect((await deliveryRows())).toHaveLength(2);
    const log = await attemptsOf(wd.content.magic_id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'DELIVERED', attempt_count: 1, event_id: e.id, event_type: 'withdraw.requested', target: 'webhook' });
    expect(log[0].attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'ok', error: null });
    expect(log[0].attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("sends transaction and dispute events to the transaction's postback, signed with the account's postback secret", async () => {
    const now = s.clock.now().toISOString();
    await s.db.write(async (t) => {
      await t.handle.insert(customers).values({ id: 'cus_pb', accountId, name: 'C', email: 'c@example.com', document: '52998224725', createdAt: now });
      await t.handle.insert(transactions).values({
        id: 'txn_pb', accountId, identifier: 'idf_pb', method: 'CARD', status: 'APPROVED', amount: 500, customerId: 'cus_pb',
        items: '[]', postback: `${receiver.url}/txn-postback`, createdAt: now, updatedAt: now,
      });
      await t.handle.insert(disputes).values({ id: 'dsp_pb', accountId, transactionId: 'txn_pb', status: 'OPEN', amount: 500, createdAt: now, updatedAt: now });
    });
    startDelivering();
    const e1 = await record('transaction.approved', 'txn_pb');
    const e2 = await record('dispute.opened', 'dsp_pb');
    await waitFor(() => receiver.received.length === 2, { what: 'two postbacks' });
    const secret = decryptSecret((await first(s.db.read.handle.select().from(accounts).where(eq(accounts.id, accountId))))!.postbackSecretEnc, s.masterKey);
    expect(receiver.byId(e1.id)[0]).toMatchObject({ path: '/txn-postback', headers: { 'x-webhook-event': 'TRANSACTION' } });
    expect(receiver.byId(e2.id)[0]).toMatchObject({ path: '/txn-postback', headers: { 'x-webhook-event': 'DISPUTE' } });
    for (const r of receiver.received) expect(new Webhook(secret).verify(r.body, r.headers)).toBeTruthy();
    expect((await deliveryRows()).map((d) => d.target)).toEqual(['postback', 'postback']);

    // the postback log: the account's postback deliveries (per resource), with attempts, to resend by hand
    await waitFor(async () => (await deliveryRows()).every((d) => d.status === 'DELIVERED'));
    const all = await api().webhooks.postbackDeliveries({});
    expect(all.items.map((d) => d.event_id).sort()).toEqual([e1.id, e2.id].sort());
    const [pb] = (await api().webhooks.postbackDeliveries({ resourceId: 'dsp_pb' })).items;
    expect(pb).toMatchObject({ target: 'postback', webhook_id: null, url: `${receiver.url}/txn-postback`, event_type: 'dispute.opened', status: 'DELIVERED', attempt_count: 1 });
    expect(pb.attempts).toEqual([expect.objectContaining({ status_code: 200, response_excerpt: 'ok', error: null })]);
    const page = await api().webhooks.postbackDeliveries({ limit: 1 });
    expect(page.items).toHaveLength(1);
    const rest = await api().webhooks.postbackDeliveries({ limit: 1, cursor: page.next_cursor });
    expect([...page.items, ...rest.items].map((d) => d.id)).toEqual(all.items.map((d) => d.id));
    expect(rest.next_cursor).toBeNull();
    await api().webhooks.resend({ delivery_id: pb.id });
    await waitFor(() => receiver.byId(e2.id).length === 2, { what: 'resent postback' });
    expect(new Webhook(secret).verify(receiver.byId(e2.id)[1].body, receiver.byId(e2.id)[1].headers)).toBeTruthy();
    // another account sees none of them
    const other = (await makeAccount(s)).account_id;
    expect((await callerFor(s, other, 'webhook-api').webhooks.postbackDeliveries({})).items).toEqual([]);
  });

  it("other accounts' events and inactive webhooks get nothing", async () => {
    const other = (await makeAccount(s)).account_id;
    await api().webhooks.create({ url: `${receiver.url}/mine`, events: ['transaction'] });
    const off = await api().webhooks.create({ url: `${receiver.url}/off`, events: ['transaction'] });
    await s.db.write((t) => t.handle.update(webhooks).set({ active: 0 }).where(eq(webhooks.id, off.content.magic_id)));
    startDelivering();
    await record('transaction.created', 'txn_other', undefined, other);
    const mine = await record('transaction.created', 'txn_mine');
    await waitFor(() => receiver.byId(mine.id).length === 1, { what: 'own event' });
    await waitFor(async () => (await s.db.read.handle.select().from(events)).every((e) => e.dispatchedAt !== null));
    expect(receiver.received.map((r) => r.path)).toEqual(['/mine']);
  });

  it('retries on the schedule after 500s, with identical body bytes and a stable webhook-id, then succeeds', async () => {
    receiver.setAnswer((_r, n) => (n < 2 ? { status: 500, body: 'é'.repeat(800) } : { status: 204 }));
    const w = await api().webhooks.create({ url: `${receiver.url}/retry`, events: ['transaction'] });
    startDelivering();
    const e = await record('transaction.approved', 'txn_1');
    await waitFor(async () => (await deliveryRows())[0]?.status === 'DELIVERED', { what: 'delivered after retries' });
    const got = receiver.byId(e.id);
    expect(got.map((r) => r.status)).toEqual([500, 500, 204]);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    for (const r of got) expect(new Webhook(w.content.secret).verify(r.body, r.headers)).toBeTruthy();
    // waits follow the schedule: [0, 0.05, 0.1] s
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(45);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(95);
    const [d] = await attemptsOf(w.content.magic_id);
    expect(d).toMatchObject({ status: 'DELIVERED', attempt_count: 3, last_status_code: 204, last_error: null, next_attempt_at: null });
    expect(d.attempts.map((a) => a.status_code)).toEqual([500, 500, 204]);
    expect(d.attempts[0].error).toBe('unexpected status HTTP 500');
    expect(Buffer.byteLength(d.attempts[0].response_excerpt!, 'utf8')).toBeLessThanOrEqual(1024);
    expect(d.attempts[0].response_excerpt!.startsWith('éé')).toBe(true);
  });

  it('gives up after the last scheduled attempt (FAILED), and a resend by hand delivers it', async () => {
    receiver.setAnswer(() => ({ status: 503 }));
    const w = await api().webhooks.create({ url: `${receiver.url}/down`, events: ['dispute'] });
    startDelivering();
    const e = await record('dispute.opened', 'dsp_1');
    await waitFor(async () => (await deliveryRows())[0]?.status === 'FAILED', { what: 'FAILED' });
    expect(receiver.byId(e.id)).toHaveLength(3);
    const [failed] = await attemptsOf(w.content.magic_id);
    expect(failed).toMatchObject({ status: 'FAILED', attempt_count: 3, last_status_code: 503, next_attempt_at: null });

    receiver.setAnswer(() => ({ status: 200 }));
    const resent = await api().webhooks.resend({ delivery_id: failed.id });
    expect(resent).toMatchObject({ code: 202, content: { id: failed.id, status: 'PENDING' } });
    await waitFor(async () => (await deliveryRows())[0]?.status === 'DELIVERED', { what: 'resent' });
    const got = receiver.byId(e.id);
    expect(got).toHaveLength(4);
    expect(got[3].body).toBe(got[0].body);
    expect(new Webhook(w.content.secret).verify(got[3].body, got[3].headers)).toBeTruthy();

    // a delivered one can be resent too: one more attempt, same webhook-id
    await api().webhooks.resend({ delivery_id: failed.id });
    await waitFor(async () => receiver.byId(e.id).length === 5 && (await deliveryRows())[0].attempts === 5 && (await deliveryRows())[0].status === 'DELIVERED');

    // a by-hand attempt that fails is final: no retry schedule restarts
    receiver.setAnswer(() => ({ status: 500 }));
    await api().webhooks.resend({ delivery_id: failed.id });
    await waitFor(async () => (await deliveryRows())[0].attempts === 6 && (await deliveryRows())[0].status === 'FAILED');
    expect((await rejects(api().webhooks.resend({ delivery_id: 'dlv_nope' }))).status).toBe(404);
    const other = (await makeAccount(s)).account_id;
    expect((await rejects(callerFor(s, other, 'webhook-api').webhooks.resend({ delivery_id: failed.id }))).status).toBe(404);
  });

  it('410 disables the webhook and stops its pending deliveries', async () => {
    receiver.setAnswer(() => ({ status: 410, body: 'gone' }));
    const w = await api().webhooks.create({ url: `${receiver.url}/gone`, events: ['transaction'] });
    const e1 = await record('transaction.created', 'txn_g');
    const e2 = await record('transaction.approved', 'txn_g'); // queued behind e1 (same resource)
    startDelivering();
    await waitFor(async () => (await deliveryRows()).length === 2 && (await deliveryRows()).every((d) => d.status === 'FAILED'), { what: 'both FAILED' });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([e1.id]);
    expect((await api().webhooks.list()).content[0]).toMatchObject({ magic_id: w.content.magic_id, active: false });
    const log = await attemptsOf(w.content.magic_id);
    expect(log.find((d) => d.event_id === e2.id)).toMatchObject({ status: 'FAILED', attempt_count: 0, last_error: 'webhook disabled after HTTP 410' });
    expect(log.find((d) => d.event_id === e1.id)).toMatchObject({ status: 'FAILED', attempt_count: 1, last_status_code: 410 });
    // an inactive webhook gets no new deliveries, and resending to it is refused
    await record('transaction.refused', 'txn_h');
    await waitFor(async () => (await s.db.read.handle.select().from(events)).every((e) => e.dispatchedAt !== null));
    expect((await deliveryRows())).toHaveLength(2);
    expect((await rejects(api().webhooks.resend({ delivery_id: log[0].id }))).status).toBe(422);
  });

  it('does not follow redirects', async () => {
    receiver.setAnswer((r) => (r.path === '/moved' ? { status: 302, headers: { location: `${receiver.url}/target` } } : { status: 200 }));
    const w = await api().webhooks.create({ url: `${receiver.url}/moved`, events: ['withdraw'] });
    startDelivering();
    await record('withdraw.paid', 'wd_r');
    await waitFor(async () => (await deliveryRows())[0]?.status === 'FAILED', { what: 'FAILED' });
    expect(receiver.received.map((r) => r.path)).toEqual(['/moved', '/moved', '/moved']);
    const [d] = await attemptsOf(w.content.magic_id);
    expect(d.attempts[0]).toMatchObject({ status_code: 302, error: 'redirect not followed (HTTP 302)' });
  });

  it('times out after WEBHOOK_TIMEOUT_MS', async () => {
    await stopJobs(loops);
    await receiver.close();
    await s.cleanup();
    await setup({ webhookTimeoutMs: 150, webhookRetryScheduleSeconds: [0] });
    receiver.setAnswer(() => 'hang');
    const w = await api().webhooks.create({ url: `${receiver.url}/slow`, events: ['withdraw'] });
    startDelivering();
    await record('withdraw.paid', 'wd_t');
    await waitFor(async () => (await deliveryRows())[0]?.status === 'FAILED', { what: 'FAILED' });
    const [d] = await attemptsOf(w.content.magic_id);
    expect(d.attempts[0]).toMatchObject({ status_code: null, error: 'timeout after 150 ms' });
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(140);
  });

  it("delivers a resource's events in order: a later one waits while an earlier one is retried", async () => {
    let release = false;
    const first = new Set<string>();
    await stopJobs(loops);
    await s.cleanup();
    await receiver.close();
    // many retries, so the first event is still being retried while we look
    await setup({ webhookRetryScheduleSeconds: [0, ...Array(200).fill(0.02)] });
    receiver.setAnswer((r) => (first.has(r.headers['webhook-id']) && !release ? { status: 500 } : { status: 200 }));
    await api().webhooks.create({ url: `${receiver.url}/ordered`, events: ['transaction'] });
    const a = await record('transaction.created', 'txn_A');
    first.add(a.id);
    const b = await record('transaction.approved', 'txn_A');
    const other = await record('transaction.created', 'txn_B');
    startDelivering();
    // another resource is not held up, while A's first event keeps failing and its second waits
    await waitFor(() => receiver.byId(other.id).length === 1 && receiver.byId(a.id).length >= 3, { what: 'retries under way' });
    expect(receiver.byId(b.id)).toHaveLength(0);
    // it waits without being due, so the sender's due query never scans it
    expect((await deliveryRows()).find((d) => d.eventId === b.id)).toMatchObject({ status: 'PENDING', nextAttemptAt: null });
    release = true;
    await waitFor(() => receiver.byId(b.id).length === 1, { what: 'second event' });
    const order = receiver.received.filter((r) => r.path === '/ordered' && r.headers['webhook-id'] !== other.id);
    const firstOk = order.findIndex((r) => r.headers['webhook-id'] === a.id && r.status === 200);
    const bAt = order.findIndex((r) => r.headers['webhook-id'] === b.id);
    expect(firstOk).toBeGreaterThanOrEqual(0);
    expect(bAt).toBe(firstOk + 1);
    // the receiver answers before the engine records the attempt: wait for the record, don't race it
    await waitFor(async () => (await deliveryRows()).every((d) => d.status === 'DELIVERED'), { what: 'all recorded DELIVERED' });
  });

  it('checks the address again at connect time (IP literal and a name resolving to loopback)', async () => {
    const lit = await api().webhooks.create({ url: `${receiver.url}/literal`, events: ['withdraw'] });
    const name = await api().webhooks.create({ url: `http://localhost:${receiver.port}/name`, events: ['withdraw'] });
    s.config.webhookAllowPrivateUrls = false; // e.g. the setting changed after registration, or DNS rebinding
    startDelivering();
    await record('withdraw.requested', 'wd_ssrf');
    await waitFor(async () => (await deliveryRows()).length === 2 && (await deliveryRows()).every((d) => d.status === 'FAILED'), { what: 'refused' });
    expect(receiver.received).toHaveLength(0);
    const [l] = await attemptsOf(lit.content.magic_id);
    expect(l.attempts.map((a) => a.error)).toEqual(Array(3).fill('refused: private or reserved address'));
    const [n] = await attemptsOf(name.content.magic_id);
    expect(n.attempts[0]).toMatchObject({ status_code: null, error: 'refused: host resolves to a private or reserved address' });
  });

  it('deleting a webhook stops its pending deliveries', async () => {
    receiver.setAnswer(() => ({ status: 500 }));
    await stopJobs(loops);
    await s.cleanup();
    await receiver.close();
    await setup({ webhookRetryScheduleSeconds: [0, 3600] });
    receiver.setAnswer(() => ({ status: 500 }));
    const w = await api().webhooks.create({ url: `${receiver.url}/del`, events: ['withdraw'] });
    startDelivering();
    await record('withdraw.error', 'wd_d');
    await waitFor(async () => (await deliveryRows())[0]?.attempts === 1, { what: 'first attempt' });
    expect((await deliveryRows())[0].status).toBe('PENDING');
    await api().webhooks.delete({ magic_id: w.content.magic_id });
    expect((await deliveryRows())[0]).toMatchObject({ status: 'FAILED', lastError: 'webhook deleted', nextAttemptAt: null });
  });

  it('a delivery waiting behind one that stops (its webhook deleted) moves up', async () => {
    await stopJobs(loops);
    await s.cleanup();
    await receiver.close();
    await setup({ webhookRetryScheduleSeconds: [0, 3600] });
    receiver.setAnswer(() => ({ status: 500 }));
    // two webhooks on one URL: one queue per (URL, resource)
    const a = await api().webhooks.create({ url: `${receiver.url}/shared`, events: ['withdraw'] });
    const b = await api().webhooks.create({ url: `${receiver.url}/shared`, events: ['withdraw'] });
    startDelivering();
    await record('withdraw.requested', 'wd_shared');
    await waitFor(async () => (await deliveryRows()).some((d) => d.attempts === 1), { what: 'the head tried' });
    const head = (await deliveryRows()).find((d) => d.attempts === 1)!;
    const waiting = (await deliveryRows()).find((d) => d.id !== head.id)!;
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 0, nextAttemptAt: null });
    await api().webhooks.delete({ magic_id: head.webhookId === a.content.magic_id ? a.content.magic_id : b.content.magic_id });
    await waitFor(async () => (await deliveryRows()).find((d) => d.id === waiting.id)!.attempts === 1, { what: 'the waiting one tried' });
    expect(receiver.received).toHaveLength(2);
  });

  it('lists deliveries newest first with a cursor', async () => {
    const w = await api().webhooks.create({ url: `${receiver.url}/page`, events: ['transaction'] });
    startDelivering();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await record('transaction.created', `txn_p${i}`)).id);
    await waitFor(async () => (await deliveryRows()).length === 5 && (await deliveryRows()).every((d) => d.status === 'DELIVERED'));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<ReturnType<typeof api>['webhooks']['deliveries']>> = await api().webhooks.deliveries({ magic_id: w.content.magic_id, limit: 2, cursor });
      expect(page.content.length).toBeLessThanOrEqual(2);
      seen.push(...page.content.map((d) => d.event_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());
    // limit may arrive from a query string ("2" over REST); anything but digits is a 400
    for (const limit of ['two', '2.5', '1e1', 0, 101, 2.5]) {
      expect((await rejects(api().webhooks.deliveries({ magic_id: w.content.magic_id, limit: limit as never }))).status).toBe(400);
    }
  });
});
