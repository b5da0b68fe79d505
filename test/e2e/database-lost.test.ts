import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';

/**
 * docs/decisions.md "Engines", when the database goes away: losing the database while running answers 503
 * with retry-after (never 500), and the instance recovers by itself when the database returns. PostgreSQL
 * only (vitest.pg.config.ts): this file runs a PostgreSQL of its own, so that it can take it away.
 */
let pg: ThrowawayPostgres;
let srv: RunningServer;
let token: string;
const withdrawal = (n: number) => ({ amount: 100, key: `lost-${n}@example.com`, key_type: 'EMAIL', details: { name: 'Maria Silva', document: '52998224725' } });

beforeAll(async () => {
  pg = await startTestPostgres();
  srv = await startServer({ env: { DATABASE_URL: pg.url } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
}, SERVER_TEST_TIMEOUT_MS);
afterAll(async () => {
  if (process.env.DATABASE_LOST_LOG && srv) (await import('node:fs')).writeFileSync(process.env.DATABASE_LOST_LOG, srv.output());
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  await pg?.stop();
});

/** Every answer while the database is away: the documented 503 with retry-after, or (between losses) a real answer; never a 500. */
function expectUnavailableOrServed(r: Awaited<ReturnType<typeof api>>, what: string) {
  expect([200, 201, 503], `${what}: ${r.status} ${r.text}`).toContain(r.status);
  if (r.status === 503) {
    expect(Number(r.headers.get('retry-after')), what).toBeGreaterThanOrEqual(1);
    expect(r.json, what).toMatchObject({ statusCode: 503 });
  }
}

/** Reads and writes answer normally again, by themselves (no restart of the instance). */
async function recovered(n: number) {
  await waitFor(async () => (await api(srv.url, '/balance', { token })).status === 200, { timeoutMs: 60_000, what: 'reads to come back' });
  const w = await waitFor(async () => {
    const r = await api(srv.url, '/withdraw/pix', { token, body: withdrawal(n), headers: { 'idempotency-key': `recover-${n}` } });
    expectUnavailableOrServed(r, 'a write while recovering');
    return r.status === 201 ? r : null;
  }, { timeoutMs: 60_000, what: 'writes to come back' });
  expect(w.json.data).toHaveLength(1);
  // ready again by itself too (its probes may need a moment more than a write on a loaded machine)
  await waitFor(async () => (await api(srv.url, '/readyz')).status === 200, { timeoutMs: 60_000, what: '/readyz to answer 200 again' });
}

describe('the database lost while running (PostgreSQL)', () => {
  it('connections killed under the instance (pg_terminate_backend): never a 500, and it reconnects by itself', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    expect((await api(srv.url, '/balance', { token })).status).toBe(200);
    const admin = postgres(pg.url.replace(/\/[^/]+$/, '/postgres'), { max: 1, onnotice: () => {} });
    try {
      const killed = await admin`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'payments' AND pid <> pg_backend_pid()`;
      expect(killed[0].n).toBeGreaterThan(0);
    } finally {
      await admin.end({ timeout: 5 });
    }
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => api(srv.url, '/balance', { token })),
      ...Array.from({ length: 10 }, (_, i) => api(srv.url, '/withdraw/pix', { token, body: withdrawal(i), headers: { 'idempotency-key': `killed-${i}` } })),
    ]);
    for (const r of answers) expectUnavailableOrServed(r, 'right after the connections were killed');
    await recovered(100);
  });

  it('the database stopped: 503 with retry-after for reads, writes and /readyz; back by itself once it restarts', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    await pg.halt();
    const read = await api(srv.url, '/balance', { token });
    const write = await api(srv.url, '/withdraw/pix', { token, body: withdrawal(200), headers: { 'idempotency-key': 'down-200' } });
    for (const [r, what] of [[read, 'GET /balance'], [write, 'POST /withdraw/pix']] as const) {
      expect(r.status, `${what}: ${r.text}`).toBe(503);
      expect(Number(r.headers.get('retry-after')), what).toBeGreaterThanOrEqual(1);
      expect(r.json, what).toMatchObject({ statusCode: 503 });
    }
    expect((await api(srv.url, '/readyz')).status).toBe(503);
    expect((await api(srv.url, '/healthz')).status).toBe(200); // alive: a balancer keeps it, the database is what is missing
    expect(srv.child.exitCode).toBeNull();
    await pg.resume();
    await recovered(300);
  });
});
