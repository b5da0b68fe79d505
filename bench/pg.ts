/**
 * `npm run bench -- --engine pg` (or `--engines sqlite,pg`): POST /withdraw/pix and GET /withdraw on
 * PostgreSQL, in the same run and table as the SQLite figures and the bare baselines (bench/run.ts calls
 * this after its SQLite targets, so every ratio is against the same bare FULL insert and bare read):
 *   PG bare insert: bench/pg-bare-server.ts, one durable INSERT per request through postgres.js with the
 *              product's pool size, on the same cluster (the baseline of issue 25's targets);
 *   [pg 1]     one instance, loaded directly (its CPU per request is measured, as SQLite's is): one hot
 *              account, then the same POST spread over 20 accounts (bench/accounts.ts);
 *   [pg 1 lb]  one instance behind HAProxy (npm run cluster), the balancer's own cost;
 *   [pg 2 lb]  two instances behind HAProxy, both writing to the one ledger, routed as `npm run cluster` does by
 *              default (a consistent hash of the Authorization header: one merchant's writes meet in one
 *              instance's groups, while settlement runs on both), then the same spread over 20 accounts;
 *   [pg 2 lb rr] the same two instances routed round-robin, one hot account: the worst case, where every
 *              group of both instances wants the same merchant's books.
 * The database is one throwaway PostgreSQL (scripts/lib/throwaway-postgres.ts) with crash safety on (fsync, synchronous
 * commit), as the bare FULL insert has it; each configuration gets an empty database of its own.
 * The target lines of issue 25 (ratios against the PG bare insert and SQLite's CPU of the same run) are
 * printed after the table (PostgresReport.summary).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';
import { withIdempotencyKey } from './process';

const ROOT = new URL('..', import.meta.url).pathname;

type LoadOptions = { url: string; method?: 'POST' | 'GET'; body?: string; headers?: Record<string, string>; requests?: { setupRequest?: typeof withIdempotencyKey }[] };

/** What bench/run.ts lends this module: its load generator and helpers, so the figures line up. */
export interface BenchHooks<R> {
  /** `probe` brackets the measured window only (after the load's warm-up), with the requests it counted. */
  load(name: string, opts: LoadOptions, probe?: { before(): Promise<void>; after(requests: number): Promise<void> }): Promise<R>;
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
function startCluster(instances: number, databaseUrl: string, dir: string, balance: 'credentials' | 'roundrobin'): Promise<{ child: ChildProcess; url: string; out: () => string; pids: number[]; instanceUrls: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '--instances', String(instances), '--balance', balance], {
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

/** A row of the run's table, as bench/run.ts keeps it. */
export interface BenchRow { name: string; rps: number; p99: number; cpuUsPerReq: number | null }

/** The PostgreSQL rows of the table, and the target lines of issue 25 (printed after the table). */
export interface PostgresReport<R> { results: R[]; summary: string[] }

/** How many accounts the spread load writes to. */
const SPREAD_ACCOUNTS = 20;

/** N funded accounts made in the instance's database (bench/accounts.ts), each with an access token of its own. */
async function spreadAccounts<R>(h: BenchHooks<R>, url: string, env: Record<string, string>, n: number): Promise<string[]> {
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'bench/accounts.ts', String(n)], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`bench/accounts.ts: ${made.stderr}`);
  const pairs = made.stdout.trim().split('\n').map((l) => JSON.parse(l) as { code: string; token: string });
  const tokens: string[] = [];
  for (const p of pairs) tokens.push((await h.json(url, '/auth/token', { body: { code: p.code, token: p.token } })).access_token);
  return tokens;
}

