/**
 * tsx bench/pg-jobs.ts: the statements one POST /withdraw/pix write job and one settled batch send to
 * PostgreSQL, socket write by socket write (each write is one round trip the job waits for, or a pipelined
 * flush): the wire protocol's Parse/Bind/Query messages decoded from what this process writes to the server's
 * port. Each job is run once to warm up (statements prepared, book ids cached), then counted.
 * Then PGST_LOOP rounds (default 20) of 32 withdrawals created at once (the writer groups them) and their 32
 * batches settled at once: this process's CPU µs, statements and socket writes per withdrawal (create and
 * settlement), split into this process's main thread and its other threads (GC, mostly), PostgreSQL's CPU (its
 * processes, from /proc) and, from track_functions, the time of each PL/pgSQL function and trigger per
 * withdrawal. PGST_W (32) withdrawals per round. PGST_ROOT=/other/checkout runs that tree's code (its
 * migrations, domain and stores) instead. The whole server's statements per request, loops and dispatcher
 * included, are bench/pg-statements.ts's.
 */
import net from 'node:net';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres } from '../scripts/lib/throwaway-postgres';

const ROOT = process.env.PGST_ROOT ?? new URL('..', import.meta.url).pathname;
const LOOP = Number(process.env.PGST_LOOP ?? 20);
const names = new Map<string, string>();
let recording: string[][] | null = null;
/** In the loop: statements (Bind or Query messages) per socket write, without decoding them. */
let counting: number[] | null = null;

function countStatements(buf: Buffer): number {
  let n = 0;
  for (let i = 0; i + 5 <= buf.length; i += 1 + buf.readInt32BE(i + 1)) if (buf[i] === 0x42 || buf[i] === 0x51) n++;
  return n;
}

function decode(buf: Buffer): string[] {
  const out: string[] = [];
  let i = 0;
  const cstr = (at: number) => { const end = buf.indexOf(0, at); return [buf.toString('utf8', at, end), end + 1] as const; };
  while (i + 5 <= buf.length) {
    const type = String.fromCharCode(buf[i]);
    const len = buf.readInt32BE(i + 1);
    const body = i + 5;
    if (type === 'P') {
      const [name, q] = cstr(body);
      const [text] = cstr(q);
      if (name) names.set(name, text);
      out.push(`parse ${text}`);
    } else if (type === 'B') {
      const [, s] = cstr(body);
      const [stmt] = cstr(s);
      out.push(`bind  ${stmt ? names.get(stmt) ?? stmt : '(unnamed)'}`);
    } else if (type === 'Q') {
      out.push(`query ${cstr(body)[0]}`);
    }
    i += 1 + len;
  }
  return out;
}

/** utime + stime, in µs, of a /proc stat line. */
function cpuOfStat(stat: string): { ppid: number; us: number } {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), us: (Number(f[11]) + Number(f[12])) * 1e6 / 100 };
}

/** CPU µs so far of this process's main thread, of its other threads, and of the throwaway cluster's processes. */
function cpuSplit(postmaster: number): Record<'main' | 'other' | 'postgres', number> {
  const out = { main: 0, other: 0, postgres: 0 };
  for (const t of readdirSync('/proc/self/task')) {
    try { out[t === String(process.pid) ? 'main' : 'other'] += cpuOfStat(readFileSync(`/proc/self/task/${t}/stat`, 'utf8')).us; } catch { /* ended */ }
  }
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const st = cpuOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (Number(pid) === postmaster || st.ppid === postmaster) out.postgres += st.us;
    } catch { /* ended */ }
  }
  return out;
}

