import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { openDatabase, type AppDatabase } from '../../db';
import { deliveries, events } from '../../db/schema';
import { createAccount } from '../../server/domain/accounts';
import { loadMasterKey } from '../../server/domain/master-key';
import { accessToken, api, removeDir } from './server';
import { waitFor } from './services';
import { systemClock } from '../../server/clock';

const ROOT = new URL('../..', import.meta.url).pathname;

/** `npm run cluster` (scripts/cluster.ts) as a test runs it, on the test file's PostgreSQL (vitest.pg.config.ts). */
export interface RunningCluster {
  process: ChildProcess;
  balancer: string;
  /** HAProxy's statistics page. */
  stats: string;
  instances: string[];
  /** The instances' process ids, in the order of `instances`. */
  pids: number[];
  /** The test's own handle on the cluster's database. */
  db: AppDatabase;
  /** DATABASE_PATH of the instances: the shared secrets key lives beside it (loadMasterKey). */
  databasePath: string;
  /** Everything the cluster printed so far (every instance's log lines). */
  output(): string;
  /** An account funded with `balance`, created in the database, with an access token got through the balancer. */
  fundedAccount(balance: number, name?: string): Promise<{ account_id: string; accessToken: string; apiKey: string }>;
  /** SIGTERM to the cluster; resolves with its exit code. */
  stop(): Promise<number | null>;
  /** For afterAll: closes the handle, stops the cluster if it still runs, removes its directory. */
  cleanup(): Promise<void>;
}

/**
 * Starts the cluster script with `instances` instances and the given environment (DATABASE_URL: the
 * file's throwaway PostgreSQL; DATABASE_PATH in a temporary directory, for the secrets key every instance
 * shares) and resolves once it says it is ready. CLUSTER_TEST_LOG=file keeps its output after the run.
 */
/** A cluster that settles at once and may deliver to a receiver on 127.0.0.1, with no rate limit in the way. */
export const DELIVERING_CLUSTER_ENV = { RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '50', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };

export async function startCluster(o: { instances: number; env?: Record<string, string>; args?: string[] }): Promise<RunningCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-cluster-e2e-'));
  const databasePath = join(dir, 'payments.db');
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--instances', String(o.instances), ...(o.args?.some((x) => x.startsWith('--balance')) ? [] : ['--balance', 'roundrobin']), ...(o.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_PATH: databasePath, DASHBOARD: 'false', NODE_ENV: 'test', JOB_AFFINITY_MS: '2000', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => { out += c.toString(); });
  child.stderr!.on('data', (c) => { out += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const check = () => { if (/Cluster ready/.test(out) && /Ctrl-C stops/.test(out)) resolve(); };
      child.stdout!.on('data', check);
      void exited.then((code) => reject(new Error(`cluster exited with ${code}:\n${out}`)));
    });
  } catch (err) {
    removeDir(dir);
    throw err;
  }
  const db = openDatabase(databasePath, { url: process.env.DATABASE_URL });
  const balancer = /balancer\s+(http:\S+)/.exec(out)![1];
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return {
    process: child,
    balancer,
    stats: /haproxy stats\s+(http:\S+)/.exec(out)![1],
    instances: /instances\s+(http:.+)/.exec(out)![1].trim().split(/\s+/),
    pids: /pids\s+(.+)/.exec(out)![1].trim().split(/\s+/).map((p) => Number(p.split('=')[1])),
    db,
    databasePath,
    output: () => out,
    async fundedAccount(balance, name = 'Cluster Merchant') {
      const masterKey = loadMasterKey(databasePath);
      const creds = await createAccount({ db, masterKey, clock: systemClock }, { name, balance });
      return { account_id: creds.account_id, accessToken: await accessToken(balancer, creds.code, creds.token), apiKey: creds.api_key };
    },
    stop,
    async cleanup() {
      if (process.env.CLUSTER_TEST_LOG) writeFileSync(process.env.CLUSTER_TEST_LOG, out);
      await db.close();
      await stop();
      removeDir(dir);
    },
  };
}

/** A webhook for the account's withdraw events to `url`, created through the balancer (201 asserted by the caller). */
export function subscribeToWithdrawals(c: RunningCluster, acc: { accessToken: string; apiKey: string }, url: string, idempotencyKey: string) {
  return api(c.balancer, '/api/webhooks', {
    body: { url, events: ['withdraw'] },
    headers: { 'x-api-key': acc.apiKey, 'x-token': acc.accessToken, 'idempotency-key': idempotencyKey },
  });
}

/** The account's events in seq order, once `withdrawals` of its withdrawals are paid (each has its withdraw.paid). */
export function eventsOncePaid(db: AppDatabase, accountId: string, withdrawals: number) {
  return waitFor(async () => {
    const rows = await db.read.handle.select({ id: events.id, resourceId: events.resourceId, type: events.type, seq: events.seq })
      .from(events).where(eq(events.accountId, accountId)).orderBy(asc(events.seq));
    return rows.filter((e) => e.type === 'withdraw.paid').length === withdrawals ? rows : null;
  }, { timeoutMs: 60_000, what: 'every withdrawal paid' });
}

/** Waits until the account has `count` deliveries, every one DELIVERED. */
export function everyDeliveryDelivered(db: AppDatabase, accountId: string, count: number, timeoutMs = 60_000) {
  return waitFor(async () => {
    const rows = await db.read.handle.select({ status: deliveries.status }).from(deliveries).where(eq(deliveries.accountId, accountId));
    return rows.length === count && rows.every((d) => d.status === 'DELIVERED');
  }, { timeoutMs, what: 'every delivery DELIVERED' });
}
