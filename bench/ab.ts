/**
 * npm run bench:ab — two variants of the server measured in alternating rounds on one machine, for a
 * change too small to see through a shared machine's noise in one pass of `npm run bench`: the bare
 * FULL insert, variant A and variant B take turns (rotating order), each round at 50 connections, and
 * the medians of the per-round ratios are printed. A variant is this tree with some environment
 * (AB_A, AB_B: 'NAME=value …') or another checkout (AB_B_ROOT). AB_ROUNDS (6), AB_SECONDS (4),
 * AB_ONLY=writes|reads. Before each round it waits (at most AB_QUIET_MAX_MS, 5000) until the machine's CPU
 * is at most AB_QUIET_BUSY (0.5) busy over 250 ms, so a round less often lands on another job's burst.
 * The floor (bench/floor-server.ts) takes its turn in the same rounds, and each variant's CPU per request
 * is printed against it (issue 25's targets: a withdrawal ≤ 2×, GET /withdraw ≤ 2.5× the floor's).
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess as start, withIdempotencyKey } from './process';

const ROOT = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const envOf = (s = '') => Object.fromEntries(s.trim().split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

const QUIET_BUSY = Number(process.env.AB_QUIET_BUSY ?? 0.5);
const QUIET_MAX_MS = Number(process.env.AB_QUIET_MAX_MS ?? 5000);

/** The machine's busy and total jiffies so far (/proc/stat's first line). */
function machineCpu(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - (f[4] ?? 0), total };
}

/** Waits, bounded, until the CPU is quiet-ish; returns how long it waited (ms). */
async function quiet(): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < QUIET_MAX_MS) {
    const a = machineCpu();
    await new Promise((r) => setTimeout(r, 250));
    const b = machineCpu();
    if (b.total === a.total || (b.busy - a.busy) / (b.total - a.total) <= QUIET_BUSY) break;
  }
  return Date.now() - started;
}
const waits: number[] = [];

const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10_000; };

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (res.status >= 400) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Target { name: string; pid: number; opts: autocannon.Options }
interface Run { rps: number; p99: number; cpuUs: number }

async function round(t: Target): Promise<Run> {
  waits.push(await quiet());
  const before = cpu(t.pid);
  const r = await autocannon({ connections: 50, duration: SECONDS, ...t.opts });
  if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99, cpuUs: (cpu(t.pid) - before) / r.requests.total };
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pix-ab-'));
  const children: ChildProcess[] = [];
  try {
    const bare = await start(['bench/bare-server.ts', 'FULL', join(dir, 'bare.db')], {});
    const floor = await start(['bench/floor-server.ts', join(dir, 'floor.db')], {});
    children.push(bare.child, floor.child);
    const variants = [{ label: `A ${process.env.AB_A ?? ''}`.trim(), env: envOf(process.env.AB_A), root: ROOT }, { label: `B ${process.env.AB_B ?? ''}${process.env.AB_B_ROOT ? ` ${process.env.AB_B_ROOT}` : ''}`.trim(), env: envOf(process.env.AB_B), root: process.env.AB_B_ROOT ?? ROOT }];
    const posts: Target[] = [{ name: 'bare FULL insert', pid: bare.child.pid!, opts: { url: bare.url, method: 'POST', body: '{"amount":1000}', headers: { 'content-type': 'application/json' } } }];
    const gets: Target[] = [{ name: 'bare read', pid: bare.child.pid!, opts: { url: bare.url } }];
    {
      const withdrawal = { amount: 1000, key: '123e4567-e89b-12d3-a456-426614174000', key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
      const auth = { authorization: `Bearer ${/access_token\s+(\S+)/.exec(floor.out())![1]}`, 'content-type': 'application/json' };
      const created = await post(floor.url, '/withdraw/pix', withdrawal, auth);
      posts.push({ name: 'floor', pid: floor.child.pid!, opts: { url: floor.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] } });
      gets.push({ name: 'floor', pid: floor.child.pid!, opts: { url: `${floor.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth } });
    }
    for (const [i, v] of variants.entries()) {
      const s = await start(['server/main.ts'], {
        DASHBOARD: 'false', PORT: '0', DATABASE_PATH: join(dir, `p${i}.db`), RATE_LIMIT_RPS: '0', NODE_ENV: 'production',
        SANDBOX_SETTLEMENT_DELAY_MS: '2000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...v.env,
      }, v.root);
      children.push(s.child);
      const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(s.out())![1];
      const { access_token } = await post(s.url, '/auth/token', { code: field('code'), token: field('token') });
      const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
      await post(s.url, '/sandbox/topup', { amount: 90_000_000_000 }, auth);
      const withdrawal = { amount: 1000, key: '123e4567-e89b-12d3-a456-426614174000', key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
      const created = await post(s.url, '/withdraw/pix', withdrawal, auth);
      posts.push({ name: `POST /withdraw/pix ${v.label}`, pid: s.child.pid!, opts: { url: s.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] } });
      gets.push({ name: `GET /withdraw ${v.label}`, pid: s.child.pid!, opts: { url: `${s.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth } });
    }
    // AB_ONLY=writes|reads measures one half
    for (const [kind, targets] of ([['writes', posts], ['reads', gets]] as const).filter(([k]) => !process.env.AB_ONLY || process.env.AB_ONLY === k)) {
      for (const t of targets) await autocannon({ ...t.opts, connections: 10, duration: 1 });
      const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
      for (let r = 0; r < ROUNDS; r++) {
        // rotate the order so no variant always follows another's load (settlement passes trail a load)
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(r + k) % targets.length];
          runs.get(t.name)!.push(await round(t));
        }
      }
      console.log(`\n${kind}: ${ROUNDS} rounds × ${SECONDS}s, 50 connections, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; waited for a quiet CPU (≤ ${QUIET_BUSY * 100} % busy, at most ${QUIET_MAX_MS} ms) median ${median(waits).toFixed(0)} ms, ${waits.filter((w) => w >= QUIET_MAX_MS).length}/${waits.length} rounds timed out`);
      waits.length = 0;
      const base = runs.get(targets[0].name)!;
      for (const t of targets) {
        const rs = runs.get(t.name)!;
        const ratios = rs.map((x, i) => x.rps / base[i].rps);
        console.log(`${t.name.padEnd(48)} req/s ${median(rs.map((x) => x.rps)).toFixed(0).padStart(6)}  vs bare ${median(ratios).toFixed(2)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(' ')})  p99 ${median(rs.map((x) => x.p99)).toFixed(0)} ms  CPU ${median(rs.map((x) => x.cpuUs)).toFixed(0)} µs/req`);
      }
      const [, fl, a, b] = targets.map((t) => runs.get(t.name)!);
      for (const [label, v] of [['A', a], ['B', b]] as const) {
        const x = v.map((r, i) => r.cpuUs / fl[i].cpuUs);
        console.log(`${label} CPU/req vs floor (${kind}): ${median(x).toFixed(2)}× (rounds ${x.map((y) => y.toFixed(2)).join(' ')})`);
      }
      console.log(`B/A CPU/req (${kind}): ${median(a.map((x, i) => b[i].cpuUs / x.cpuUs)).toFixed(2)}x (rounds ${a.map((x, i) => (b[i].cpuUs / x.cpuUs).toFixed(2)).join(' ')})`);
      console.log(`B/A ${kind}: ${median(a.map((x, i) => b[i].rps / x.rps)).toFixed(2)}x (rounds ${a.map((x, i) => (b[i].rps / x.rps).toFixed(2)).join(' ')})`);
      if (kind === 'writes') await new Promise((r) => setTimeout(r, 8000)); // let the settlement of the writes finish
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