async function main() {
  const pg = await startThrowawayPostgres();
  const url = await pg.createDatabase('stmts');
  const { migratePostgres } = await import(`${ROOT}/db/pg/migrate`) as typeof import('../db/pg/migrate');
  await migratePostgres(url);
  const { default: postgres } = await import('postgres');
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`alter database stmts set track_functions = 'all'`);
  const postmaster = Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  // the engine is chosen from DATABASE_URL when db/ is first loaded
  process.env.DATABASE_URL = url;
  const { openDatabase } = await import(`${ROOT}/db`) as typeof import('../db');
  const { loadConfig } = await import(`${ROOT}/server/config`) as typeof import('../server/config');
  const { createServices } = await import(`${ROOT}/server/services`) as typeof import('../server/services');
  const { ManualClock } = await import(`${ROOT}/server/clock`) as typeof import('../server/clock');
  const { createAccount } = await import(`${ROOT}/server/domain/accounts`) as typeof import('../server/domain/accounts');
  const { sandboxTopUp } = await import(`${ROOT}/server/domain/ledger`) as typeof import('../server/domain/ledger');
  const { createWithdrawal } = await import(`${ROOT}/server/domain/withdrawals/create`) as typeof import('../server/domain/withdrawals/create');
  const { applyPaymentOutcome } = await import(`${ROOT}/server/domain/withdrawals/settle`) as typeof import('../server/domain/withdrawals/settle');
  const port = Number(new URL(url).port);
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    if (recording && this.remotePort === port && Buffer.isBuffer(chunk)) {
      if (counting) counting.push(Buffer.isBuffer(chunk) ? countStatements(chunk) : 0);
      else {
        const msgs = decode(chunk);
        if (msgs.length) recording.push(msgs);
      }
    }
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  const dir = mkdtempSync(join(tmpdir(), 'pix-stmts-'));
  const config = loadConfig({ databasePath: join(dir, 'x.db'), rateLimitRps: 0, sandboxSettlementDelayMs: 0 });
  const s = createServices({ config, clock: new ManualClock(new Date()), db: openDatabase(config.databasePath, { url }) });
  // `now` for a tree (PGST_ROOT) from before createAccount took the clock
  const deps = { db: s.db, masterKey: s.masterKey, clock: s.clock, now: () => s.clock.now() };
  const account = await createAccount(deps, { name: 'M' });
  const accountId = account.account_id;
  await s.db.write((tx) => sandboxTopUp(tx, accountId, 10_000_000, s.clock.now()));
  const body = { amount: 1000, key: 'a2d4f0e4-1c1d-4a4e-9f0e-3f8f3a2b1c0d', key_type: 'EVP' as const, description: 'bench', details: { name: 'Maria Silva', document: '52998224725' } };
  let n = 0;
  const create = () => createWithdrawal(s, accountId, body, { idempotencyKey: `k${n++}` });
  const settle = (w: Awaited<ReturnType<typeof create>>) => applyPaymentOutcome(s, {
    batchId: w.batches[0].identifier, withdrawalId: w.withdrawal.id, accountId, seq: 0, amount: 1000, key: body.key, keyType: 'EVP', receiverName: 'Maria Silva', receiverDocument: '52998224725',
  }, { status: 'PAID', endToEndId: `E${n}`, receiverName: 'Maria', receiverBank: 'Bank', receiverBankIspb: '00000000' });
  const show = async (label: string, fn: () => Promise<unknown>) => {
    recording = [];
    await fn();
    const writes = recording;
    recording = null;
    const stmts = writes.flat().filter((m) => !m.startsWith('parse'));
    console.log(`\n== ${label}: ${stmts.length} statements in ${writes.length} socket writes`);
    writes.forEach((w, i) => { console.log(`write ${i + 1}:`); for (const m of w) console.log(`   ${m.replace(/\s+/g, ' ').slice(0, 220)}`); });
  };
  const w1 = await create();
  await settle(w1);
  let w2: Awaited<ReturnType<typeof create>> | undefined;
  await show('POST /withdraw/pix job (idempotency-key)', async () => { w2 = await create(); });
  await show('settled batch (PAID)', () => settle(w2!));
  // the loop: many withdrawals per group, as under load
  let statements = 0;
  let socketWrites = 0;
  let cpu = 0;
  const W = Number(process.env.PGST_W ?? 32);
  const split = { main: 0, other: 0, postgres: 0 };
  for (let round = 0; round < LOOP; round++) {
    recording = [];
    counting = [];
    const t = process.cpuUsage();
    const s0 = cpuSplit(postmaster);
    const ws = await Promise.all(Array.from({ length: W }, () => create()));
    await Promise.all(ws.map((w) => settle(w)));
    const d = process.cpuUsage(t);
    if (round > 0) {
      cpu += d.user + d.system;
      const s1 = cpuSplit(postmaster);
      for (const k of ['main', 'other', 'postgres'] as const) split[k] += s1[k] - s0[k];
      socketWrites += counting.length;
      statements += counting.reduce((a, b) => a + b, 0);
    }
    recording = counting = null;
  }
  const count = (LOOP - 1) * W;
  if (count > 0) console.log(`\n== ${count} withdrawals in groups of ${W} (created, then settled): ${(cpu / count).toFixed(0)} µs CPU, ${(statements / count).toFixed(1)} statements, ${(socketWrites / count).toFixed(1)} socket writes per withdrawal (${ROOT})`);
  if (count > 0) {
    const per = (us: number) => (us / count).toFixed(0);
    console.log(`   CPU µs per withdrawal (/proc, 10 ms ticks): this process's main thread ${per(split.main)}, its other threads ${per(split.other)}, PostgreSQL ${per(split.postgres)}`);
    // a backend sends its function counters at the end of a transaction at most once a second: wait for the last ones
    await new Promise((r) => setTimeout(r, 1500));
    await s.db.write(async () => undefined);
    const fns = await admin.unsafe(`select funcname, calls, total_time, self_time from pg_stat_user_functions order by total_time desc`);
    console.log(`   PL/pgSQL functions and triggers (track_functions; wall time inside PostgreSQL, all rounds), µs per withdrawal:`);
    const all = LOOP * W + 2;
    for (const f of fns) console.log(`     ${String(f.funcname).padEnd(36)} ${(Number(f.calls) / all).toFixed(1).padStart(5)} calls  total ${(Number(f.total_time) * 1000 / all).toFixed(0).padStart(5)}  self ${(Number(f.self_time) * 1000 / all).toFixed(0).padStart(5)}`);
  }
  await admin.end();
  await s.db.close();
  await pg.stop();
}
void main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
