import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../../server/client';
import { onPostgres } from '../../db/dialect';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, serverEnv, startServer, type RunningServer } from '../support/server';

let srv: RunningServer;
let token: string;

beforeAll(async () => {
  srv = await startServer();
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
});
afterAll(async () => {
  await srv?.stop();
  removeDir(srv.dir);
});

const PAYMENTS_ENVELOPE = ['error', 'message', 'statusCode', 'timestamp'];

describe('the running server: credentials and balance', () => {
  it('prints the demo credentials on first start, and they work', async () => {
    expect(srv.demo.code).toMatch(/^cli_/);
    expect(srv.demo.token).toMatch(/^sk_/);
    expect(srv.demo.apiKey).toMatch(/^pk_/);
    expect(srv.demo.email).toBe('demo@example.com');
    const res = await api(srv.url, '/balance', { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['available', 'blocked', 'currency', 'timestamp']);
    expect(res.json).toMatchObject({ available: 1_000_000, blocked: 0, currency: 'BRL' });
  });

  it('answers 401 in the payments envelope without, or with a bad, bearer token', async () => {
    for (const headers of [{}, { authorization: 'Bearer at_nope' }, { authorization: 'Token x' }] as Record<string, string>[]) {
      const res = await api(srv.url, '/balance', { headers });
      expect(res.status).toBe(401);
      expect(Object.keys(res.json).sort()).toEqual(PAYMENTS_ENVELOPE);
      expect(res.json).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      expect(typeof res.json.message).toBe('string');
    }
    const bad = await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: 'sk_wrong' } });
    expect(bad.status).toBe(401);
    expect(bad.json.statusCode).toBe(401);
  });

  it('revokes a token over REST', async () => {
    const t = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    expect((await api(srv.url, '/auth/revoke', { token: t, body: {} })).json).toEqual({ revoked: true });
    expect((await api(srv.url, '/balance', { token: t })).status).toBe(401);
  });

  it('tops up through the ledger in the sandbox (201) and the balance follows', async () => {
    const before = (await api(srv.url, '/balance', { token })).json.available;
    const res = await api(srv.url, '/sandbox/topup', { token, body: { amount: 2550 } });
    expect(res.status).toBe(201);
    expect(res.json.available).toBe(before + 2550);
  });
});

describe('bad input gets the documented 4xx and changes nothing', () => {
  const balance = async () => (await api(srv.url, '/balance', { token })).json.available as number;

  it('400 with per-field messages for unknown fields, missing fields and non-integer amounts', async () => {
    const before = await balance();
    const cases: [unknown, string][] = [
      [{ amount: '250' }, 'amount'],
      [{ amount: true }, 'amount'],
      [{ amount: 12.5 }, 'amount'],
      [{ amount: 1e20 }, 'amount'],
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{}, 'amount'],
      [{ amount: 100, extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await api(srv.url, '/sandbox/topup', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json).sort()).toEqual([...PAYMENTS_ENVELOPE, 'issues'].sort());
      expect(Array.isArray(res.json.message)).toBe(true);
      expect(res.json.message.join(' ')).toContain(field);
      expect(res.json.issues[0].path).toBe(field);
    }
    expect(await balance()).toBe(before);
  });

  it('keeps "250" a 400 on the tRPC path after REST has seen the schema', async () => {
    await api(srv.url, '/sandbox/topup', { token, body: { amount: '250' } });
    const client = createPaymentsClient({ url: srv.url, accessToken: token });
    const err = await client.account.sandboxTopUp.mutate({ amount: '250' as never }).catch((e) => e);
    expect(err?.data?.code).toBe('BAD_REQUEST');
    expect(err?.data?.httpStatus).toBe(400);
    expect(err?.data?.issues?.[0]?.path).toBe('amount');
  });

  it('400 for malformed JSON, a non-object body and JSON nested deeper than 32', async () => {
    const before = await balance();
    for (const raw of ['{"amount": 1', '[1,2]', '"x"', JSON.stringify({ amount: 1, n: JSON.parse('['.repeat(40) + ']'.repeat(40)) })]) {
      const res = await api(srv.url, '/sandbox/topup', { token, raw, headers: { 'content-type': 'application/json' }, method: 'POST' });
      expect(res.status, raw.slice(0, 20)).toBe(400);
      expect(res.json.statusCode).toBe(400);
    }
    expect(await balance()).toBe(before);
  });

  it('415 for a body that is not JSON, 413 for a body over 64 KiB', async () => {
    const before = await balance();
    const r415 = await api(srv.url, '/sandbox/topup', { token, raw: 'amount=100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, method: 'POST' });
    expect(r415.status).toBe(415);
    expect(r415.json).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });
    const big = JSON.stringify({ amount: 100, pad: 'x'.repeat(64 * 1024) });
    const r413 = await api(srv.url, '/sandbox/topup', { token, raw: big, headers: { 'content-type': 'application/json' }, method: 'POST' });
    expect(r413.status).toBe(413);
    expect(r413.json).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    expect(await balance()).toBe(before);
  });

  it('404 for an unknown path and 405 for a known path with the wrong method, in the envelope', async () => {
    const unknown = await api(srv.url, '/api/nothing-here', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const wrong = await api(srv.url, '/balance', { token, method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.json.statusCode).toBe(405);
  });
});

describe('OpenAPI and the typed client', () => {
  it('serves a valid OpenAPI 3 document with success codes, security schemes and error responses', async () => {
    const res = await api(srv.url, '/openapi.json');
    expect(res.status).toBe(200);
    const { validate } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(res.json));
    expect(result.valid, JSON.stringify((result as { errors?: unknown }).errors ?? null).slice(0, 500)).toBe(true);
    const doc = res.json;
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer', 'sessionToken']);
    expect(doc.paths['/auth/token'].post.security).toEqual([]);
    expect(doc.paths['/balance'].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/balance'].get.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/PaymentsError');
    expect(doc.paths['/sandbox/topup'].post.responses['201']).toBeDefined();
    expect(doc.paths['/sandbox/topup'].post.responses['200']).toBeUndefined();
  });

  it('createPaymentsClient calls the running server over HTTP with inferred types', async () => {
    const client = createPaymentsClient({ url: srv.url, accessToken: token });
    const bal = await client.account.balance.query();
    const available: number = bal.available;
    expect(available).toBeGreaterThan(0);
    expect(bal.currency).toBe('BRL');
    const bad = createPaymentsClient({ url: srv.url, accessToken: 'at_nope' });
    const err = await bad.account.balance.query().catch((e) => e);
    expect(err.data.code).toBe('UNAUTHORIZED');
    expect(err.data.httpStatus).toBe(401);
  });
});

describe('account:create', () => {
  it('creates an account with --json while the server runs; its credentials work at once', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    // not spawnSync: a blocked event loop would miss the server closing an idle keep-alive socket
    // meanwhile, and the next fetch would reuse the dead socket ("other side closed")
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['run', 'account:create', '--', '--name', 'Acme', '--balance', '4321', '--json'], {
        cwd: new URL('../..', import.meta.url).pathname,
        env: { ...process.env, ...serverEnv(srv.databasePath) },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => { stdout += c; });
      child.stderr.on('data', (c) => { stderr += c; });
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const creds = JSON.parse(lines[0]);
    expect(Object.keys(creds).sort()).toEqual(['account_id', 'api_key', 'code', 'pix_client_id', 'pix_client_secret', 'pix_key', 'token']);
    const t = await accessToken(srv.url, creds.code, creds.token);
    expect((await api(srv.url, '/balance', { token: t })).json.available).toBe(4321);
    // scoped: the demo account's balance is not this one
    expect((await api(srv.url, '/balance', { token })).json.available).not.toBe(4321);
  });
});

