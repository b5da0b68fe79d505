/**
 * npm run bench: loads our server and the bare baselines side by side in one run, on 127.0.0.1, with
 * autocannon (50 connections, bounded time each), and prints req/s, p50, p99 and every ratio: writes
 * against the bare node:http + better-sqlite3 insert at synchronous=FULL and NORMAL, reads against the
 * bare primary-key read. The floor rows (bench/floor-server.ts) run the SQL of a withdrawal and of its
 * GET alone, on the product's schema, without our framework: how near the targets can come here.
 * Ratios, not absolutes, are what compare on a shared, noisy machine; the load average is printed
 * beside them.
 */
import autocannon from 'autocannon';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startProcess, withIdempotencyKey } from './process';

const ROOT = new URL('..', import.meta.url).pathname;
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;

interface Result { name: string; kind: 'write' | 'read'; rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUsPerReq: number | null }

/** CPU time (user + system) a process has used, in µs, from /proc: robust to a busy machine where req/s is not. */
function cpuMicros(pid: number | undefined): number | null {
  if (!pid || !existsSync(`/proc/${pid}/stat`)) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / 100); // clock ticks are 1/100 s on Linux
}

/** The process whose CPU the next loads are charged to. */
let measuredPid: number | undefined;

/** What else a load measures over exactly its measured window (after the warm-up): bench/pg.ts's CPU split. */
interface Probe { before(): Promise<void>; after(requests: number): Promise<void> }

