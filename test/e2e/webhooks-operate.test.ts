import { rawExec, rawRow } from '../../db/query';
import { first } from '../../db/query';
import { createHmac } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '@/db/schema';
import { createAccount } from '@/server/domain/accounts';
import { recordEvent } from '@/server/domain/events';
import { secretKeyBytes } from '@/server/domain/webhooks/secrets';
import type { Services } from '@/server/services';
import { serverServices, waitFor } from '../support/services';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { systemClock } from '../../server/clock';

// docs/decisions.md "Webhook deliveries over REST" (deliveries and the test event) and operating a webhook
// (docs/api.md "Webhooks": edit, pause, resume, rotate, resend),
// against the real server over HTTP with a receiver on 127.0.0.1.

let srv: RunningServer;
let side: Services; // a second view of the server's database: records events as the domain does
let receiver: Receiver;
let auth: Record<string, string>;
let other: { apiKey: string; token: string };

beforeAll(async () => {
  srv = await startServer({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0.05' } });
  receiver = await startReceiver((r) => (r.path.startsWith('/fail') ? { status: 500, body: `nope ${'x'.repeat(2000)}` } : { status: 200, body: 'thanks' }));
  auth = { 'x-api-key': srv.demo.apiKey, 'x-token': await accessToken(srv.url, srv.demo.code, srv.demo.token) };
  side = serverServices(srv.databasePath);
  const creds = await createAccount({ db: side.db, masterKey: side.masterKey, clock: systemClock }, { name: 'Other' });
  other = { apiKey: creds.api_key, token: await accessToken(srv.url, creds.code, creds.token) };
});
afterAll(async () => {
  await side?.db.close();
  await receiver?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

async function hook(path: string, events = ['transaction']) {
  const res = await api(srv.url, '/api/webhooks', { body: { url: `${receiver.url}${path}`, events }, headers: { ...auth, 'idempotency-key': `k-${path}-${Math.random()}` } });
  expect(res.status).toBe(201);
  return res.json.content as { magic_id: string; secret: string; url: string };
}

const sendTest = (id: string, headers = auth) => api(srv.url, `/api/webhooks/${id}/test`, { method: 'POST', headers });
const deliveriesOf = (id: string, query = '', headers = auth) => api(srv.url, `/api/webhooks/${id}/deliveries${query}`, { headers });

async function deliveredTest(id: string) {
  const sent = await sendTest(id);
  expect(sent.status).toBe(202);
  const deliveryId = sent.json.content.delivery_id as string;
  const log = await waitFor(async () => {
    const r = await api(srv.url, `/api/webhooks/deliveries/${deliveryId}`, { headers: auth });
    return r.json.content.attempts.length > 0 ? r.json.content : null;
  }, { what: 'the test delivery attempted' });
  const got = receiver.received.find((r) => r.headers['webhook-id'] === log.event_id)!;
  return { deliveryId, log, got };
}

/** Signs in to the dashboard over HTTP: the session cookie and the CSRF header for mutations. */
async function dashboardSession() {
  const res = await fetch(`${srv.url}/api/trpc/session.signIn`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
  });
  expect(res.status).toBe(200);
  const jar = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0].split('=') as [string, string]));
  return { cookie: `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`, 'x-csrf-token': jar.pp_csrf };
}

async function trpcCall(path: string, input: unknown, headers: Record<string, string>, method: 'GET' | 'POST' = 'POST') {
  const url = method === 'GET' && input !== undefined ? `${srv.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}` : `${srv.url}/api/trpc/${path}`;
  const res = await fetch(url, { method, headers: { ...headers, 'content-type': 'application/json' }, body: method === 'POST' ? JSON.stringify(input) : undefined });
  return { status: res.status, json: (await res.json()) as any };
}