export async function benchPostgres<R extends BenchRow>(h: BenchHooks<R>, sqlite: { postCpuUsPerReq: number | null }): Promise<PostgresReport<R>> {
  const pg = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-pg-'));
  const results: R[] = [];
  const splits: Split[] = [];
  /** a load with every process's CPU over its measured window, and the writers' retries (one split line per load) */
  const measured = (name: string, pids: number[], instanceUrls: string[], opts: LoadOptions) => {
    let before = { i: [] as number[], pg: [] as number[], pgPids: [] as number[], retries: 0 };
    return h.load(name, opts, {
      async before() {
        const pgPids = postgresPids(join(pg.dir, 'data'));
        before = { i: pids.map(cpuOf), pg: pgPids.map(cpuOf), pgPids, retries: await writerRetries(instanceUrls) };
      },
      async after(total) {
        const requests = Math.max(1, total);
        const instances = pids.map((pid, k) => (cpuOf(pid) - before.i[k]) / requests);
        const postgres = before.pgPids.reduce((a, pid, k) => a + cpuOf(pid) - before.pg[k], 0) / requests;
        splits.push({ label: name, instances, postgres, retries: (await writerRetries(instanceUrls)) - before.retries });
      },
    });
  };
  let pool = '';
  try {
    // the baseline: one durable INSERT per request, autocommit, the product's pool size, on this cluster
    {
      const bare = await h.startProcess(['bench/pg-bare-server.ts', await pg.createDatabase('bench_bare')], {});
      pool = /\(pool (\d+)\)/.exec(bare.out())?.[1] ?? '?';
      try {
        h.measure(bare.child.pid);
        results.push(await measured(BARE, [bare.child.pid!], [], { url: bare.url, method: 'POST', body: JSON.stringify({ amount: 1000, key: randomUUID(), note: 'bench' }), headers: { 'content-type': 'application/json' } }));
      } finally {
        h.measure(undefined);
        const exited = new Promise((r) => bare.child.once('exit', r));
        bare.child.kill('SIGTERM');
        await exited;
      }
    }
    const configs = [
      { label: '[pg 1]', start: async (url: string, d: string) => {
        const p = await h.startProcess(['server/main.ts'], { ...BASE_ENV, PORT: '0', DATABASE_URL: url, DATABASE_PATH: join(d, 'payments.db') });
        return { ...p, pids: [p.child.pid!], instanceUrls: [p.url] };
      }, direct: true, spread: true },
      { label: '[pg 1 lb]', start: (url: string, d: string) => startCluster(1, url, d, 'credentials'), direct: false, spread: true },
      { label: '[pg 2 lb]', start: (url: string, d: string) => startCluster(2, url, d, 'credentials'), direct: false, spread: true },
      { label: '[pg 2 lb rr]', start: (url: string, d: string) => startCluster(2, url, d, 'roundrobin'), direct: false, spread: false },
    ];
    for (const [i, c] of configs.entries()) {
      const d = mkdtempSync(join(dir, `c${i}-`));
      const databaseUrl = await pg.createDatabase(`bench_${i}`);
      const target = await c.start(databaseUrl, d);
      try {
        // the instances' CPU is charged to the load only when one process serves it directly
        h.measure(c.direct ? target.child.pid : undefined);
        const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(target.out())![1];
        const { access_token } = await h.json(target.url, '/auth/token', { body: { code: field('code'), token: field('token') } });
        const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
        await h.json(target.url, '/sandbox/topup', { body: { amount: 90_000_000_000 }, headers: auth });
        const withdrawal = { amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
        const post = `POST /withdraw/pix ${c.label}`;
        results.push(await measured(post, target.pids, target.instanceUrls, { url: target.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] }));
        const created = await h.json(target.url, '/withdraw/pix', { body: withdrawal, headers: auth });
        const settling = Date.now();
        await h.settled(target.url, created.data[0].identifier, auth);
        console.log(`settlement of the withdrawals took ${((Date.now() - settling) / 1000).toFixed(1)} s after the load ${c.label}`);
        const get = `GET /withdraw ${c.label}`;
        results.push(await measured(get, target.pids, target.instanceUrls, { url: `${target.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth }));
        if (c.spread) {
          // the same withdrawals spread over many merchants: each request carries one of their tokens in turn
          const tokens = await spreadAccounts(h, target.url, { ...BASE_ENV, DATABASE_URL: databaseUrl, DATABASE_PATH: join(d, 'payments.db') }, SPREAD_ACCOUNTS);
          let turn = 0;
          const spread = `POST /withdraw/pix ${spreadLabel(c.label)}`;
          const setupRequest = (req: Parameters<typeof withIdempotencyKey>[0]) => {
            turn = (turn + 1) % tokens.length;
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[turn]}`, 'idempotency-key': randomUUID() } };
          };
          results.push(await measured(spread, target.pids, target.instanceUrls, { url: target.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest }] }));
        }
      } finally {
        h.measure(undefined);
        const exited = new Promise((r) => target.child.once('exit', r));
        target.child.kill('SIGTERM');
        await exited;
      }
    }
    printSplits(splits);
    return { results, summary: targets(splits, results, sqlite.postCpuUsPerReq, pool) };
  } finally {
    h.measure(undefined);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const BARE = 'PG bare insert (durable)';

/** `[pg 1]` → `[pg 1, 20 accounts]`: the spread load's row of a configuration. */
function spreadLabel(label: string): string {
  return `${label.slice(0, -1)}, ${SPREAD_ACCOUNTS} accounts]`;
}

/** The targets of issue 25, each as a ratio against a figure of the same run. */
function targets(splits: Split[], results: BenchRow[], sqlitePostCpu: number | null, pool: string): string[] {
  const row = (name: string) => results.find((r) => r.name === name);
  const split = (name: string) => splits.find((s) => s.label === name);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const bare = row(BARE);
  const hot = row('POST /withdraw/pix [pg 1]');
  const spread = row(`POST /withdraw/pix ${spreadLabel('[pg 1]')}`);
  const out = ['', `PostgreSQL targets (issue 25), one run, sandbox settlement running (SANDBOX_SETTLEMENT_DELAY_MS=${BASE_ENV.SANDBOX_SETTLEMENT_DELAY_MS}):`];
  if (bare) {
    const b = split(BARE);
    out.push(`  PG bare durable insert: ${bare.rps.toFixed(0)} req/s, p99 ${bare.p99} ms (postgres.js, pool ${pool}, autocommit, synchronous_commit=on; CPU µs per insert: node ${b?.instances[0].toFixed(0)}, PostgreSQL ${b?.postgres.toFixed(0)})`);
  }
  for (const [label, r] of [['one hot account', hot], [`spread over ${SPREAD_ACCOUNTS} accounts`, spread]] as const) {
    if (r && bare) out.push(`  POST /withdraw/pix PG, ${label}: ${(r.rps / bare.rps).toFixed(2)}× the PG bare insert (target ≥ 0.25×: ${met(r.rps >= 0.25 * bare.rps)}; ${r.rps.toFixed(0)} against ${bare.rps.toFixed(0)} req/s)`);
  }
  const p99s = [hot, spread].filter((r): r is BenchRow => !!r);
  if (p99s.length) {
    const worst = Math.max(...p99s.map((r) => r.p99));
    out.push(`  p99 POST /withdraw/pix PG at 50 connections: ${p99s.map((r) => `${r.p99} ms`).join(' (hot), ')}${p99s.length > 1 ? ` (${SPREAD_ACCOUNTS} accounts)` : ' (hot)'} (target ≤ 150 ms: ${met(worst <= 150)})`);
  }
  for (const [label, name] of [['one hot account', 'POST /withdraw/pix [pg 1]'], [`${SPREAD_ACCOUNTS} accounts`, `POST /withdraw/pix ${spreadLabel('[pg 1]')}`]] as const) {
    const s = split(name);
    if (!s) continue;
    const inst = s.instances[0];
    const vs = sqlitePostCpu ? `${(inst / sqlitePostCpu).toFixed(2)}× SQLite's ${sqlitePostCpu.toFixed(0)} µs in this run (target ≤ 1.5×: ${met(inst <= 1.5 * sqlitePostCpu)})` : "(SQLite's figure missing)";
    out.push(`  CPU per POST in the instance on PG, ${label}: ${inst.toFixed(0)} µs, ${vs}; PostgreSQL's own CPU per withdrawal: ${s.postgres.toFixed(0)} µs`);
    // what the cores allow: even an instance that cost nothing leaves PostgreSQL's own CPU per withdrawal (and
    // the load generator's, about the bare insert's node figure) to be paid from the machine's cores
    const b = split(BARE);
    if (bare && b) {
      const ceiling = (cpus().length * 1e6) / (s.postgres + b.instances[0]);
      out.push(`    ceiling from PostgreSQL's share alone: ${cpus().length} cores / (${s.postgres.toFixed(0)} µs PostgreSQL + ~${b.instances[0].toFixed(0)} µs load generator) = ${ceiling.toFixed(0)} req/s = ${(ceiling / bare.rps).toFixed(2)}× the bare insert, with an instance costing nothing`);
    }
  }
  for (const [label, oneName, twoName] of [
    ['one hot account, routed by credentials', '[pg 1 lb]', '[pg 2 lb]'],
    [`${SPREAD_ACCOUNTS} accounts, routed by credentials`, spreadLabel('[pg 1 lb]'), spreadLabel('[pg 2 lb]')],
    ['one hot account, round-robin (every group wants the same books)', '[pg 1 lb]', '[pg 2 lb rr]'],
  ] as const) {
    const one = row(`POST /withdraw/pix ${oneName}`);
    const two = row(`POST /withdraw/pix ${twoName}`);
    if (one && two) out.push(`  2 instances behind HAProxy vs 1, ${label}: ${(two.rps / one.rps).toFixed(2)}× (target ≥ 0.90×: ${met(two.rps >= 0.9 * one.rps)}; ${two.rps.toFixed(0)} against ${one.rps.toFixed(0)} req/s)`);
  }
  const posts = splits.filter((s) => s.label.startsWith('POST '));
  if (posts.length) {
    const total = posts.reduce((a, s) => a + s.retries, 0);
    out.push(`  writer retries over the POST loads: ${posts.map((s) => `${s.label.replace('POST /withdraw/pix ', '')} ${s.retries}`).join(', ')} (target 0: ${met(total === 0)})`);
  }
  return out;
}

/**
 * Where the CPU of each PostgreSQL load went, and what N instances would give on a machine with the cores for
 * them: a write costs `instance` µs in one instance and `postgres` µs in PostgreSQL, so C cores serve at most
 * C × 10^6 / (instance + postgres) writes/s when both share them, and instances add up until PostgreSQL's
 * share (one core per 10^6 / postgres writes/s) or the fsync of each group is the limit.
 */
function printSplits(splits: Split[]) {
  console.log('\nPostgreSQL: CPU µs per request of each instance and of PostgreSQL (all its processes), writer retries');
  for (const s of splits) {
    console.log(`  ${s.label.padEnd(44)} instances ${s.instances.map((x) => x.toFixed(0)).join(' + ').padEnd(14)} postgres ${s.postgres.toFixed(0).padStart(6)}   retries ${s.retries}`);
  }
  const post = splits.find((s) => s.label === 'POST /withdraw/pix [pg 1]');
  if (post) {
    const inst = post.instances[0];
    const perCore = 1e6 / (inst + post.postgres);
    console.log(`  projection: a withdrawal costs ${inst.toFixed(0)} µs in an instance and ${post.postgres.toFixed(0)} µs in PostgreSQL; `
      + `on C cores shared by both, at most ${perCore.toFixed(0)} × C writes/s; with PostgreSQL on a machine of its own, `
      + `each instance core adds ${(1e6 / inst).toFixed(0)}/s until PostgreSQL's cores are busy (${(1e6 / post.postgres).toFixed(0)}/s per PostgreSQL core)`);
  }
}