async function load(name: string, opts: autocannon.Options, probe?: Probe): Promise<Result> {
  const kind = (opts.method ?? 'GET') === 'GET' ? 'read' : 'write';
  const pid = measuredPid;
  // a short warm-up so JIT and caches do not count against the first target
  await autocannon({ ...opts, duration: 1, connections: 10 });
  await probe?.before();
  const cpuBefore = cpuMicros(pid);
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  const cpuAfter = cpuMicros(pid);
  await probe?.after(r.requests.total);
  const cpuUsPerReq = cpuBefore !== null && cpuAfter !== null && r.requests.total > 0 ? (cpuAfter - cpuBefore) / r.requests.total : null;
  return { name, kind, cpuUsPerReq, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function json(url: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(url + path, { method: init.method ?? (init.body ? 'POST' : 'GET'), headers: { 'content-type': 'application/json', ...(init.headers ?? {}) }, body: init.body ? JSON.stringify(init.body) : undefined });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Waits until the withdrawal of this batch identifier has left REQUESTED (settlement is oldest due first). */
async function settled(url: string, identifier: string, headers: Record<string, string>) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const w = await json(url, `/withdraw?identifier=${identifier}`, { headers });
    if (w.status !== 'REQUESTED') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the withdrawals of the load did not settle within 60 s');
}

async function main() {
  const apiOnly = process.env.BENCH_API_ONLY === '1';
  if (!apiOnly && !existsSync(join(ROOT, '.next/BUILD_ID'))) {
    console.log('building the pages once (next build)…');
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/next/dist/bin/next'), 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) process.exit(1);
  }
  const dir = mkdtempSync(join(tmpdir(), 'pix-bench-'));
  const children: ChildProcess[] = [];
  const outputs: (() => string)[] = [];
  try {
    const bareFull = await startProcess(['bench/bare-server.ts', 'FULL', join(dir, 'bare-full.db')], {});
    const bareNormal = await startProcess(['bench/bare-server.ts', 'NORMAL', join(dir, 'bare-normal.db')], {});
    // the floor: the SQL of a withdrawal and of its GET alone, on the product's schema and pragmas, with
    // none of our framework (bench/floor-server.ts); how close the targets can come on this machine
    const floor = await startProcess(['bench/floor-server.ts', join(dir, 'floor.db')], {});
    // BENCH_COMPARE_ROOT=/path/to/another/checkout also loads that tree's server, side by side in this
    // run, so a change is measured against what it replaces under the same load
    const trees: { label: string; root: string; env?: Record<string, string> }[] = [{ label: '', root: ROOT }];
    if (process.env.BENCH_COMPARE_ROOT) trees.push({ label: ' [compare]', root: process.env.BENCH_COMPARE_ROOT });
    // BENCH_COMPARE_ENV='NAME=value …' also loads this tree's server with those variables set (e.g.
    // SQLITE_WRITER=thread), side by side in this run
    if (process.env.BENCH_COMPARE_ENV) {
      const env = Object.fromEntries(process.env.BENCH_COMPARE_ENV.trim().split(/\s+/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      trees.push({ label: ` [${process.env.BENCH_COMPARE_ENV.trim()}]`, root: ROOT, env });
    }
    children.push(bareFull.child, bareNormal.child, floor.child);

    const results: Result[] = [];
    const insertBody = JSON.stringify({ amount: 1000, key: randomUUID(), note: 'bench' });
    measuredPid = bareFull.child.pid;
    results.push(await load('bare insert, synchronous=FULL', { url: bareFull.url, method: 'POST', body: insertBody, headers: { 'content-type': 'application/json' } }));
    measuredPid = bareNormal.child.pid;
    results.push(await load('bare insert, synchronous=NORMAL', { url: bareNormal.url, method: 'POST', body: insertBody, headers: { 'content-type': 'application/json' } }));
    measuredPid = bareFull.child.pid;
    results.push(await load('bare primary-key read', { url: bareFull.url }));
    const withdrawal = { amount: 1000, key: randomUUID(), key_type: 'EVP', description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
    {
      measuredPid = floor.child.pid;
      const auth = { authorization: `Bearer ${/access_token\s+(\S+)/.exec(floor.out())![1]}`, 'content-type': 'application/json' };
      results.push(await load("floor: the withdrawal's SQL only", { url: floor.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] }));
      const created = await json(floor.url, '/withdraw/pix', { body: withdrawal, headers: auth });
      results.push(await load("floor: GET /withdraw's SQL only", { url: `${floor.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth }));
    }

    for (const [i, tree] of trees.entries()) {
      const ours = await startProcess(['server/main.ts'], {
        DASHBOARD: apiOnly ? 'false' : 'true', PORT: '0', DATABASE_PATH: join(dir, `payments-${i}.db`), RATE_LIMIT_RPS: '0', NODE_ENV: 'production',
        SANDBOX_SETTLEMENT_DELAY_MS: '2000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...tree.env,
      }, tree.root);
      children.push(ours.child);
      outputs.push(ours.out);
      measuredPid = ours.child.pid;
      const field = (n: string) => new RegExp(`${n}\\s+(\\S+)`).exec(ours.out())![1];
      const creds = { code: field('code'), token: field('token') };
      const { access_token } = await json(ours.url, '/auth/token', { body: creds });
      const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
      await json(ours.url, '/sandbox/topup', { body: { amount: 90_000_000_000 }, headers: auth });
      const L = tree.label;
      results.push(await load(`POST /auth/token${L}`, { url: ours.url + '/auth/token', method: 'POST', body: JSON.stringify(creds), headers: { 'content-type': 'application/json' } }));
      results.push(await load(`GET /balance${L}`, { url: ours.url + '/balance', headers: auth }));

      const routes = await json(ours.url, '/openapi.json');
      if (routes.paths['/withdraw/pix']) {
        // full work, as the throughput targets count it: every request with its own idempotency key
        // (looked up and stored)
        results.push(await load(`POST /withdraw/pix${L}`, { url: ours.url + '/withdraw/pix', method: 'POST', body: JSON.stringify(withdrawal), headers: auth, requests: [{ setupRequest: withIdempotencyKey }] }));
        const created = await json(ours.url, '/withdraw/pix', { body: withdrawal, headers: auth });
        // The sandbox settles every withdrawal of the load above a moment later: let that finish first, or
        // the read would be measured against thousands of settlement jobs instead of its own work.
        const settling = Date.now();
        await settled(ours.url, created.data[0].identifier, auth);
        console.log(`settlement of the withdrawals took ${((Date.now() - settling) / 1000).toFixed(1)} s after the load${L}`);
        results.push(await load(`GET /withdraw${L}`, { url: `${ours.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth }));
        if (!apiOnly) {
          // Next.js's AsyncLocalStorage turns on promise hooks for the whole process once a page has
          // rendered (the API path has none of its own): the same GET once the dashboard has been used
          const page = await fetch(ours.url + '/sign-in');
          if (page.status !== 200) throw new Error(`/sign-in answered ${page.status}`);
          await page.text();
          results.push(await load(`GET /withdraw, after a page${L}`, { url: `${ours.url}/withdraw?identifier=${created.data[0].identifier}`, headers: auth }));
        }
      }
      if (routes.paths['/pix/keys']) {
        results.push(await load(`GET /pix/keys${L}`, { url: `${ours.url}/pix/keys?key=fulano%40example.com&key_type=EMAIL`, headers: auth }));
      }
      if (routes.paths['/transaction']) {
        const charge = {
          amount: 2500, method: 'PIX',
          customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725' },
          items: [{ title: 'Café', unitPrice: 1250, quantity: 2, tangible: true }],
        };
        results.push(await load(`POST /transaction (PIX)${L}`, { url: ours.url + '/transaction', method: 'POST', body: JSON.stringify(charge), headers: auth }));
        const created = await json(ours.url, '/transaction', { body: charge, headers: auth });
        results.push(await load(`GET /transaction${L}`, { url: `${ours.url}/transaction?id=${created.id}`, headers: auth }));
      }
      ours.child.kill('SIGTERM');
    }

    // PostgreSQL, 1 and 2 instances (`-- --engine pg`): bench/pg.ts, in this table
    const pg = await import('./pg');
    let pgSummary: string[] = [];
    if (pg.wantsPostgres(process.argv)) {
      // the instance's CPU per POST on PostgreSQL is held against SQLite's of this same run
      const sqlitePost = results.find((r) => r.name === 'POST /withdraw/pix');
      const report = await pg.benchPostgres({ load, startProcess, json, settled, measure: (pid) => { measuredPid = pid; } }, { postCpuUsPerReq: sqlitePost?.cpuUsPerReq ?? null });
      results.push(...report.results);
      pgSummary = report.summary;
    }

    const full = results[0].rps;
    const normal = results[1].rps;
    const read = results[2].rps;
    console.log(`\n${DURATION}s per target, ${CONNECTIONS} connections, 127.0.0.1, ${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} cores`);
    console.log('target                                      req/s     p50 ms   p99 ms   vs bare FULL   vs bare NORMAL   vs bare read   non-2xx   CPU µs/req');
    const ratio = (x: number | null) => (x === null ? '' : `${x.toFixed(2)}x`);
    for (const r of results) {
      const w = r.kind === 'write';
      console.log(`${r.name.padEnd(42)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(9)} ${String(r.p99).padStart(8)} ${ratio(w ? r.rps / full : null).padStart(14)} ${ratio(w ? r.rps / normal : null).padStart(16)} ${ratio(w ? null : r.rps / read).padStart(14)} ${String(r.non2xx + r.errors).padStart(9)} ${(r.cpuUsPerReq === null ? '' : r.cpuUsPerReq.toFixed(0)).padStart(12)}`);
    }
    // the throughput targets, all at 50 connections with full work: POST /withdraw/pix at least the bare
    // durable (FULL) insert, GET /withdraw at least a quarter of the bare read, p99 of both at most 40 ms
    const find = (n: string) => results.find((r) => r.name === n);
    for (const tree of trees) {
      const post = find(`POST /withdraw/pix${tree.label}`);
      const get = find(`GET /withdraw${tree.label}`);
      if (post && get) {
        const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
        const p99 = Math.max(post.p99, get.p99);
        console.log(`targets${tree.label}: POST /withdraw/pix ${(post.rps / full).toFixed(2)}x bare FULL insert (≥ 1.00: ${met(post.rps >= full)}), GET /withdraw ${(get.rps / read).toFixed(2)}x bare read (≥ 0.25: ${met(get.rps >= 0.25 * read)}), p99 ${p99} ms (≤ 40: ${met(p99 <= 40)}; the bare FULL insert's own p99 in this run: ${results[0].p99} ms)`);
        // issue 25 item 8: CPU per request against the floor of the same run, which a shared machine's
        // other load does not distort the way it does req/s
        const floorPost = find("floor: the withdrawal's SQL only");
        const floorGet = find("floor: GET /withdraw's SQL only");
        const vsFloor = (label: string, ours: Result, floor: Result | undefined, target: number) => {
          if (ours.cpuUsPerReq === null || !floor?.cpuUsPerReq) return;
          const x = ours.cpuUsPerReq / floor.cpuUsPerReq;
          console.log(`${label}${tree.label} CPU/req vs floor: ${x.toFixed(2)}× (target ≤ ${target}×: ${met(x <= target)}; ${ours.cpuUsPerReq.toFixed(0)} against ${floor.cpuUsPerReq.toFixed(0)} µs)`);
        };
        vsFloor('POST /withdraw/pix', post, floorPost, 2);
        vsFloor('GET /withdraw', get, floorGet, 2.5);
      }
    }

    for (const line of pgSummary) console.log(line);

    const deliveryBench = join(ROOT, 'bench/delivery.ts');
    if (existsSync(deliveryBench)) {
      const { benchDelivery } = await import(deliveryBench);
      const d = await benchDelivery({ events: 3000 });
      console.log(`\nwebhook delivery: ${d.eventsPerSecond.toFixed(0)} events/s to a loopback receiver; event→delivery latency p50 ${d.p50Ms.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(1)} ms`);
    }
  } catch (err) {
    // what the servers said is the first thing to read when a target fails
    for (const o of outputs) console.error(o().split('\n').filter((l) => /error|Error|at /.test(l)).slice(0, 40).join('\n'));
    throw err;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
