// @engines sqlite: the caps and timeouts are the HTTP server's, before any database work; the engine under the few requests it completes does not change what it asserts
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { statusOf } from '../support/raw-http';
import { waitFor } from '../support/wait';

/**
 * Slow or too many clients cannot starve the server (docs/operations.md, HEADERS_TIMEOUT_MS to
 * MAX_CONNECTIONS_PER_ADDRESS): header and body timeouts hold as configured against slow clients, and open
 * connections are capped in total and per client address with an answer in the error envelope. Every
 * socket is on the loopback: the "other" clients bind 127.0.0.2 and 127.0.0.3 as their source address.
 */

const HEADERS_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 3_000;
/** How late past its timeout a slow client may be cut (the issue: within about a second). */
const SLACK_MS = 1_000;

let timed: RunningServer;
let capped: RunningServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  [timed, capped] = await Promise.all([
    startServer({ env: { HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } }),
    // timeouts long enough that the held connections stay open for the whole test; 127.0.0.3 plays a trusted proxy
    startServer({ env: { MAX_CONNECTIONS: '20', MAX_CONNECTIONS_PER_ADDRESS: '8', TRUSTED_PROXIES: '127.0.0.3', HEADERS_TIMEOUT_MS: '60000', REQUEST_TIMEOUT_MS: '60000' } }),
  ]);
}, SERVER_TEST_TIMEOUT_MS);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all([timed?.stop(), capped?.stop()]);
  for (const s of [timed, capped]) if (s) removeDir(s.dir);
});

interface Client {
  socket: Socket;
  /** Everything the server wrote so far (latin1). */
  received: () => string;
  /** When the connection was established, and when it closed (null while open). */
  openedAt: number;
  closedAt: () => number | null;
  closed: Promise<void>;
}

/** A raw connection to `srv` from `from` (a loopback source address), once established. */
async function open(srv: RunningServer, from = '127.0.0.1'): Promise<Client> {
  const { port } = new URL(srv.url);
  let out = '';
  let closedAt: number | null = null;
  const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  socket.on('data', (c) => { out += c.toString('latin1'); });
  socket.on('error', () => {}); // a reset after the answer is part of being cut off
  const closed = new Promise<void>((resolve) => socket.on('close', () => { closedAt = Date.now(); resolve(); }));
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  return { socket, received: () => out, openedAt: Date.now(), closedAt: () => closedAt, closed };
}

/** Writes `text` one byte every `everyMs` until the connection closes: a slow client, not a wait. */
function dribble(c: Client, text: string, everyMs = 100) {
  let i = 0;
  const timer = setInterval(() => {
    if (c.socket.destroyed || c.socket.writableEnded || i >= text.length) { clearInterval(timer); return; }
    c.socket.write(text[i++]);
  }, everyMs);
  void c.closed.then(() => clearInterval(timer));
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

/** A plain client's GET /healthz on its own connection. */
async function healthz(srv: RunningServer, from = '127.0.0.1'): Promise<string> {
  const c = await open(srv, from);
  c.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  await c.closed;
  return c.received();
}

/**
 * An admitted connection held open: one request answered 200 (so it was not refused), then the head
 * of a second one left unfinished, so neither the keep-alive timeout nor the answer closes it.
 */
async function held(srv: RunningServer, from: string): Promise<Client | string> {
  const c = await open(srv, from);
  c.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
  await waitFor(() => c.closedAt() !== null || /\r\n\r\n[\s\S]*\}/.test(c.received()), { what: 'an answer on a new connection' });
  if (statusOf(c.received()) !== 200) { await c.closed; return c.received(); }
  c.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n');
  return c;
}

describe('slow clients are cut at the configured timeouts', () => {
  it(`20 clients sending their headers a byte at a time: each answered 408 and closed ${HEADERS_TIMEOUT_MS} ms after it started, within ${SLACK_MS} ms; /healthz answers meanwhile`, async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => open(timed)));
    for (const c of slow) dribble(c, `GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ${'a'.repeat(200)}`);
    expect(statusOf(await healthz(timed))).toBe(200);
    await Promise.all(slow.map((c) => c.closed));
    for (const c of slow) {
      const lived = c.closedAt()! - c.openedAt;
      expect(lived).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(lived).toBeLessThanOrEqual(HEADERS_TIMEOUT_MS + SLACK_MS);
      expect(statusOf(c.received())).toBe(408);
    }
  }, SERVER_TEST_TIMEOUT_MS);

  it(`a body sent a byte at a time is cut ${REQUEST_TIMEOUT_MS} ms after the request started, within ${SLACK_MS} ms`, async () => {
    const token = await accessToken(timed.url, timed.demo.code, timed.demo.token);
    const c = await open(timed);
    c.socket.write(`POST /withdraw/pix HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`);
    dribble(c, `{"amount":1000,"key":"${' '.repeat(990)}`);
    await c.closed;
    const lived = c.closedAt()! - c.openedAt;
    // the head was in at once: only the request timeout can have cut it
    expect(lived).toBeGreaterThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expect(lived).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(lived).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS + SLACK_MS);
    expect(statusOf(c.received())).toBe(408);
    // nothing was withdrawn, and the server still answers
    expect(statusOf(await healthz(timed))).toBe(200);
  }, SERVER_TEST_TIMEOUT_MS);
});

describe('open connections are capped', () => {
  it('per client address: the 9th connection from one address is answered 429 in the envelope; another client still gets /healthz', async () => {
    for (let i = 0; i < 8; i++) expect(await held(capped, '127.0.0.2')).not.toBeTypeOf('string');
    const refused = await held(capped, '127.0.0.2');
    expect(refused).toBeTypeOf('string');
    expect(statusOf(refused as string)).toBe(429);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/);
    expect(refused).toMatch(/\r\nconnection: close\r\n/);
    expect(bodyOf(refused as string)).toMatchObject({ statusCode: 429, error: 'Too Many Requests', message: expect.stringContaining('at most 8 open connections per client address') });
    // another address is not affected (it is held, and counts toward the total from here on)
    expect(await held(capped, '127.0.0.1')).not.toBeTypeOf('string');
  }, SERVER_TEST_TIMEOUT_MS);

  it('in total: a trusted proxy is exempt from the per-address cap but not from the total; past it every client gets 503, and room comes back as connections close', async () => {
    // 9 held so far (8 from 127.0.0.2, 1 from 127.0.0.1): the proxy gets the other 11 of 20, more than 8
    const proxied: Client[] = [];
    for (let i = 0; i < 11; i++) {
      const c = await held(capped, '127.0.0.3');
      expect(c, `proxy connection ${i + 1}`).not.toBeTypeOf('string');
      proxied.push(c as Client);
    }
    for (const from of ['127.0.0.3', '127.0.0.1']) {
      const refused = await held(capped, from);
      expect(statusOf(refused as string)).toBe(503);
      expect(refused).toMatch(/\r\nretry-after: 1\r\n/);
      // (the envelope's `error` for a 503 is "Error", as DATABASE_UNAVAILABLE's is: presenter.ts names no 503)
      expect(bodyOf(refused as string)).toMatchObject({ statusCode: 503, message: expect.stringContaining('20 connections open') });
    }
    // the proxy lets go of two: a plain client is served again once the server has seen them close
    for (const c of proxied.slice(0, 2)) c.socket.destroy();
    await waitFor(async () => statusOf(await healthz(capped)) === 200, { what: '/healthz answered once connections were freed' });
    await waitFor(() => /connections refused: over the cap/.test(capped.output()), { what: 'the refusals logged' });
  }, SERVER_TEST_TIMEOUT_MS);
});
