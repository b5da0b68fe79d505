import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { createServices } from '../../server/services';
import { seedLedgerLines } from '../support/scale-seed';
import { accessToken, api, logLines, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { makeAccount, waitFor } from '../support/services';

/**
 * Issue 23, item 1: /readyz cannot be turned into a weapon. Over a ledger of a million lines (SQLite), 50
 * concurrent probes once the last audit's result is past its interval start no audit and wait for none,
 * while /healthz and another merchant's GET /balance are polled the whole time (p95 within 100 ms); the
 * audit still runs on its schedule (audited_at advances) and a tampered book still turns /readyz to 503.
 * Run it alone: it seeds and audits a million lines, and its timings are the point.
 */
const ENTRIES = Number(process.env.READYZ_LOAD_ENTRIES ?? 500_000); // two lines each
const INTERVAL_MS = 1_000;
const ANSWER_MS = 100;
const READYZ_MS = 50;
const METRICS_TOKEN = 'metrics-token-0123456789';

let srv: RunningServer;
let dir: string;
let lines = 0;
let bigAccount = '';
let otherToken = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pix-readyz-load-'));
  const databasePath = join(dir, 'payments.db');
  // two merchants, then the first one's million lines written straight into the file, before the server opens it
  const s = createServices({ config: loadConfig({ databasePath, rateLimitRps: 0 }) });
  // (the other merchant's top-up opens the sandbox's system book the seeded entries draw on)
  const other = await makeAccount(s, { balance: 5_000 });
  const big = await makeAccount(s);
  await s.db.close();
  bigAccount = big.account_id;
  const t0 = Date.now();
  lines = seedLedgerLines(databasePath, { accountId: big.account_id, entries: ENTRIES });
  console.log(`seeded ${lines} ledger lines in ${Date.now() - t0} ms`);
  srv = await startServer({ dir, env: { LEDGER_AUDIT_INTERVAL_MS: String(INTERVAL_MS), LOG_LEVEL: 'info', METRICS_TOKEN }, timeoutMs: SERVER_TEST_TIMEOUT_MS });
  otherToken = await accessToken(srv.url, other.code, other.token);
}, 300_000);
afterAll(async () => {
  await srv?.stop();
  if (dir) removeDir(dir);
});

/** One GET, timed from the moment it is sent to the end of its body. */
async function timed(path: string, token?: string) {
  const t0 = performance.now();
  const r = await api(srv.url, path, { token });
  return { ...r, ms: performance.now() - t0 };
}

/** Polls `path` one request after another until stopped; every answer's status and time. */
function poll(path: string, token?: string) {
  const answers: { status: number; ms: number }[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const r = await timed(path, token);
      answers.push({ status: r.status, ms: r.ms });
    }
  })();
  return { answers, async stop() { stopped = true; await done; return answers; } };
}

/** The longest the server's event loop was held since the last look (prom-client resets it at each scrape). */
async function loopLagMaxMs() {
  const text = (await api(srv.url, '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text;
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds '));
  return Number(line!.split(' ')[1]) * 1000;
}
const pct = (a: { ms: number }[], q: number) => { const s = a.map((x) => x.ms).sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))].toFixed(1); };

const auditedAt = async () => (await api(srv.url, '/readyz')).json?.audited_at as string | null;
const auditDurations = () => logLines(srv.output()).filter((l) => l.msg === 'ledger audit passed').map((l) => l.duration_ms as number);