describe('deliveries and test events over REST', () => {
  it('POST /api/webhooks/{id}/test signs a webhook.test event to that webhook alone; 202 with the delivery id', async () => {
    const a = await hook('/test-a');
    const b = await hook('/test-b');
    const before = receiver.received.length;
    const { deliveryId, log, got } = await deliveredTest(a.magic_id);
    expect(deliveryId).toMatch(/^dlv_/);
    expect(got.path).toBe('/test-a');
    expect(got.headers['x-webhook-event']).toBe('TEST');
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ type: 'webhook.test', category: 'webhook', data: { magic_id: a.magic_id, url: a.url, events: ['transaction'] } });
    // verifiable with the webhook's secret, by the reference library and by the legacy hex header
    new Webhook(a.secret).verify(got.body, got.headers);
    expect(got.headers['x-webhook-signature']).toBe(createHmac('sha256', secretKeyBytes(a.secret)).update(got.body).digest('hex'));
    // the one delivery, and nothing for the other webhook
    expect(receiver.received.slice(before).filter((r) => r.path === '/test-b')).toEqual([]);
    expect((await deliveriesOf(b.magic_id)).json.content).toEqual([]);
    // the detail shows the exact payload and the receiver's status and answer per attempt
    expect(log.payload).toBe(got.body);
    expect(log.attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'thanks', error: null });
    expect(log.status).toBe('DELIVERED');
  });

  it('GET /api/webhooks/{id}/deliveries: the envelope with next_cursor, keyset pages, attempts, a failed-only filter', async () => {
    const w = await hook('/fail-list');
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await sendTest(w.magic_id)).json.content.delivery_id);
    // retries exhausted on a 500: each ends FAILED after 2 attempts
    await waitFor(async () => {
      const r = await deliveriesOf(w.magic_id, '?limit=100');
      return r.json.content.length === 3 && r.json.content.every((d: any) => d.status === 'FAILED') ? r : null;
    }, { what: 'three failed test deliveries' });

    const first = await deliveriesOf(w.magic_id, '?limit=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.json).sort()).toEqual(['code', 'content', 'message', 'next_cursor', 'timestamp']);
    expect(first.json.code).toBe(200);
    expect(first.json.content).toHaveLength(2);
    const d = first.json.content[0];
    for (const k of ['id', 'event_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'created_at']) expect(d).toHaveProperty(k);
    expect(d.attempts).toHaveLength(2);
    expect(d.attempts[0]).toMatchObject({ status_code: 500, error: 'unexpected status HTTP 500' });
    expect(Object.keys(d.attempts[0])).toEqual(expect.arrayContaining(['at', 'status_code', 'duration_ms', 'error']));
    // first 1 KiB of the answer only
    expect(Buffer.byteLength(d.attempts[0].response_excerpt)).toBe(1024);
    const second = await deliveriesOf(w.magic_id, `?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.content).toHaveLength(1);
    expect(second.json.next_cursor).toBeNull();
    expect([...first.json.content, ...second.json.content].map((x: any) => x.id)).toEqual([...sent].reverse());

    // filtered: the failed ones of a webhook that also has a delivered one
    await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'PATCH', headers: auth, body: { url: `${receiver.url}/ok-now` } });
    const { deliveryId: ok } = await deliveredTest(w.magic_id);
    const failed = await deliveriesOf(w.magic_id, '?status=FAILED');
    expect(failed.json.content.map((x: any) => x.id).sort()).toEqual([...sent].sort());
    expect((await deliveriesOf(w.magic_id, '?status=DELIVERED')).json.content.map((x: any) => x.id)).toEqual([ok]);
    // a failed one resent after the URL was fixed goes to the new URL
    const resent = await api(srv.url, `/api/webhooks/deliveries/${sent[0]}/resend`, { method: 'POST', headers: auth });
    expect(resent.status).toBe(202);
    await waitFor(async () => (await api(srv.url, `/api/webhooks/deliveries/${sent[0]}`, { headers: auth })).json.content.status === 'DELIVERED', { what: 'the resend delivered' });
    expect(receiver.received.filter((r) => r.path === '/ok-now').map((r) => r.headers['webhook-id'])).toContain(resent.json.content.event_id);

    // bad input: the webhook envelope, 400
    for (const q of ['?limit=0', '?limit=abc', '?status=LOST', '?cursor=garbage']) {
      const r = await deliveriesOf(w.magic_id, q);
      expect(r.status, q).toBe(400);
      expect(Object.keys(r.json), q).toEqual(expect.arrayContaining(['code', 'message', 'timestamp']));
    }
  });

  it('is scoped to the account: another account\'s magic_id or delivery is 404, like an unknown one', async () => {
    const w = await hook('/scoped');
    const { deliveryId } = await deliveredTest(w.magic_id);
    const theirs = { 'x-api-key': other.apiKey, 'x-token': other.token };
    for (const r of [
      await deliveriesOf(w.magic_id, '', theirs),
      await sendTest(w.magic_id, theirs),
      await api(srv.url, `/api/webhooks/deliveries/${deliveryId}`, { headers: theirs }),
      await api(srv.url, `/api/webhooks/${w.magic_id}/pause`, { method: 'POST', headers: theirs }),
      await api(srv.url, `/api/webhooks/${w.magic_id}/rotate-secret`, { method: 'POST', headers: theirs }),
      await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'PATCH', headers: theirs, body: { events: ['withdraw'] } }),
      await deliveriesOf('wh_unknown'),
      await sendTest('wh_unknown'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ code: 404 });
    }
    expect((await sendTest(w.magic_id, {})).status).toBe(401);
  });

  it('the OpenAPI document has the new paths with the webhook security and envelopes', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    const ops = [
      ['/api/webhooks/{magic_id}/deliveries', 'get', '200'], ['/api/webhooks/{magic_id}/test', 'post', '202'],
      ['/api/webhooks/deliveries/{delivery_id}', 'get', '200'], ['/api/webhooks/{magic_id}', 'patch', '200'],
      ['/api/webhooks/{magic_id}/pause', 'post', '200'], ['/api/webhooks/{magic_id}/resume', 'post', '200'],
      ['/api/webhooks/{magic_id}/rotate-secret', 'post', '200'],
    ] as const;
    for (const [path, method, ok] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeTruthy();
      expect(op.security).toEqual([{ apiKey: [], sessionToken: [] }]);
      expect(op.responses[ok], `${method} ${path} ${ok}`).toBeTruthy();
      expect(op.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/WebhooksError');
    }
    const list = doc.paths['/api/webhooks/{magic_id}/deliveries'].get;
    expect(list.parameters.map((p: any) => p.name).sort()).toEqual(['cursor', 'limit', 'magic_id', 'status']);
    expect(Object.keys(list.responses['200'].content['application/json'].schema.properties)).toEqual(expect.arrayContaining(['content', 'next_cursor']));
  });
});

describe('operating a webhook', () => {
  it('rotate: the new secret signs, the old one still verifies (two v1 signatures) until its 24 h are over', async () => {
    const w = await hook('/rotate');
    const rotated = await api(srv.url, `/api/webhooks/${w.magic_id}/rotate-secret`, { method: 'POST', headers: auth });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.content.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(w.secret);
    const expires = Date.parse(rotated.json.content.previous_secret_expires_at);
    expect(expires - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const { got } = await deliveredTest(w.magic_id);
    const sigs = got.headers['webhook-signature'].split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs.every((x) => x.startsWith('v1,'))).toBe(true);
    new Webhook(fresh).verify(got.body, got.headers);
    new Webhook(w.secret).verify(got.body, got.headers); // a receiver that has not switched yet
    expect(got.headers['x-webhook-signature']).toBe(createHmac('sha256', secretKeyBytes(fresh)).update(got.body).digest('hex'));
    // the list (webhook API) shows the new secret
    const listed = (await api(srv.url, '/api/webhooks', { headers: auth })).json.content.find((x: any) => x.magic_id === w.magic_id);
    expect(listed.secret).toBe(fresh);

    // once the overlap is over (moved to the past here), only the new secret signs
    const past = new Date(Date.now() - 1000).toISOString();
    await side.db.write(async (tx) => { await rawExec(tx, sql`UPDATE webhooks SET previous_secret_expires_at = ${past} WHERE id = ${w.magic_id}`); });
    const later = (await deliveredTest(w.magic_id)).got;
    expect(later.headers['webhook-signature'].split(' ')).toHaveLength(1);
    new Webhook(fresh).verify(later.body, later.headers);
    expect(() => new Webhook(w.secret).verify(later.body, later.headers)).toThrow();
    // secrets stay encrypted at rest, the previous one too
    const row = (await rawRow<Record<string, string>>(side.db.read, sql`SELECT secret_enc, previous_secret_enc FROM webhooks WHERE id = ${w.magic_id}`))!;
    for (const v of Object.values(row)) expect(v).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(fresh.slice(6, 20));
  });

  it('edit: URL and events change (pending deliveries follow the URL); bad input is a 400 that changes nothing', async () => {
    const w = await hook('/edit-old');
    const res = await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'PATCH', headers: auth, body: { url: `${receiver.url}/edit-new`, events: ['withdraw', 'dispute'] } });
    expect(res.status).toBe(200);
    expect(res.json.content).toMatchObject({ url: `${receiver.url}/edit-new`, events: ['withdraw', 'dispute'], secret: w.secret });
    expect((await deliveredTest(w.magic_id)).got.path).toBe('/edit-new');
    for (const body of [{}, { url: 'ftp://example.com/x' }, { events: [] }, { events: ['bogus'] }, { url: `${receiver.url}/x`, extra: 1 }]) {
      const r = await api(srv.url, `/api/webhooks/${w.magic_id}`, { method: 'PATCH', headers: auth, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe(400);
    }
    const now = (await api(srv.url, '/api/webhooks', { headers: auth })).json.content.find((x: any) => x.magic_id === w.magic_id);
    expect(now).toMatchObject({ url: `${receiver.url}/edit-new`, events: ['withdraw', 'dispute'] });
  });

  it('pause: events meanwhile are skipped for it, tests and resends are refused; resume delivers again', async () => {
    const paused = await hook('/paused');
    const active = await hook('/active');
    const { deliveryId } = await deliveredTest(paused.magic_id);
    const p = await api(srv.url, `/api/webhooks/${paused.magic_id}/pause`, { method: 'POST', headers: auth });
    expect(p.status).toBe(200);
    expect(p.json.content.paused).toBe(true);

    const e = await side.db.write((tx) => recordEvent(tx, { accountId: srv.demo.accountId, type: 'transaction.created', resourceId: 'txn_paused1', payload: { id: 'txn_paused1' }, at: new Date() }));
    // the event has been fanned out (the active webhook got it) ...
    await waitFor(() => receiver.received.some((r) => r.headers['webhook-id'] === e.id && r.path === '/active'), { what: 'the active webhook got the event' });
    expect((await first(side.db.read.handle.select({ d: events.dispatchedAt }).from(events).where(eq(events.id, e.id))))?.d).not.toBeNull();
    // ... and the paused one has no delivery of it
    expect((await deliveriesOf(paused.magic_id)).json.content.map((d: any) => d.event_id)).not.toContain(e.id);
    expect((await sendTest(paused.magic_id)).status).toBe(422);
    const resend = await api(srv.url, `/api/webhooks/deliveries/${deliveryId}/resend`, { method: 'POST', headers: auth });
    expect(resend.status).toBe(422);
    expect(resend.json.message).toMatch(/paused/);

    const r = await api(srv.url, `/api/webhooks/${paused.magic_id}/resume`, { method: 'POST', headers: auth });
    expect(r.json.content).toMatchObject({ paused: false, active: true });
    expect((await deliveredTest(paused.magic_id)).got.path).toBe('/paused');
    expect(active.magic_id).not.toBe(paused.magic_id);
  });

  it('a delivery queued before the pause waits unattempted, and goes out on resume', async () => {
    const w = await hook('/queued');
    await api(srv.url, `/api/webhooks/${w.magic_id}/pause`, { method: 'POST', headers: auth });
    // a delivery queued just before the pause (the sender had not reached it yet)
    const at = new Date().toISOString();
    const eventId = `evt_queued${Date.now()}`;
    const deliveryId = `dlv_queued${Date.now()}`;
    await side.db.write(async (tx) => {
      await rawExec(tx, sql`INSERT INTO events (id, account_id, type, category, resource_id, payload, created_at, dispatched_at)
        VALUES (${eventId}, ${srv.demo.accountId}, 'transaction.created', 'transaction', 'txn_queued', '{"id":"txn_queued"}', ${at}, ${at})`);
      await rawExec(tx, sql`INSERT INTO deliveries (id, event_id, event_seq, account_id, webhook_id, target, url, resource_id, status, attempts, next_attempt_at, created_at, updated_at)
        VALUES (${deliveryId}, ${eventId}, (SELECT seq FROM events WHERE id = ${eventId}), ${srv.demo.accountId}, ${w.magic_id}, 'webhook', ${w.url}, 'txn_queued', 'PENDING', 0, ${at}, ${at}, ${at})`);
    });
    // a delivery queued after it, to another webhook, arrives: the sender has passed over the paused one
    const probe = await hook('/queued-probe');
    await deliveredTest(probe.magic_id);
    expect(receiver.byId(eventId)).toEqual([]);
    const waiting = (await api(srv.url, `/api/webhooks/deliveries/${deliveryId}`, { headers: auth })).json.content;
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: [] });

    await api(srv.url, `/api/webhooks/${w.magic_id}/resume`, { method: 'POST', headers: auth });
    await waitFor(() => receiver.byId(eventId).length === 1, { what: 'the queued delivery sent after resume' });
    expect(receiver.byId(eventId)[0].path).toBe('/queued');
  });
});

describe('revealing and rotating from the dashboard (session)', () => {
  it('rotateSecretConfirmed: a session rotates after re-entering the password', async () => {
    const w = await hook('/rotate-session');
    // another person of another account
    const email = `ops${Date.now()}@shop.example`;
    await createAccount({ db: side.db, masterKey: side.masterKey, clock: systemClock }, { name: 'Ops', email, password: 'correct horse battery' });
    const res = await fetch(`${srv.url}/api/trpc/session.signIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery' }) });
    const jar = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0].split('=') as [string, string]));
    const session = { cookie: `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`, 'x-csrf-token': jar.pp_csrf };
    // that person's account does not own the demo's webhook
    expect((await trpcCall('webhooks.rotateSecretConfirmed', { magic_id: w.magic_id, password: 'correct horse battery' }, session)).status).toBe(404);
    const mine = (await trpcCall('webhooks.create', { url: `${receiver.url}/rotate-own`, events: ['withdraw'] }, session)).json.result.data.content;
    const rotated = await trpcCall('webhooks.rotateSecretConfirmed', { magic_id: mine.magic_id, password: 'correct horse battery' }, session);
    expect(rotated.status).toBe(200);
    expect(rotated.json.result.data.content.secret).toMatch(/^whsec_/);
    expect(rotated.json.result.data.content.secret).not.toBe(mine.secret);
    expect(rotated.json.result.data.content.previous_secret_expires_at).not.toBeNull();
    // a wrong password rotates nothing
    expect((await trpcCall('webhooks.rotateSecretConfirmed', { magic_id: mine.magic_id, password: 'nope' }, session)).status).toBe(403);
    const listed = (await trpcCall('webhooks.list', undefined, session, 'GET')).json.result.data.content.find((x: any) => x.magic_id === mine.magic_id);
    expect(listed.secret).toBe(`whsec_…${rotated.json.result.data.content.secret.slice(-4)}`);
  });
  // last in the file: it uses up the sign-in attempts of 127.0.0.1
  it('the list is masked for a session; reveal needs the password; a wrong one is 403 and counts as a failed sign-in', async () => {
    const w = await hook('/reveal');
    const session = await dashboardSession();
    const listed = await trpcCall('webhooks.list', undefined, session, 'GET');
    const mine = listed.json.result.data.content.find((x: any) => x.magic_id === w.magic_id);
    expect(mine.secret).toBe(`whsec_…${w.secret.slice(-4)}`);

    const ok = await trpcCall('webhooks.revealSecret', { magic_id: w.magic_id, password: srv.demo.password }, session);
    expect(ok.status).toBe(200);
    expect(ok.json.result.data.content.secret).toBe(w.secret);
    // the webhook API's own rotate refuses a session: it must confirm the password
    expect((await trpcCall('webhooks.rotateSecret', { magic_id: w.magic_id }, session)).status).toBe(403);
    expect((await trpcCall('webhooks.revealSecret', { magic_id: w.magic_id, password: srv.demo.password }, { cookie: session.cookie })).status).toBe(403); // no CSRF

    const miss = await trpcCall('webhooks.revealSecret', { magic_id: w.magic_id, password: 'wrong-password' }, session);
    expect(miss.status).toBe(403);
    expect(miss.json.error.message).toBe('wrong password');
    expect(JSON.stringify(miss.json)).not.toContain(w.secret);
    // every attempt counts against the address like a sign-in, the refused ones too: at the address's
    // limit (20 per 10 minutes) even the right password, at reveal or at sign-in, is refused for a while
    let last = miss;
    for (let i = 1; i < 20; i++) {
      last = await trpcCall('webhooks.revealSecret', { magic_id: w.magic_id, password: 'wrong-password' }, session);
      expect([403, 429]).toContain(last.status);
    }
    const limited = await trpcCall('webhooks.revealSecret', { magic_id: w.magic_id, password: srv.demo.password }, session);
    expect(limited.status).toBe(429);
    const signIn = await fetch(`${srv.url}/api/trpc/session.signIn`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
    });
    expect(signIn.status).toBe(429);
    expect(Number(signIn.headers.get('retry-after'))).toBeGreaterThan(60);
  });
});
