import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWebhookAgents, sendWebhook } from '@/server/domain/webhooks/sender';
import { newWebhookSecret } from '@/server/domain/webhooks/secrets';
import { signDelivery } from '@/server/domain/webhooks/signing';
import { Webhook } from 'standardwebhooks';

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
const hung: http.ServerResponse[] = [];
let connections = 0;
let server: http.Server;
let base: string;

function listen(s: http.Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
}

function close(s: http.Server): Promise<void> {
  s.closeAllConnections();
  return new Promise((resolve) => s.close(() => resolve()));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({ path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/ok-204') {
        res.writeHead(204).end();
      } else if (path.startsWith('/ok')) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('received');
      } else if (path === '/fail') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('é' + 'x'.repeat(5000));
      } else if (path === '/fail-split') {
        // 'a' then 2-byte characters: byte 1024 falls in the middle of one
        res.writeHead(500, { 'content-type': 'text/plain' }).end('a' + 'é'.repeat(600));
      } else if (path === '/big-ok') {
        res.writeHead(200).end('y'.repeat(1024 * 1024));
      } else if (path === '/redirect') {
        res.writeHead(302, { location: `${base}/target` }).end();
      } else if (path === '/drop') {
        req.socket.destroy(); // receiver dies without answering
      } else if (path === '/gone') {
        res.writeHead(410).end('gone');
      } else if (path === '/hang') {
        hung.push(res); // never answered; closed in afterAll
      } else if (path === '/hang-body') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial'); // headers arrive, the body never completes
        hung.push(res);
      } else {
        res.writeHead(404).end();
      }
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  const port = await listen(server);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const r of hung) r.destroy();
  closeWebhookAgents();
  await close(server);
});