describe('/readyz over a million ledger lines', () => {
  it('50 concurrent probes start no audit and wait for none; /healthz and another merchant answer within 100 ms (p95); the audit still runs', async () => {
    expect(lines).toBeGreaterThanOrEqual(2 * ENTRIES);
    // the first audit since start has finished
    const first = await waitFor(async () => {
      const r = await api(srv.url, '/readyz');
      return r.status === 200 && r.json.audited_at ? r.json.audited_at as string : null;
    }, { timeoutMs: 120_000, what: 'the first audit' });

    // 50 connections opened beforehand: the burst below measures the answers, not 50 TCP handshakes
    await Promise.all(Array.from({ length: 50 }, () => api(srv.url, '/healthz')));
    await loopLagMaxMs();
    const health = poll('/healthz');
    const balance = poll('/balance', otherToken);
    const ready = poll('/readyz');
    try {
      // the result is older than the interval: in the old code every probe now ran its own audit
      await waitFor(() => Date.now() - Date.parse(first) > INTERVAL_MS, { what: 'the result to expire' });
      // for comparison, the same burst of the endpoint that does nothing
      const healthBurst = (await Promise.all(Array.from({ length: 50 }, () => timed('/healthz')))).map((p) => p.ms).sort((a, b) => a - b);
      const probes = await Promise.all(Array.from({ length: 50 }, () => timed('/readyz')));
      for (const p of probes) expect([p.status, p.json?.ready, p.json?.audited_at >= first]).toEqual([200, true, true]);
      const readyzMs = probes.map((p) => p.ms).sort((a, b) => a - b);
      // the audit keeps running on its schedule meanwhile: one that started after the burst finishes
      const burstAt = new Date().toISOString();
      await waitFor(async () => { const at = await auditedAt(); return at && at > burstAt ? at : null; }, { timeoutMs: 240_000, what: 'an audit after the burst' });
      const healthAnswers = await health.stop();
      const balanceAnswers = await balance.stop();
      const readyAnswers = await ready.stop();
      const lag = await loopLagMaxMs();
      const over = (a: { ms: number }[]) => a.filter((x) => x.ms > ANSWER_MS).length;
      console.log(`event loop lag max ${lag.toFixed(1)} ms; healthz p50 ${pct(healthAnswers, 0.5)} p99 ${pct(healthAnswers, 0.99)} over ${over(healthAnswers)}; `
        + `balance p50 ${pct(balanceAnswers, 0.5)} p99 ${pct(balanceAnswers, 0.99)} over ${over(balanceAnswers)}; readyz p50 ${pct(readyAnswers, 0.5)} p99 ${pct(readyAnswers, 0.99)} over50 ${readyAnswers.filter((x) => x.ms > READYZ_MS).length}`);
      const max = (a: { ms: number }[]) => Math.max(...a.map((x) => x.ms));
      console.log(`50 concurrent /readyz: median ${readyzMs[25].toFixed(1)} ms, max ${readyzMs[49].toFixed(1)} ms `
        + `(50 concurrent /healthz: median ${healthBurst[25].toFixed(1)} ms, max ${healthBurst[49].toFixed(1)} ms); `
        + `polled /readyz ${readyAnswers.length} answers, max ${max(readyAnswers).toFixed(1)} ms, statuses ${[...new Set(readyAnswers.map((a) => a.status))]}; `
        + `/healthz ${healthAnswers.length} answers, max ${max(healthAnswers).toFixed(1)} ms; `
        + `GET /balance ${balanceAnswers.length} answers, max ${max(balanceAnswers).toFixed(1)} ms; audits took ${auditDurations().join(', ')} ms`);
      for (const a of [...healthAnswers, ...balanceAnswers, ...readyAnswers]) expect(a.status).toBe(200);
      // the 50 probes started no audit of their own: every audit since start is in the log, a handful
      expect(auditDurations().length).toBeLessThan(10);
      // No answer, not even the slowest of the burst, waited for an audit (each took seconds here)...
      const shortestAudit = Math.min(...auditDurations());
      expect(shortestAudit).toBeGreaterThan(10 * ANSWER_MS);
      for (const a of [healthAnswers, balanceAnswers, readyAnswers, probes]) expect(max(a)).toBeLessThan(shortestAudit / 2);
      // ...and the bounds of the issue hold for the answers polled throughout, by percentile: on a loaded
      // 2-core machine the client and the server also wait for their turn on a core (a burst of 50 /healthz,
      // which does nothing, took up to 835 ms here while other test files ran), so the slowest answer says
      // more about the machine than about the server. Measured alone: p99 85 ms, p50 7 ms.
      expect(Number(pct(healthAnswers, 0.95))).toBeLessThanOrEqual(ANSWER_MS);
      expect(Number(pct(balanceAnswers, 0.95))).toBeLessThanOrEqual(ANSWER_MS);
      expect(Number(pct(readyAnswers, 0.5))).toBeLessThanOrEqual(READYZ_MS);
    } finally {
      await health.stop();
      await balance.stop();
      await ready.stop();
    }
  }, SERVER_TEST_TIMEOUT_MS * 3);

  it('turns /readyz to 503 naming the ledger once a book is tampered with', async () => {
    const raw = new Database(srv.databasePath);
    try {
      raw.pragma('busy_timeout = 5000');
      // the database refuses this itself (a trigger): take that guard away, as test/unit/audit.test.ts does
      raw.exec('DROP TRIGGER IF EXISTS ledger_books_balance_from_lines');
      raw.prepare(`UPDATE ledger_books SET balance = balance + 1 WHERE account_id = ? AND kind = 'available'`).run(bigAccount);
    } finally {
      raw.close();
    }
    const probe = performance.now();
    const broken = await waitFor(async () => {
      const r = await api(srv.url, '/readyz');
      return r.status === 503 ? r : null;
    }, { timeoutMs: 120_000, what: '/readyz to turn 503' });
    expect(broken.json).toMatchObject({ status: 'not_ready', ready: false, failed: 'ledger' });
    expect(broken.json.checks.find((c: { name: string }) => c.name === 'ledger').detail).toBe('the ledger audit found a break; run npm run audit');
    expect(logLines(srv.output()).some((l) => l.msg === 'ledger audit found a break' && /^book_balances: /.test(l.first_break))).toBe(true);
    console.log(`tampered book seen by /readyz after ${(performance.now() - probe).toFixed(0)} ms`);
  }, SERVER_TEST_TIMEOUT_MS);
});
