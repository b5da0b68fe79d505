// @engines postgres: 3 instances behind HAProxy (npm run cluster) share one PostgreSQL database
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phoneWithdrawal } from '../support/withdrawals';
import { openDatabase, type AppDatabase } from '../../db';
import { first } from '../../db/query';
import { withdrawals } from '../../db/schema';
import { createAccount } from '../../server/domain/accounts';
import { auditLedger } from '../../server/domain/ledger';
import { loadMasterKey } from '../../server/domain/master-key';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS } from '../support/server';
import { systemClock } from '../../server/clock';

/**
 * Several stateless instances behind a balancer (docs/decisions.md "Engines"; docs/postgresql.md): `npm run
 * cluster` (scripts/cluster.ts) with 3 instances behind HAProxy, on this file's PostgreSQL
 * (vitest.pg.config.ts), and the money guarantees through the balancer. HAProxy's own per-server counters
 * (its stats page on 127.0.0.1) show the requests really went to every instance: this cluster balances
 * round-robin, so one account's requests meet on every instance (correctness never depends on routing).
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const INSTANCES = 3;
let cluster: ChildProcess;
let out = '';
let balancer = '';
let stats = '';
let instances: string[] = [];
let dir = '';
let db: AppDatabase;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pix-cluster-e2e-'));
  cluster = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--instances', String(INSTANCES), '--balance', 'roundrobin'], {
    cwd: ROOT,
    env: {
      ...process.env, // DATABASE_URL: this file's throwaway PostgreSQL (test/support/pg-setup.ts)
      DATABASE_PATH: join(dir, 'payments.db'), // the instances' shared secrets key lives beside it
      DASHBOARD: 'false', NODE_ENV: 'test', RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '50', JOB_POLL_MS: '25', JOB_AFFINITY_MS: '2000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cluster.stdout!.on('data', (c) => { out += c.toString(); });
  cluster.stderr!.on('data', (c) => { out += c.toString(); });
  await new Promise<void>((resolve, reject) => {
    const check = () => { if (/Cluster ready/.test(out) && /Ctrl-C stops/.test(out)) resolve(); };
    cluster.stdout!.on('data', check);
    cluster.once('exit', (code) => reject(new Error(`cluster exited with ${code}:\n${out}`)));
  });
  balancer = /balancer\s+(http:\S+)/.exec(out)![1];
  stats = /haproxy stats\s+(http:\S+)/.exec(out)![1];
  instances = /instances\s+(.+)/.exec(out)![1].trim().split(/\s+/);
  db = openDatabase(join(dir, 'payments.db'), { url: process.env.DATABASE_URL });
}, SERVER_TEST_TIMEOUT_MS);

afterAll(async () => {
  // the cluster's own output (every instance's log), for looking into a failure
  if (process.env.CLUSTER_TEST_LOG) writeFileSync(process.env.CLUSTER_TEST_LOG, out);
  await db?.close();
  if (cluster && cluster.exitCode === null) {
    const exited = new Promise((r) => cluster.once('exit', r));
    cluster.kill('SIGTERM');
    await exited;
  }
  removeDir(dir);
}, SERVER_TEST_TIMEOUT_MS);

/** Requests each instance has answered so far, by HAProxy's count (stot of server i1…iN). */
async function servedByInstance(): Promise<number[]> {
  const csv = await (await fetch(`${stats};csv`)).text();
  return csv.split('\n').filter((l) => /^instances,i\d+,/.test(l)).map((l) => Number(l.split(',')[7]));
}

async function fundedAccount(balance: number) {
  const masterKey = loadMasterKey(join(dir, 'payments.db'));
  const creds = await createAccount({ db, masterKey, clock: systemClock }, { name: 'Cluster Merchant', balance });
  return { ...creds, accessToken: await accessToken(balancer, creds.code, creds.token) };
}

const AMOUNT = 1_234;
const body = (o: Record<string, unknown> = {}) => phoneWithdrawal({ amount: AMOUNT, ...o });
const countOf = async (accountId: string) =>
  Number((await first(db.read.handle.select({ n: sql<number>`count(*)` }).from(withdrawals).where(eq(withdrawals.accountId, accountId))))!.n);

function tally(statuses: number[]) {
  const by: Record<number, number> = {};
  for (const s of statuses) by[s] = (by[s] ?? 0) + 1;
  return by;
}