describe('rate limits', () => {
  it('answers 429 with retry-after past the per-account burst', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const limited = await startServer({ env: { RATE_LIMIT_RPS: '2' } });
    try {
      const t = await accessToken(limited.url, limited.demo.code, limited.demo.token);
      const results = await Promise.all(Array.from({ length: 12 }, () => api(limited.url, '/balance', { token: t })));
      const limitedRes = results.filter((r) => r.status === 429);
      expect(limitedRes.length).toBeGreaterThan(0);
      expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(4);
      expect(Number(limitedRes[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limitedRes[0].json).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await limited.stop();
      removeDir(limited.dir);
    }
  });
});

describe('process lifecycle', () => {
  // SQLite's own start-up check (the SQLite run covers it; with DATABASE_URL the file is never opened)
  it.skipIf(onPostgres)('refuses to start when the pragmas do not take (an in-memory database cannot be WAL)', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, DATABASE_PATH: ':memory:', DASHBOARD: 'false', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/journal_mode/);
  });

  it('finishes an in-flight request on SIGTERM, exits 0, and keeps its data for the next start', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const s2 = await startServer();
    const t = await accessToken(s2.url, s2.demo.code, s2.demo.token);
    const { port } = new URL(s2.url);
    // a request whose body is still arriving when SIGTERM lands
    let finishBody!: () => void;
    const headersSent = new Promise<void>((ready) => {
      finishBody = () => {};
      const req = request({ host: '127.0.0.1', port, path: '/sandbox/topup', method: 'POST', headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json', 'content-length': '14' } }, (res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => answered({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (e) => failed(e));
      req.on('socket', (sock) => sock.on('connect', () => { req.write('{"amount"', () => ready()); }));
      finishBody = () => req.end(':777}');
    });
    let answered!: (v: { status: number; body: string }) => void;
    let failed!: (e: unknown) => void;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => { answered = resolve; failed = reject; });
    await headersSent;
    // a full round trip on another connection: by its answer the server has read the first request's headers
    await api(s2.url, '/balance', { token: t });
    s2.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 0));
    finishBody();
    const done = await answer;
    expect(done.status).toBe(201);
    expect(await s2.stop()).toBe(0);
    expect(s2.output()).toMatch(/stopped cleanly/);
    // same database, second start: no new demo account, the top-up is there
    const s3 = await startServer({ dir: s2.dir });
    try {
      expect(s3.output()).not.toMatch(/Demo account created/);
      const t3 = await accessToken(s3.url, s2.demo.code, s2.demo.token);
      expect((await api(s3.url, '/balance', { token: t3 })).json.available).toBe(1_000_000 + 777);
    } finally {
      await s3.stop();
      removeDir(s2.dir);
    }
  });
});

