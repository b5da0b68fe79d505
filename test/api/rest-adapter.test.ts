import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestAdapter, restRoutes } from '../../server/http/rest';
import { appRouter } from '../../server/routers';
import { merchantProcedure, publicProcedure, router } from '../../server/trpc';
import { ManualClock } from '../../server/clock';
import { runHostileCorpus, type Observed } from '../support/hostile-requests';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';

/** REST in process: the adapter is called with WHATWG Requests, no server is spawned. */

let s: TestServices;
let rest: ReturnType<typeof createRestAdapter>;
beforeAll(async () => {
  s = await makeTestServices({ config: { webhookAllowPrivateUrls: true, sandboxSettlementDelayMs: 60_000 }, clock: new ManualClock(new Date('2026-03-02T12:00:00.000Z')) });
  rest = createRestAdapter(s, appRouter);
});
afterAll(async () => { await s.cleanup(); });

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  rest.handle(new Request(`http://localhost${path}`, { method, headers, body }));

describe('the REST adapter in process', () => {
  it('answers every hostile request of the suites exactly as the old edge did (status, envelope, body, headers)', async () => {
    // frozen from the trpc-to-openapi edge by scripts/edge-diff.ts (commit 75f944b, where it found 0 differences) before it was deleted
    const expected = JSON.parse(readFileSync(new URL('../fixtures/rest-hostile-answers.json', import.meta.url), 'utf8')) as Observed[];
    const seen = await runHostileCorpus(s, async (method, path, headers, body) => {
      const res = await call(method, path, headers, body);
      return { status: res.status, headers: res.headers, text: await res.text() };
    });
    // node:http closes the connection after any HEAD answer: a transport detail a Response does not carry
    for (const e of expected) if (e.name.startsWith('HEAD ')) delete e.headers.connection;
    expect(seen.length).toBe(expected.length);
    for (let i = 0; i < seen.length; i++) expect(seen[i], seen[i].name).toEqual(expected[i]);
  });

  it('refuses to start when a REST procedure does not declare its envelope', () => {
    const bare = router({
      ping: publicProcedure.meta({ openapi: { method: 'GET', path: '/ping' } }).input(z.void()).output(z.string()).query(() => 'pong'),
    });
    expect(() => restRoutes(bare)).toThrow(/ping \(GET \/ping\)/);
    const declared = router({
      ping: publicProcedure.meta({ envelope: 'payments', openapi: { method: 'GET', path: '/ping' } }).input(z.void()).output(z.string()).query(() => 'pong'),
    });
    expect(restRoutes(declared).map((r) => r.procedurePath)).toEqual(['ping']);
    // and every REST procedure of the app declares one
    expect(restRoutes(appRouter).every((r) => r.envelope === 'payments' || r.envelope === 'webhooks' || r.envelope === 'pix-api')).toBe(true);
  });

  it('answers in the declared envelope, whatever the URL looks like', async () => {
    const odd = router({
      hook: merchantProcedure.meta({ envelope: 'webhooks', openapi: { method: 'GET', path: '/balance-like' } }).input(z.void()).output(z.string()).query(() => 'x'),
    });
    const res = await createRestAdapter(s, odd).handle(new Request('http://localhost/balance-like'));
    expect(res.status).toBe(401);
    expect(Object.keys(await res.json()).sort()).toEqual(['code', 'message', 'timestamp']);
  });

  it('answers 429 with retry-after past the per-account burst', async () => {
    const limited = await makeTestServices({ config: { rateLimitRps: 1 } });
    try {
      const acc = await makeAccount(limited, { balance: 1000 });
      const adapter = createRestAdapter(limited, appRouter);
      const token = (await (await adapter.handle(new Request('http://localhost/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: acc.code, token: acc.token }) }))).json()).access_token;
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 5; i++) {
        last = await adapter.handle(new Request('http://localhost/balance', { headers: { authorization: `Bearer ${token}` } }));
        statuses.push(last.status);
      }
      expect(statuses).toContain(200);
      expect(statuses.at(-1)).toBe(429);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await last!.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    } finally {
      await limited.cleanup();
    }
  });

  it('answers 500 without internals when a procedure throws something unexpected', async () => {
    const broken = router({
      boom: merchantProcedure.meta({ envelope: 'payments', openapi: { method: 'GET', path: '/boom' } }).input(z.void()).output(z.string())
        .query(() => { throw new Error('SqliteError: no such column secret_column'); }),
    });
    const acc = await makeAccount(s);
    const adapter = createRestAdapter(s, broken);
    const token = (await (await rest.handle(new Request('http://localhost/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: acc.code, token: acc.token }) }))).json()).access_token;
    const res = await adapter.handle(new Request('http://localhost/boom', { headers: { authorization: `Bearer ${token}` } }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/secret_column|Sqlite/);
    expect(JSON.parse(text)).toMatchObject({ statusCode: 500, error: 'Internal Server Error', message: 'internal error' });
  });
});
