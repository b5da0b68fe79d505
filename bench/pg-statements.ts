/**
 * tsx bench/pg-statements.ts: how many statements PostgreSQL runs per POST /withdraw/pix (the request, its
 * settlement and the dispatcher's share), counted from PostgreSQL's own log (log_statement=all) over N
 * withdrawals sent 10 at a time, each with an idempotency key, and grouped by statement. A count, not a
 * timing: it does not move with the machine's load, so a change to the request path can be judged on a
 * shared machine where CPU per request does. PGST_B_ROOT=/path/to/other/checkout counts that tree too
 * (the same database cluster, one after the other); PGST_N (200) withdrawals; PGST_TOP (25) lines shown. Also
 * the server's write syscalls per POST over the same window: round trips, as postgres.js sends what a job
 * pipelines in one write (the HTTP answers and the idle loops' polls are in it too).
 * The whole server from outside, as PostgreSQL sees it; bench/pg-jobs.ts looks at one write job from inside
 * the process instead (its messages, CPU split and PL/pgSQL time): the two share no machinery, so two scripts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';
import { startProcess } from './process';

const ROOT = new URL('..', import.meta.url).pathname;
const N = Number(process.env.PGST_N ?? 200);
const TOP = Number(process.env.PGST_TOP ?? 25);

async function json(url: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: body ? 'POST' : 'GET', headers: { 'content-type': 'application/json', ...headers }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** A statement as logged, with its literals and ids blurred so that the same statement groups together. */
function shape(line: string): string {
  return line.replace(/^.*?LOG:\s+(statement|execute [^:]*):\s*/, '').replace(/\$\d+/g, '$').replace(/'[^']*'/g, "'…'").replace(/\s+/g, ' ').slice(0, 110);
}

async function main() {
  const pg = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'pix-pgst-'));
  const roots = [{ label: 'A', root: ROOT }];
  if (process.env.PGST_B_ROOT) roots.push({ label: 'B', root: process.env.PGST_B_ROOT });
  try {
    for (const [i, r] of roots.entries()) {
      const url = await pg.createDatabase(`st_${i}`);
      const server = await startProcess(['server/main.ts'], { NODE_ENV: 'production', DASHBOARD: 'false', RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '200', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', PORT: '0', DATABASE_URL: url, DATABASE_PATH: join(dir, `p${i}.db`), LOG_LEVEL: 'info' }, r.root);
      try {
        const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(server.out())![1];
        const { access_token } = await json(server.url, '/auth/token', { code: field('code'), token: field('token') });
        const auth = { authorization: `Bearer ${access_token}` };
        await json(server.url, '/sandbox/topup', { amount: 90_000_000_000 }, auth);
        const body = { amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
        const send = async (count: number) => {
          let last = '';
          for (let k = 0; k < count; k += 10) {
            const made = await Promise.all(Array.from({ length: Math.min(10, count - k) }, () => json(server.url, '/withdraw/pix', body, { ...auth, 'idempotency-key': randomUUID() })));
            last = made[made.length - 1].data[0].identifier;
          }
          // every withdrawal settled (oldest first), and the loops idle again
          for (let t = 0; t < 600; t++) {
            if ((await json(server.url, `/withdraw?identifier=${last}`, undefined, auth)).status !== 'REQUESTED') break;
            await new Promise((res) => setTimeout(res, 100));
          }
          await new Promise((res) => setTimeout(res, 1500));
        };
        await send(20); // warm-up: statements prepared, the loops' first passes done
        await admin.unsafe("ALTER SYSTEM SET log_statement = 'all'");
        await admin.unsafe('SELECT pg_reload_conf()');
        await new Promise((res) => setTimeout(res, 300));
        const from = pg.log().length;
        const io = () => { try { return Number(/^syscw:\s*(\d+)/m.exec(readFileSync(`/proc/${server.child.pid}/io`, 'utf8'))![1]); } catch { return 0; } };
        const writesBefore = io();
        const started = Date.now();
        await send(N);
        const writes = io() - writesBefore;
        const seconds = (Date.now() - started) / 1000;
        await admin.unsafe('ALTER SYSTEM RESET log_statement');
        await admin.unsafe('SELECT pg_reload_conf()');
        // a statement that starts with a line break is logged over several lines: its first non-empty one names it
        const all = pg.log().slice(from).split('\n');
        const lines = all.map((l, k) => (/LOG:\s+(statement|execute[^:]*):\s*$/.test(l) ? l + ' ' + (all.slice(k + 1).find((n) => n.trim()) ?? '').trim() : l))
          .filter((l) => /LOG:\s+(statement|execute)/.test(l) && !/log_statement|pg_reload_conf/.test(l));
        const byShape = new Map<string, number>();
        for (const l of lines) byShape.set(shape(l), (byShape.get(shape(l)) ?? 0) + 1);
        console.log(`\n${r.label} (${r.root}): ${(lines.length / N).toFixed(2)} statements per POST /withdraw/pix (${lines.length} over ${N}, settlement and the loops included); `
          + `the server's write syscalls (round trips and answers) ${(writes / N).toFixed(2)} per POST, over ${seconds.toFixed(1)} s`);
        for (const [s, n] of [...byShape].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${(n / N).toFixed(2).padStart(6)}  ${s}`);
      } finally {
        const exited = new Promise((res) => server.child.once('exit', res));
        server.child.kill('SIGTERM');
        await exited;
      }
    }
  } finally {
    await admin.end({ timeout: 2 });
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