describe(`npm run cluster: ${INSTANCES} instances behind HAProxy on one PostgreSQL`, () => {
  it('the balancer answers, and every instance is healthy and ready', async () => {
    expect(instances).toHaveLength(INSTANCES);
    expect((await fetch(`${balancer}/healthz`)).status).toBe(200);
    for (const url of instances) expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it('100 concurrent withdrawals on a balance for exactly 50, spread over the instances: 50 × 201, 50 × 422, no 5xx', async () => {
    const acc = await fundedAccount(50 * AMOUNT);
    const before = await servedByInstance();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      api(balancer, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: `c-${i}` }) })));
    const spread = (await servedByInstance()).map((n, i) => n - before[i]);
    expect(tally(answers.map((a) => a.status))).toEqual({ 201: 50, 422: 50 });
    for (const a of answers.filter((x) => x.status === 422)) expect(a.json).toMatchObject({ error: { code: 'INSUFFICIENT_FUNDS' } });
    // round-robin: each of the 3 answered about a third of the 100 (nothing else was sent meanwhile)
    expect(spread.reduce((a, b) => a + b, 0)).toBe(100);
    for (const n of spread) expect(n).toBeGreaterThanOrEqual(25);
    expect(await countOf(acc.account_id)).toBe(50);
    expect((await api(balancer, '/balance', { token: acc.accessToken })).json.available).toBe(0);
    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
  }, SERVER_TEST_TIMEOUT_MS);

  it('50 concurrent requests with one idempotency key, spread over the instances: one withdrawal, one debit, one answer', async () => {
    const acc = await fundedAccount(100 * AMOUNT);
    const before = await servedByInstance();
    const answers = await Promise.all(Array.from({ length: 50 }, () =>
      api(balancer, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: 'once' }), headers: { 'idempotency-key': 'one-key' } })));
    const spread = (await servedByInstance()).map((n, i) => n - before[i]);
    for (const n of spread) expect(n).toBeGreaterThanOrEqual(10);
    const ok = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409 && a.headers.get('retry-after') !== null);
    // across instances too, every answer is the key's: its stored answer (201, replayed or not) or 409
    // with retry-after while the first is still running in the same instance (idempotency.ts locks the
    // key inside the write job, so a job on another instance waits for the first and replays it)
    expect(ok.length + busy.length, JSON.stringify(tally(answers.map((a) => a.status)))).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.text).toBe(ok[0].text);
    expect(ok.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const a of busy) expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    // afterwards, through any instance, the key answers the stored bytes
    for (let i = 0; i < INSTANCES; i++) {
      const again = await api(balancer, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: 'once' }), headers: { 'idempotency-key': 'one-key' } });
      expect(again.status).toBe(201);
      expect(again.text).toBe(ok[0].text);
    }
    expect(await countOf(acc.account_id)).toBe(1);
    expect((await api(balancer, '/balance', { token: acc.accessToken })).json.available).toBe(99 * AMOUNT);
    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
  }, SERVER_TEST_TIMEOUT_MS);

  it('after the bursts the ledger audit is clean and every instance is still ready (its /readyz runs the audit too)', async () => {
    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
    for (const url of instances) expect((await fetch(`${url}/readyz`)).status).toBe(200);
  }, SERVER_TEST_TIMEOUT_MS);

  it('SIGTERM stops the whole cluster: exit 0, the balancer and every instance gone', async () => {
    const exited = new Promise<number | null>((r) => cluster.once('exit', (code) => r(code)));
    cluster.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toMatch(/cluster stopped/);
    for (const url of [balancer, ...instances]) {
      const { port } = new URL(url);
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect(Number(port), '127.0.0.1');
        s.once('connect', () => { s.destroy(); resolve(false); });
        s.once('error', () => resolve(true));
      });
      expect(refused, `${url} still accepts`).toBe(true);
    }
  }, SERVER_TEST_TIMEOUT_MS);
});

describe('npm run cluster --balance credentials (its default): a merchant\'s requests meet on one instance', () => {
  it('routes every request of one Authorization header to the same instance', async () => {
    const own = mkdtempSync(join(tmpdir(), 'pix-cluster-hash-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--instances', '2'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_PATH: join(own, 'payments.db'), DASHBOARD: 'false', NODE_ENV: 'test', RATE_LIMIT_RPS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout!.on('data', (c) => { log += c.toString(); });
    child.stderr!.on('data', (c) => { log += c.toString(); });
    try {
      await new Promise<void>((resolve, reject) => {
        const check = () => { if (/Cluster ready/.test(log) && /Ctrl-C stops/.test(log)) resolve(); };
        child.stdout!.on('data', check);
        child.once('exit', (code) => reject(new Error(`cluster exited with ${code}:\n${log}`)));
      });
      const front = /balancer\s+(http:\S+)/.exec(log)![1];
      const statsUrl = /haproxy stats\s+(http:\S+)/.exec(log)![1];
      const served = async () => (await (await fetch(`${statsUrl};csv`)).text()).split('\n')
        .filter((l) => /^instances,i\d+,/.test(l)).map((l) => Number(l.split(',')[7]));
      // tokens are whatever the header says: the balancer hashes it before any instance reads it
      const landings: number[][] = [];
      for (const token of ['merchant-a', 'merchant-b', 'merchant-c', 'merchant-d']) {
        const before = await served();
        for (let i = 0; i < 10; i++) expect((await api(front, '/balance', { token })).status).toBe(401);
        landings.push((await served()).map((n, i) => n - before[i]));
      }
      // each merchant's 10 requests all on one instance (round-robin would split them 5/5); HAProxy's
      // session counter may show one stray session elsewhere (seen once: 10 and 1), never a share
      for (const l of landings) {
        expect(Math.max(...l), JSON.stringify(landings)).toBeGreaterThanOrEqual(10);
        expect(l.reduce((a, b) => a + b, 0) - Math.max(...l), JSON.stringify(landings)).toBeLessThanOrEqual(1);
      }
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      removeDir(own);
    }
  }, SERVER_TEST_TIMEOUT_MS);
});