const hits = (path: string) => seen.filter((s) => s.path === path).length;
const post = (url: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({ url, headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 5_000, allowPrivate: true, ...extra });

describe('sendWebhook', () => {
  it('delivers a signed POST and treats 200 as success', async () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'withdraw.paid', data: { amount: 12.5, note: 'ção' } });
    const headers = signDelivery({ eventId: 'evt_1', timestamp: new Date(), body, secret, eventCategory: 'withdraw' });
    const r = await sendWebhook({ url: `${base}/ok?x=1`, headers, body, timeoutMs: 5_000, allowPrivate: true });
    expect(r).toMatchObject({ ok: true, status: 200, responseExcerpt: 'received', error: null });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);

    const got = seen.find((s) => s.path === '/ok?x=1');
    expect(got?.method).toBe('POST');
    expect(got?.body).toBe(body);
    expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(got?.headers['x-webhook-event']).toBe('WITHDRAW');
    expect(got?.headers['user-agent']).toBe('pix-payments-webhooks/1');
    // The receiver can verify what actually went over the wire.
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('treats any 2xx as success', async () => {
    expect(await post(`${base}/ok-204`)).toMatchObject({ ok: true, status: 204, responseExcerpt: '', error: null });
  });

  it('reuses the keep-alive connection for consecutive deliveries', async () => {
    await post(`${base}/ok-warm`);
    // Let the finished response hand its socket back to the pool (a tick, not a sleep).
    await new Promise((r) => setImmediate(r));
    const before = connections;
    for (let i = 0; i < 5; i++) {
      expect((await post(`${base}/ok-reuse`)).ok).toBe(true);
      await new Promise((r) => setImmediate(r));
    }
    expect(connections).toBe(before);
  });

  it('retries once when a pooled socket dies before any answer, then reports the error', async () => {
    await post(`${base}/ok-warm2`);
    await new Promise((r) => setImmediate(r));
    const r = await post(`${base}/drop`);
    expect(r).toMatchObject({ ok: false, status: null, error: 'connection reset' });
    // First attempt on the reused socket, one retry on a fresh one, no more.
    expect(hits('/drop')).toBe(2);
  });

  it('500 is a failure with status and an excerpt truncated to 1024 bytes', async () => {
    const r = await post(`${base}/fail`);
    expect(r.ok).toBe(false);
    expect(r.status).toBe(500);
    expect(Buffer.byteLength(r.responseExcerpt, 'utf8')).toBeLessThanOrEqual(1024);
    expect(Buffer.from('é' + 'x'.repeat(5000)).subarray(0, 1024).toString('utf8')).toBe(r.responseExcerpt);
    expect(r.error).toMatch(/500/);
  });

  it('never cuts a character in half at the 1024-byte limit', async () => {
    const r = await post(`${base}/fail-split`);
    expect(r.status).toBe(500);
    expect(r.responseExcerpt).toBe('a' + 'é'.repeat(511));
    expect(Buffer.byteLength(r.responseExcerpt, 'utf8')).toBe(1023);
  });

  it('stops reading a large 2xx body after the excerpt', async () => {
    const r = await post(`${base}/big-ok`);
    expect(r).toMatchObject({ ok: true, status: 200, error: null });
    expect(r.responseExcerpt).toBe('y'.repeat(1024));
  });

  it('does not follow redirects: 302 is a failure and the target is never hit', async () => {
    const r = await post(`${base}/redirect`);
    expect(r.ok).toBe(false);
    expect(r.status).toBe(302);
    expect(r.error).toMatch(/redirect/);
    expect(hits('/redirect')).toBe(1);
    expect(hits('/target')).toBe(0);
  });

  it('reports 410 with its status (caller disables the webhook)', async () => {
    expect(await post(`${base}/gone`)).toMatchObject({ ok: false, status: 410, responseExcerpt: 'gone' });
  });

  it('times out a receiver that never answers', async () => {
    const r = await post(`${base}/hang`, { timeoutMs: 200 });
    expect(r.ok).toBe(false);
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/timeout/);
    expect(hits('/hang')).toBe(1);
  });

  it('times out when the 2xx body never completes (whole exchange counts)', async () => {
    const r = await post(`${base}/hang-body`, { timeoutMs: 200 });
    expect(r.ok).toBe(false);
    expect(r.status).toBe(200);
    expect(r.error).toMatch(/timeout/);
  });

  it('gives up on a receiver that sends no response headers after headersTimeoutMs, well before the whole timeout', async () => {
    const r = await post(`${base}/hang`, { timeoutMs: 30_000, headersTimeoutMs: 150, connectTimeoutMs: 100 });
    expect(r).toMatchObject({ ok: false, status: null, error: 'no response headers after 150 ms' });
    expect(r.durationMs).toBeLessThan(10_000);
  });

  it('once the headers are in, only the whole timeout bounds the body (and a connect timeout does not fire on a connected socket)', async () => {
    const r = await post(`${base}/hang-body`, { timeoutMs: 400, headersTimeoutMs: 150, connectTimeoutMs: 100 });
    expect(r).toMatchObject({ ok: false, status: 200, error: 'timeout after 400 ms' });
  });

  it('refuses a loopback literal without connecting when private URLs are not allowed', async () => {
    const before = seen.length;
    const beforeConn = connections;
    for (const url of [`${base}/ok-literal`, base.replace('127.0.0.1', '2130706433') + '/ok-literal', base.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/ok-literal']) {
      const r = await post(url, { allowPrivate: false });
      expect(r.ok).toBe(false);
      expect(r.status).toBeNull();
      expect(r.error).toMatch(/private/);
    }
    expect(seen.length).toBe(before);
    expect(connections).toBe(beforeConn);
  });

  it('refuses at connect time a name that resolves to loopback (rebinding guard)', async () => {
    const beforeConn = connections;
    const r = await post(base.replace('127.0.0.1', 'localhost') + '/ok-name', { allowPrivate: false });
    expect(r.ok).toBe(false);
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/private/);
    expect(hits('/ok-name')).toBe(0);
    expect(connections).toBe(beforeConn);
    // Same URL is fine when private receivers are allowed.
    expect((await post(base.replace('127.0.0.1', 'localhost') + '/ok-name', { allowPrivate: true })).ok).toBe(true);
  });

  it('reports connection refused without throwing', async () => {
    const tmp = http.createServer();
    const port = await listen(tmp);
    await close(tmp);
    const r = await post(`http://127.0.0.1:${port}/`);
    expect(r).toMatchObject({ ok: false, status: null, responseExcerpt: '', error: 'connection refused' });
  });

  it('refuses bad schemes and credentials even with allowPrivate, and never throws', async () => {
    expect((await post('ftp://127.0.0.1/x')).error).toMatch(/http/);
    expect((await post(`http://u:secretpw@127.0.0.1:1/`)).error).toMatch(/credentials/);
    const bad = await post('::not a url');
    expect(bad).toMatchObject({ ok: false, status: null, error: 'invalid URL' });
    for (const r of [bad]) expect(JSON.stringify(r)).not.toContain('secretpw');
  });
});
