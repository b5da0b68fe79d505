/**
 * tsx bench/pg-ab.ts: POST /withdraw/pix (and GET /withdraw) on PostgreSQL, one instance loaded directly,
 * for two trees side by side in alternating rounds on one throwaway PostgreSQL: CPU µs per request of the
 * server process (from /proc) and req/s. PGAB_B_ROOT=/path/to/other/checkout (default: only this tree),
 * PGAB_ROUNDS (3), PGAB_SECONDS (8), PGAB_PROFILE=dir: run the servers under --cpu-prof into dir.
 * PGAB_INSTANCES=2: each variant is two servers on one database, loaded half each. PGAB_IDEMPOTENCY=1: every
 * POST carries a fresh idempotency-key (full work, as `npm run bench` sends). Also printed: PostgreSQL's
 * CPU µs per request (all its processes, over the same load), the server's user/system split, its write and
 * read syscalls and context switches per request. PGAB_B_ENV='NAME=value …': B also gets these variables (B is
 * this tree when PGAB_B_ROOT is unset).
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';
import { startProcess, withIdempotencyKey } from './process';

const ROOT = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.PGAB_ROUNDS ?? 3);
const SECONDS = Number(process.env.PGAB_SECONDS ?? 8);
const PROFILE = process.env.PGAB_PROFILE;
const INSTANCES = Number(process.env.PGAB_INSTANCES ?? 1);
const ONLY = process.env.PGAB_ONLY ?? 'both';

/** What a process has used so far: user and system CPU µs, write and read syscalls, context switches (from /proc). */
function usage(pid: number | undefined): { user: number; sys: number; syscw: number; syscr: number; vcs: number; ivcs: number } {
  const none = { user: 0, sys: 0, syscw: 0, syscr: 0, vcs: 0, ivcs: 0 };
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const n = (text: string, key: string) => Number(new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { user: Number(f[11]) * 10_000, sys: Number(f[12]) * 10_000, syscw: n(io, 'syscw'), syscr: n(io, 'syscr'), vcs: n(st, 'voluntary_ctxt_switches'), ivcs: n(st, 'nonvoluntary_ctxt_switches') };
  } catch {
    return none;
  }
}

function cpu(pid: number | undefined): number {
  if (!existsSync(`/proc/${pid}/stat`)) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

/** PostgreSQL's processes: the postmaster and its children (backends, WAL writer, checkpointer…). */
function postgresPids(dataDir: string): number[] {
  const master = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try { return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === master; } catch { return false; }
  });
  return [master, ...children];
}

async function json(url: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: body ? 'POST' : 'GET', headers: { 'content-type': 'application/json', ...headers }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function main() {
  const pg = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
  const dir = mkdtempSync(join(tmpdir(), 'pix-pgab-'));
  const roots = [{ label: 'A', root: ROOT }];
  if (process.env.PGAB_B_ROOT || process.env.PGAB_B_ENV) roots.push({ label: 'B', root: process.env.PGAB_B_ROOT ?? ROOT });
  // PGAB_B_ENV='NAME=value …': variant B's servers also get these variables (e.g. SANDBOX_SETTLEMENT_DELAY_MS=600000
  // keeps settlement out of the load, so A − B is what settling the load's withdrawals costs)
  const envB = Object.fromEntries((process.env.PGAB_B_ENV ?? '').trim().split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const variants: { label: string; servers: { child: import('node:child_process').ChildProcess; url: string }[]; auth: Record<string, string>; get: string }[] = [];
  try {
    for (const [i, r] of roots.entries()) {
      const url = await pg.createDatabase(`ab_${i}`);
      const servers = [];
      for (let k = 0; k < INSTANCES; k++) {
        const args = PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(PROFILE, r.label)}`, 'server/main.ts'] : ['server/main.ts'];
        if (PROFILE) mkdirSync(join(PROFILE, r.label), { recursive: true });
        servers.push(await startProcess(args, { NODE_ENV: 'production', DASHBOARD: 'false', RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '2000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', PORT: '0', DATABASE_URL: url, DATABASE_PATH: join(dir, `p${i}-${k}.db`), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...(r.label === 'B' ? envB : {}) }, r.root));
      }
      const out = servers[0].out();
      const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(out)![1];
      const { access_token } = await json(servers[0].url, '/auth/token', { code: field('code'), token: field('token') });
      const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
      await json(servers[0].url, '/sandbox/topup', { amount: 90_000_000_000 }, auth);
      const created = await json(servers[0].url, '/withdraw/pix', { amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } }, auth);
      variants.push({ label: r.label, servers, auth, get: `/withdraw?identifier=${created.data[0].identifier}` });
    }
    const body = JSON.stringify({ amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } });
    const rows: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        for (const kind of ['POST', 'GET'] as const) {
          if (ONLY !== 'both' && ONLY !== kind) continue;
          const pgPids = postgresPids(join(pg.dir, 'data'));
          const pgBefore = pgPids.reduce((a, p) => a + cpu(p), 0);
          const before = v.servers.map((s) => cpu(s.child.pid));
          const usageBefore = v.servers.map((s) => usage(s.child.pid));
          const rs = await Promise.all(v.servers.map((s) => autocannon({
            url: s.url + (kind === 'POST' ? '/withdraw/pix' : v.get), method: kind, body: kind === 'POST' ? body : undefined,
            headers: v.auth, connections: Math.round(50 / v.servers.length), duration: SECONDS,
            requests: kind === 'POST' && process.env.PGAB_IDEMPOTENCY === '1' ? [{ setupRequest: withIdempotencyKey }] : undefined,
          })));
          const after = v.servers.map((s) => cpu(s.child.pid));
          const usageAfter = v.servers.map((s) => usage(s.child.pid));
          const delta = (k: keyof ReturnType<typeof usage>) => usageAfter.reduce((a, u, i) => a + u[k] - usageBefore[i][k], 0);
          const pgUsed = pgPids.reduce((a, p) => a + cpu(p), 0) - pgBefore;
          const total = rs.reduce((a, r) => a + r.requests.total, 0);
          const used = after.reduce((a, x, i) => a + x - before[i], 0);
          const non2xx = rs.reduce((a, r) => a + r.non2xx + r.errors, 0);
          const line = `round ${round} ${v.label} ${kind.padEnd(4)} ${(total / SECONDS).toFixed(0).padStart(6)} req/s  ${(used / total).toFixed(0).padStart(6)} µs/req  pg ${(pgUsed / total).toFixed(0).padStart(5)} µs/req  p99 ${Math.max(...rs.map((r) => r.latency.p99))} ms  non2xx ${non2xx}  (user ${(delta('user') / total).toFixed(0)} sys ${(delta('sys') / total).toFixed(0)} µs; per req: ${(delta('syscw') / total).toFixed(1)} write + ${(delta('syscr') / total).toFixed(1)} read syscalls, ${(delta('vcs') / total).toFixed(1)} + ${(delta('ivcs') / total).toFixed(1)} invol. switches)`;
          console.log(line);
          rows.push(line);
          // let the settlement of the load finish before the next measurement
          await new Promise((r) => setTimeout(r, 3000));
        }
      }
    }
  } finally {
    for (const v of variants) for (const s of v.servers) {
      const exited = new Promise((r) => s.child.once('exit', r));
      s.child.kill('SIGTERM');
      await exited;
    }
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
