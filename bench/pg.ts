/**
 * `npm run bench -- --engine pg` (or `--engines sqlite,pg`): POST /withdraw/pix and GET /withdraw on
 * PostgreSQL, in the same run and table as the SQLite figures and the bare baselines (bench/run.ts calls
 * this after its SQLite targets, so every ratio is against the same bare FULL insert and bare read):
 *   [pg 1]     one instance, loaded directly (its CPU per request is measured, as SQLite's is);
 *   [pg 1 lb]  one instance behind HAProxy (npm run cluster), the balancer's own cost;
 *   [pg 2 lb]  two instances behind HAProxy, both writing to the one ledger.
 * The database is one throwaway PostgreSQL (scripts/lib/throwaway-postgres.ts) with crash safety on (fsync, synchronous
 * commit), as the bare FULL insert has it; each configuration gets an empty database of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';
import { withIdempotencyKey } from './process';

const ROOT = new URL('..', import.meta.url).pathname;

/** What bench/run.ts lends this module: its load generator and helpers, so the figures line up. */
export interface BenchHooks<R> {
  load(name: string, opts: { url: string; method?: 'POST' | 'GET'; body?: string; headers?: Record<string, string>; requests?: { setupRequest?: typeof withIdempotencyKey }[] }): Promise<R>;
  startProcess(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string; out: () => string }>;
  json(url: string, path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<any>;
  settled(url: string, identifier: string, headers: Record<string, string>): Promise<void>;
  /** The process whose CPU the next loads are charged to (undefined: not measured). */
  measure(pid: number | undefined): void;
}

/** Whether the command line asks for PostgreSQL: `--engine pg`, `--engines sqlite,pg`, `--engine=postgres`. */
export function wantsPostgres(argv: string[]): boolean {
  const values: string[] = [];
  argv.forEach((a, i) => {
    if (a === '--engine' || a === '--engines') values.push(argv[i + 1] ?? '');
    else if (/^--engines?=/.test(a)) values.push(a.slice(a.indexOf('=') + 1));
  });
  return values.flatMap((v) => v.split(',')).some((e) => /^(pg|postgres|postgresql)$/i.test(e.trim()));
}

const BASE_ENV: Record<string, string> = { NODE_ENV: 'production', DASHBOARD: 'false', RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '2000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };

/** `npm run cluster -- --instances N` on `databaseUrl`: the balancer's address and the demo credentials. */
function startCluster(instances: number, databaseUrl: string, dir: string): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--instances', String(instances), '--balance', 'roundrobin'], {
    cwd: ROOT, env: { ...process.env, ...BASE_ENV, DATABASE_URL: databaseUrl, DATABASE_PATH: join(dir, 'payments.db') }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { out += c; });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the cluster did not start: ${out}`)), 180_000);
    child.stdout!.on('data', () => {
      const m = /Cluster ready[\s\S]*balancer\s+(http:\S+)[\s\S]*Ctrl-C stops/.exec(out);
      if (m) { clearTimeout(t); resolve({ child, url: m[1], out: () => out }); }
    });
    child.on('exit', (c) => { clearTimeout(t); reject(new Error(`the cluster exited ${c}: ${out}`)); });
  });
}

export async function benchPostgres<R>(h: BenchHooks<R>): Promise<R[]> {
  const pg = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-pg-'));
  const results: R[] = [];
  const configs = [
    { label: '[pg 1]', start: (url: string, d: string) => h.startProcess(['server/main.ts'], { ...BASE_ENV, PORT: '0', DATABASE_URL: url, DATABASE_PATH: join(d, 'payments.db') }), direct: true },
    { label: '[pg 1 lb]', start: (url: string, d: string) => startCluster(1, url, d), direct: false },
    { label: '[pg 2 lb]', start: (url: string, d: string) => startCluster(2, url, d), direct: false },
  ];
  try {
    for (const [i, c] of configs.entries()) {
      const d = mkdtempSync(join(dir, `c${i}-`));
      const target = await c.start(await pg.createDatabase(`bench_${i}`), d);
      try {
        // the instances' CPU is charged to the load only when one process serves it directly
        h.measure(c.direct ? target.child.pid : undefined);
        const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(target.out())![1];
        const { access_token } = await h.json(target.url, '/auth/token', { body: { code: field('code'), token: field('token') } });
        const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
        await h.json(target.url, '/sandbox/topup', { body: { amount: 90_000_000_000 }, headers: auth });
        const withdrawal = { amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
        results.push(await h.load(`POST /withdraw/pix ${c.label}`, { url: target.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] }));
        const created = await h.json(target.url, '/withdraw/pix', { body: withdrawal, headers: auth });
        const settling = Date.now();
        await h.settled(target.url, created.data[0].identifier, auth);
        console.log(`settlement of the withdrawals took ${((Date.now() - settling) / 1000).toFixed(1)} s after the load ${c.label}`);
        results.push(await h.load(`GET /withdraw ${c.label}`, { url: `${target.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth }));
      } finally {
        const exited = new Promise((r) => target.child.once('exit', r));
        target.child.kill('SIGTERM');
        await exited;
      }
    }
    return results;
  } finally {
    h.measure(undefined);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
