import { first } from '../../db/query';
import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveries } from '@/db/schema';
import { createAccount } from '@/server/domain/accounts';
import { recordEvent } from '@/server/domain/events';
import { secretKeyBytes } from '@/server/domain/webhooks/secrets';
import type { Services } from '@/server/services';
import { serverServices, waitFor } from '../support/services';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { systemClock } from '../../server/clock';

let srv: RunningServer;
let side: Services; // a second process's view of the server's database, to record events as issues 3/4 do
let receiver: Receiver;
let auth: Record<string, string>;
let other: { apiKey: string; token: string; accountId: string };

const ENVELOPE = ['code', 'content', 'message', 'timestamp'];

beforeAll(async () => {
  srv = await startServer({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0.05,0.1' } });
  receiver = await startReceiver();
  auth = { 'x-api-key': srv.demo.apiKey, 'x-token': await accessToken(srv.url, srv.demo.code, srv.demo.token) };
  side = serverServices(srv.databasePath);
  const creds = await createAccount({ db: side.db, masterKey: side.masterKey, clock: systemClock }, { name: 'Other' });
  other = { apiKey: creds.api_key, token: await accessToken(srv.url, creds.code, creds.token), accountId: creds.account_id };
});
afterAll(async () => {
  await side?.db.close();
  await receiver?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

const create = (body: unknown, key: string | null = `key-${Math.random()}`, headers = auth) =>
  api(srv.url, '/api/webhooks', { body, headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) } });

describe('webhook API over HTTP', () => {
  it('401 in the webhook envelope without headers, with a wrong key, or with a key of another account', async () => {
    const cases: Record<string, string>[] = [
      {},
      { 'x-api-key': srv.demo.apiKey },
      { 'x-token': auth['x-token'] },
      { 'x-api-key': 'pk_nope', 'x-token': auth['x-token'] },
      { 'x-api-key': srv.demo.apiKey, 'x-token': 'at_nope' },
      { 'x-api-key': other.apiKey, 'x-token': auth['x-token'] },
      { authorization: `Bearer ${auth['x-token']}` },
    ];
    for (const headers of cases) {
      for (const res of [
        await api(srv.url, '/api/webhooks', { headers }),
        await create({ url: `${receiver.url}/a`, events: ['withdraw'] }, 'k401', headers),
        await api(srv.url, '/api/webhooks/wh_x', { method: 'DELETE', headers }),
      ]) {
        expect(res.status, JSON.stringify(headers)).toBe(401);
        expect(Object.keys(res.json).sort()).toEqual(['code', 'message', 'timestamp']);
        expect(res.json.code).toBe(401);
      }
    }
    expect((await api(srv.url, '/api/webhooks', { headers: auth })).json.content).toEqual([]);
  });

  it('creates (201), lists (200) and deletes (200, no content) with the spec envelopes', async () => {
    const res = await create({ url: `${receiver.url}/crud`, events: ['transaction', 'dispute'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(ENVELOPE);
    expect(res.json.code).toBe(201);
    const w = res.json.content;
    expect(Object.keys(w).sort()).toEqual(['active', 'created_at', 'events', 'magic_id', 'paused', 'previous_secret_expires_at', 'secret', 'updated_at', 'url']);
    expect(w).toMatchObject({ url: `${receiver.url}/crud`, events: ['transaction', 'dispute'], active: true });
    expect(w.secret).toMatch(/^whsec_/);
    expect(new Date(w.created_at).toISOString()).toBe(w.created_at);

    const list = await api(srv.url, '/api/webhooks', { headers: auth });
    expect(list.status).toBe(200);
    expect(Object.keys(list.json).sort()).toEqual(ENVELOPE);
    expect(list.json.code).toBe(200);
    expect(list.json.content).toEqual([w]);

    const del = await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(200);
    expect(Object.keys(del.json).sort()).toEqual(['code', 'message', 'timestamp']);
    expect(del.json.code).toBe(200);
    expect((await api(srv.url, '/api/webhooks', { headers: auth })).json.content).toEqual([]);

    for (const id of [w.magic_id, 'wh_unknown']) {
      const again = await api(srv.url, `/api/webhooks/${id}`, { method: 'DELETE', headers: auth });
      expect(again.status).toBe(404);
      expect(Object.keys(again.json).sort()).toEqual(['code', 'message', 'timestamp']);
      expect(again.json.code).toBe(404);
    }
  });

  it("another account's webhook: 404 on delete, absent from the list", async () => {
    const theirs = await create({ url: `${receiver.url}/theirs`, events: ['withdraw'] }, 'k-theirs', { 'x-api-key': other.apiKey, 'x-token': other.token });
    expect(theirs.status).toBe(201);
    const res = await api(srv.url, `/api/webhooks/${theirs.json.content.magic_id}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(404);
    expect((await api(srv.url, '/api/webhooks', { headers: auth })).json.content).toEqual([]);
    expect((await api(srv.url, '/api/webhooks', { headers: { 'x-api-key': other.apiKey, 'x-token': other.token } })).json.content).toHaveLength(1);
  });

  it('requires idempotency-key; replays byte for byte; 422 on another body', async () => {
    const body = { url: `${receiver.url}/idem`, events: ['withdraw'] };
    const missing = await create(body, null);
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.json).sort()).toEqual(['code', 'errors', 'message', 'timestamp']);
    expect(missing.json.errors[0].path).toBe('idempotency-key');
    expect((await api(srv.url, '/api/webhooks', { headers: auth })).json.content).toEqual([]);

    const first = await create(body, 'idem-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create(body, 'idem-1');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const different = await create({ ...body, events: ['transaction'] }, 'idem-1');
    expect(different.status).toBe(422);
    expect(Object.keys(different.json).sort()).toEqual(['code', 'message', 'timestamp']);
    expect(different.json.code).toBe(422);
    const list = (await api(srv.url, '/api/webhooks', { headers: auth })).json.content;
    expect(list).toHaveLength(1);
    await api(srv.url, `/api/webhooks/${list[0].magic_id}`, { method: 'DELETE', headers: auth });
  });

  it('concurrent requests with one key: one webhook; each answer the stored bytes, or 409 in the envelope with retry-after', async () => {
    const body = { url: `${receiver.url}/burst`, events: ['dispute'] };
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(body, 'burst-1')));
    const ok = answers.filter((a) => a.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.text)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(Object.keys(a.json).sort()).toEqual(['code', 'message', 'timestamp']);
      expect(a.json.code).toBe(409);
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const list = (await api(srv.url, '/api/webhooks', { headers: auth })).json.content;
    expect(list).toHaveLength(1);
    expect(list[0].magic_id).toBe(ok[0].json.content.magic_id);
    await api(srv.url, `/api/webhooks/${list[0].magic_id}`, { method: 'DELETE', headers: auth });
  });

  it('400 naming the field for bad events, URLs and unknown fields; nothing stored', async () => {
    const cases: [unknown, string][] = [
      [{ url: `${receiver.url}/b`, events: [] }, 'events'],
      [{ url: `${receiver.url}/b`, events: ['withdraw', 'withdraw'] }, 'events'],
      [{ url: `${receiver.url}/b`, events: ['payout'] }, 'events'],
      [{ url: `${receiver.url}/b`, events: 'withdraw' }, 'events'],
      [{ url: 'javascript:alert(1)', events: ['withdraw'] }, 'url'],
      [{ url: 'ftp://example.com/', events: ['withdraw'] }, 'url'],
      [{ url: 42, events: ['withdraw'] }, 'url'],
      [{ url: `${receiver.url}/b`, events: ['withdraw'], active: false }, 'active'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json).sort()).toEqual(['code', 'errors', 'message', 'timestamp']);
      expect(res.json.errors.map((e: { path: string }) => e.path.split('.')[0]), JSON.stringify(body)).toContain(field);
    }
    expect((await api(srv.url, '/api/webhooks', { headers: auth })).json.content).toEqual([]);
  });

  it('delivers events recorded in the database to a real receiver, verifiable; a delivery can be resent over REST', async () => {
    const w = (await create({ url: `${receiver.url}/live`, events: ['transaction'] })).json.content;
    const e = await side.db.write((tx) => recordEvent(tx, {
      accountId: srv.demo.accountId, type: 'transaction.approved', resourceId: 'txn_live', payload: { id: 'txn_live', status: 'APPROVED' }, at: new Date(),
    }));
    await waitFor(() => receiver.byId(e.id).length === 1, { what: 'delivery' });
    const [r] = receiver.byId(e.id);
    expect(new Webhook(w.secret).verify(r.body, r.headers)).toMatchObject({ id: e.id, type: 'transaction.approved', data: { id: 'txn_live' } });
    expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', secretKeyBytes(w.secret)).update(r.body).digest('hex'));
    expect(r.headers['x-webhook-event']).toBe('TRANSACTION');

    const d = await waitFor(async () => (await first(side.db.read.handle.select().from(deliveries).where(eq(deliveries.eventId, e.id)))));
    await waitFor(async () => (await first(side.db.read.handle.select().from(deliveries).where(eq(deliveries.id, d.id))))?.status === 'DELIVERED');
    const res = await api(srv.url, `/api/webhooks/deliveries/${d.id}/resend`, { method: 'POST', headers: auth });
    expect(res.status).toBe(202);
    expect(Object.keys(res.json).sort()).toEqual(ENVELOPE);
    expect(res.json.content).toMatchObject({ id: d.id, event_id: e.id, status: 'PENDING' });
    await waitFor(() => receiver.byId(e.id).length === 2, { what: 'resent delivery' });
    expect(receiver.byId(e.id)[1].body).toBe(r.body);

    const otherResend = await api(srv.url, `/api/webhooks/deliveries/${d.id}/resend`, { method: 'POST', headers: { 'x-api-key': other.apiKey, 'x-token': other.token } });
    expect(otherResend.status).toBe(404);
    expect(otherResend.json.code).toBe(404);
    await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'DELETE', headers: auth });
  });

  it('documents the webhook paths in /openapi.json', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    expect(doc.paths['/api/webhooks'].post.responses['201']).toBeTruthy();
    expect(doc.paths['/api/webhooks'].get).toBeTruthy();
    expect(doc.paths['/api/webhooks/{magic_id}'].delete).toBeTruthy();
    expect(doc.paths['/api/webhooks/deliveries/{delivery_id}/resend'].post.responses['202']).toBeTruthy();
  });
});

describe('SSRF guard at registration (WEBHOOK_ALLOW_PRIVATE_URLS unset)', () => {
  let strict: RunningServer;
  afterAll(async () => {
    await strict?.stop();
    if (strict) removeDir(strict.dir);
  });

  it('refuses loopback, private and link-local hosts with a 400 naming url', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    strict = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: '' } });
    const headers = { 'x-api-key': strict.demo.apiKey, 'x-token': await accessToken(strict.url, strict.demo.code, strict.demo.token) };
    for (const url of ['http://127.0.0.1/hook', 'http://localhost/hook', `http://127.0.0.1:${receiver.port}/x`, 'http://[::1]:8080/', 'http://192.168.0.10/', 'http://169.254.169.254/', 'http://017700000001/']) {
      const res = await api(strict.url, '/api/webhooks', { body: { url, events: ['withdraw'] }, headers: { ...headers, 'idempotency-key': url } });
      expect(res.status, url).toBe(400);
      expect(res.json.code).toBe(400);
      expect(res.json.errors[0].path, url).toBe('url');
    }
    expect((await api(strict.url, '/api/webhooks', { headers })).json.content).toEqual([]);
  });
});
