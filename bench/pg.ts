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
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

const METRICS_TOKEN = 'bench-metrics-token-not-a-secret';
const BASE_ENV: Record<string, string> = { NODE_ENV: 'production', DASHBOARD: 'false', RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '2000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', METRICS_TOKEN };
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

/** CPU (user + system) a process has used, in µs, from /proc; 0 for one that is gone. */
function cpuOf(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

/** The PostgreSQL server's processes: the postmaster (first line of postmaster.pid) and its children (backends, WAL writer, checkpointer…). */
function postgresPids(dataDir: string): number[] {
  const master = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try { return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === master; } catch { return false; }
  });
  return [master, ...children];
}

/** Jobs the instances' writers ran again (db_writer_retries_total, all reasons): 0 on the normal path. */
async function writerRetries(instanceUrls: string[]): Promise<number> {
  let n = 0;
  for (const u of instanceUrls) {
    const text = await (await fetch(`${u}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    for (const m of text.matchAll(/^db_writer_retries_total\{[^}]*\} (\S+)$/gm)) n += Number(m[1]);
  }
  return n;
}

/** CPU per request of each instance, of PostgreSQL and writer retries over one load: the figures a shared machine cannot distort. */
interface Split { label: string; instances: number[]; postgres: number; retries: number }

/** `npm run cluster -- --instances N` on `databaseUrl`: the balancer's address and the demo credentials. */
function startCluster(instances: number, databaseUrl: string, dir: string): Promise<{ child: ChildProcess; url: string; out: () => string; pids: number[]; instanceUrls: string[] }> {
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
      if (m) {
        clearTimeout(t);
        const pids = [...(/pids\s+(.*)/.exec(out)?.[1] ?? '').matchAll(/i\d+=(\d+)/g)].map((x) => Number(x[1]));
        const instanceUrls = (/instances\s+(.*)/.exec(out)?.[1] ?? '').trim().split(/\s+/);
        resolve({ child, url: m[1], out: () => out, pids, instanceUrls });
      }
    });
    child.on('exit', (c) => { clearTimeout(t); reject(new Error(`the cluster exited ${c}: ${out}`)); });
  });
}

export async function benchPostgres<R extends { rps: number }>(h: BenchHooks<R>): Promise<R[]> {
  const pg = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-pg-'));
  const results: R[] = [];
  const splits: Split[] = [];
  const configs = [
    { label: '[pg 1]', start: async (url: string, d: string) => {
      const p = await h.startProcess(['server/main.ts'], { ...BASE_ENV, PORT: '0', DATABASE_URL: url, DATABASE_PATH: join(d, 'payments.db') });
      return { ...p, pids: [p.child.pid!], instanceUrls: [p.url] };
    }, direct: true },
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
        // every process's CPU over the load, and the writers' retries (split: one line per load)
        const measured = async (name: string, run: () => Promise<R>) => {
          const pgPids = postgresPids(join(pg.dir, 'data'));
          const before = { i: target.pids.map(cpuOf), pg: pgPids.map(cpuOf), retries: await writerRetries(target.instanceUrls) };
          const r = await run();
          const requests = Math.max(1, r.rps * DURATION);
          const instances = target.pids.map((pid, k) => (cpuOf(pid) - before.i[k]) / requests);
          const postgres = pgPids.reduce((a, pid, k) => a + cpuOf(pid) - before.pg[k], 0) / requests;
          splits.push({ label: name, instances, postgres, retries: (await writerRetries(target.instanceUrls)) - before.retries });
          return r;
        };
        results.push(await measured(`POST /withdraw/pix ${c.label}`, () => h.load(`POST /withdraw/pix ${c.label}`, { url: target.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] })));
        const created = await h.json(target.url, '/withdraw/pix', { body: withdrawal, headers: auth });
        const settling = Date.now();
        await h.settled(target.url, created.data[0].identifier, auth);
        console.log(`settlement of the withdrawals took ${((Date.now() - settling) / 1000).toFixed(1)} s after the load ${c.label}`);
        results.push(await measured(`GET /withdraw ${c.label}`, () => h.load(`GET /withdraw ${c.label}`, { url: `${target.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth })));
      } finally {
        const exited = new Promise((r) => target.child.once('exit', r));
        target.child.kill('SIGTERM');
        await exited;
      }
    }
    printSplits(splits, results);
    return results;
  } finally {
    h.measure(undefined);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where the CPU of each PostgreSQL load went, and what N instances would give on a machine with the cores for
 * them: a write costs `instance` µs in one instance and `postgres` µs in PostgreSQL, so C cores serve at most
 * C × 10^6 / (instance + postgres) writes/s when both share them, and instances add up until PostgreSQL's
 * share (one core per 10^6 / postgres writes/s) or the fsync of each group is the limit.
 */
function printSplits<R extends { rps: number }>(splits: Split[], results: R[]) {
  console.log('\nPostgreSQL: CPU µs per request of each instance and of PostgreSQL (all its processes), writer retries');
  for (const s of splits) {
    console.log(`  ${s.label.padEnd(32)} instances ${s.instances.map((x) => x.toFixed(0)).join(' + ').padEnd(14)} postgres ${s.postgres.toFixed(0).padStart(6)}   retries ${s.retries}`);
  }
  const rps = (name: string) => (results as unknown as { name: string; rps: number }[]).find((r) => r.name === name)?.rps;
  const one = rps('POST /withdraw/pix [pg 1 lb]');
  const two = rps('POST /withdraw/pix [pg 2 lb]');
  if (one && two) console.log(`  instances add up: POST /withdraw/pix, 2 instances behind HAProxy ${(two / one).toFixed(2)}x one instance behind HAProxy (target ≥ 0.90)`);
  const post = splits.find((s) => s.label === 'POST /withdraw/pix [pg 1]');
  if (post) {
    const inst = post.instances[0];
    const perCore = 1e6 / (inst + post.postgres);
    console.log(`  projection: a withdrawal costs ${inst.toFixed(0)} µs in an instance and ${post.postgres.toFixed(0)} µs in PostgreSQL; `
      + `on C cores shared by both, at most ${perCore.toFixed(0)} × C writes/s; with PostgreSQL on a machine of its own, `
      + `each instance core adds ${(1e6 / inst).toFixed(0)}/s until PostgreSQL's cores are busy (${(1e6 / post.postgres).toFixed(0)}/s per PostgreSQL core)`);
  }
}
