/**
 * `npm run chaos [-- --rounds N] [--round-seconds S] [--faults kill,stall,…]`: a fault campaign on 127.0.0.1. Three instances
 * behind HAProxy on a durable throwaway PostgreSQL of its own (scripts/lib/chaos-cluster.ts; never
 * DATABASE_URL's), each instance reaching it through a TCP proxy the campaign controls. Each round a
 * fresh merchant's workers withdraw, charge, pay and refund through the balancer while one fault strikes,
 * in turn:
 *   kill          SIGKILL to an instance while one of its write transactions is open, then a restart
 *   pg-fast       pg_ctl stop -m fast and a start (pg_ctl restart -m fast)
 *   pg-immediate  pg_ctl stop -m immediate and a start: a crash, WAL replay
 *   terminate     pg_terminate_backend on every backend of the instances, while a write is open
 *   stall         the database connections stalled for 5 s (no byte either way; nothing closed)
 *   cut           every database connection reset at once
 * Then every write without a definite answer is sent again with its Idempotency-Key, and the round's checks
 * run (scripts/lib/chaos-checks.ts). One line per round; exit 1 when any check failed. Bounded: each round
 * has a time cap (default 120 s), the campaign at most 200 rounds. A failed run keeps the instances' log and
 * the rail's journal (CHAOS_KEEP=1 keeps a passing run's too); CHAOS_PHASES=1 prints when each phase of a
 * round ended.
 */
import { removeChaosDir, startChaosCluster, type ChaosCluster, type ChaosInstance } from './lib/chaos-cluster';
import { roundChecks, settled, type Check } from './lib/chaos-checks';
import { isFailure, resolve, worker, type Op } from './lib/chaos-load';
import { systemClock } from '../server/clock';

const FAULTS = ['kill', 'pg-fast', 'pg-immediate', 'terminate', 'stall', 'cut'] as const;
type Fault = typeof FAULTS[number];
const INSTANCES = 3;
const WORKERS = 6;
const STALL_MS = 5_000;
/** Acknowledged writes a round waits for before the fault, and again after the recovery. */
const ACKS_AROUND_FAULT = 8;
const REQUEST_TIMEOUT_MS = 20_000;
const INITIAL_BALANCE = 100_000_000;

function option(argv: string[], name: string, def: number, min: number, max: number): number {
  const i = argv.indexOf(`--${name}`);
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

const argv = process.argv.slice(2);
const rounds = option(argv, 'rounds', 20, 1, 200);
/** --faults a,b: only these, in this order (to go after one fault); by default all of FAULTS in turn. */
const chosen = (() => {
  const i = argv.indexOf('--faults');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--faults='))?.slice('--faults='.length);
  if (raw === undefined) return [...FAULTS];
  const list = raw.split(',').map((f) => f.trim());
  const unknown = list.filter((f) => !(FAULTS as readonly string[]).includes(f));
  if (list.length === 0 || unknown.length) {
    console.error(`--faults takes a comma-separated list of ${FAULTS.join(', ')}; got "${raw}"`);
    process.exit(2);
  }
  return list as Fault[];
})();
const roundMs = option(argv, 'round-seconds', 120, 30, 600) * 1000;

async function until(what: string, probe: () => boolean | Promise<boolean>, deadline: number, everyMs = 50) {
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The instance whose backend has a write transaction open right now (it has an xid), if any. */
async function instanceWriting(c: ChaosCluster): Promise<ChaosInstance | null> {
  const owner = new Map<number, ChaosInstance>();
  for (const i of c.instances) for (const p of i.proxy.upstreamPorts()) owner.set(p, i);
  if (owner.size === 0) return null;
  const rows = await c.sql<{ client_port: number }[]>`
    SELECT client_port FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND client_port = ANY(${[...owner.keys()]}::int[])`;
  return rows.length ? owner.get(rows[0].client_port) ?? null : null;
}

/** Waits (up to 5 s) for a write transaction of an instance to be open: the moment to strike "mid-write". */
async function writeInFlight(c: ChaosCluster): Promise<ChaosInstance | null> {
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const i = await instanceWriting(c).catch(() => null);
    if (i) return i;
    await new Promise((r) => setTimeout(r, 2));
  }
  return null;
}

async function inject(c: ChaosCluster, fault: Fault, round: number): Promise<string> {
  switch (fault) {
    case 'kill': {
      const writing = await writeInFlight(c);
      const victim = writing ?? c.instances[round % c.instances.length];
      await c.kill(victim);
      await c.restart(victim);
      return `SIGKILL i${victim.n}${writing ? ' mid-write' : ''}, restart`;
    }
    case 'pg-fast':
    case 'pg-immediate': {
      const mode = fault === 'pg-fast' ? 'fast' : 'immediate';
      await c.pg.restart(mode);
      return `pg_ctl restart -m ${mode}`;
    }
    case 'terminate': {
      const writing = await writeInFlight(c);
      const ports = c.instances.flatMap((i) => i.proxy.upstreamPorts());
      const killed = await c.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY(${ports}::int[])) t`;
      return `pg_terminate_backend ×${killed[0].n}${writing ? ' mid-write' : ''}`;
    }
    case 'stall': {
      for (const i of c.instances) i.proxy.pause();
      // the fault is a stall of a fixed length: this wait is the fault itself, not a guess at readiness
      await new Promise((r) => setTimeout(r, STALL_MS));
      for (const i of c.instances) i.proxy.resume();
      return `db stalled ${STALL_MS / 1000} s`;
    }
    case 'cut': {
      const writing = await writeInFlight(c);
      const open = c.instances.reduce((a, i) => a + i.proxy.open(), 0);
      for (const i of c.instances) i.proxy.cut();
      return `db connections cut ×${open}${writing ? ' mid-write' : ''}`;
    }
  }
}

interface Row { seconds: number; phases: string[]; round: number; fault: string; acked: number; refused: number; errored: number; resent: number; checks: Check[]; error?: string }

function print(row: Row) {
  const failed = row.checks.filter((c) => !c.ok);
  const verdict = row.error ? `FAILED: ${row.error}` : failed.length === 0 ? `ok (${row.checks.map((c) => c.name).join(', ')})` : `FAILED ${failed.map((c) => `${c.name}: ${c.detail}`).join(' | ')}`;
  console.log(`| ${String(row.round).padStart(5)} | ${row.fault.padEnd(34)} | ${String(row.seconds).padStart(3)} | ${String(row.acked).padStart(5)} | ${`${row.refused}/${row.errored}`.padStart(15)} | ${String(row.resent).padStart(7)} | ${verdict}`);
}

async function main() {
  const started = Date.now();
  console.log(`chaos: ${rounds} round(s), at most ${roundMs / 1000} s each, ${INSTANCES} instances behind HAProxy, faults in turn: ${chosen.join(', ')}`);
  const cluster = await startChaosCluster({ instances: INSTANCES, log: (l) => console.log(`chaos: ${l}`) });
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    if (code === 0 && !process.env.CHAOS_KEEP) removeChaosDir(cluster);
    else console.log(`chaos: the instances' log and the rail's journal are kept in ${cluster.logFile.replace(/\/cluster\.log$/, '')}`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(130));
  process.on('SIGTERM', () => void stopAll(143));

  // the account helpers pick their engine when first imported (db/dialect.ts): PostgreSQL, the campaign's own
  process.env.DATABASE_URL = cluster.pg.url;
  const { openDatabase } = await import('../db');
  const { createAccount } = await import('../server/domain/accounts');
  const { loadMasterKey } = await import('../server/domain/master-key');
  const db = openDatabase(cluster.databasePath, { url: cluster.pg.url });
  const masterKey = loadMasterKey(cluster.databasePath);

  console.log('');
  console.log(`| round | fault                              |   s | acked | refused/errored | re-sent | checks`);
  console.log(`|-------|------------------------------------|-----|-------|-----------------|---------|-------`);
  const results: Row[] = [];
  for (let r = 1; r <= rounds; r++) {
    const fault = chosen[(r - 1) % chosen.length];
    const deadline = Date.now() + roundMs;
    const ops: Op[] = [];
    const t0 = Date.now();
    const phase = (name: string) => row.phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)}`);
    const row: Row = { seconds: 0, phases: [], round: r, fault, acked: 0, refused: 0, errored: 0, resent: 0, checks: [] };
    let running = true;
    let workers: Promise<void>[] = [];
    try {
      const creds = await createAccount({ db, masterKey, clock: systemClock }, { name: `Chaos Merchant ${r}`, balance: INITIAL_BALANCE });
      const res = await fetch(`${cluster.balancer}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: creds.code, token: creds.token }) });
      if (res.status !== 200) throw new Error(`access token: ${res.status} ${await res.text()}`);
      const token = ((await res.json()) as { access_token: string }).access_token;
      const acked = () => ops.filter((o) => o.acked).length;
      workers = Array.from({ length: WORKERS }, (_, w) => worker({ base: cluster.balancer, token, ops, running: () => running, timeoutMs: REQUEST_TIMEOUT_MS, seed: r * 10_000 + w * 1_000 }));
      await until('writes acknowledged before the fault', () => acked() >= ACKS_AROUND_FAULT, deadline);
      phase('load');
      row.fault = await inject(cluster, fault, r);
      phase('fault');
      await cluster.ready(deadline);
      phase('ready');
      const mark = acked();
      await until('writes acknowledged after the recovery', () => acked() >= mark + ACKS_AROUND_FAULT, deadline);
      running = false;
      await Promise.all(workers);
      // before the retries: what the fault did to the clients
      for (const o of ops) for (const a of o.attempts) {
        if (isFailure(a) || a.status >= 500) row.errored += 1;
        else if (a.status >= 300) row.refused += 1;
      }
      row.acked = acked();
      phase('after');
      const unresolved = await resolve({ base: cluster.balancer, token, ops, deadline, timeoutMs: REQUEST_TIMEOUT_MS });
      const accountId = creds.account_id;
      if (!await settled(cluster.sql, accountId, deadline)) throw new Error('batches or refunds still PENDING at the round\'s time cap');
      phase('settled');
      const { checks, resent } = await roundChecks({
        sql: cluster.sql, url: cluster.pg.url, base: cluster.balancer, token, accountId, initial: INITIAL_BALANCE, ops, unresolved, journalDir: cluster.journalDir,
      });
      row.checks = checks;
      row.resent = resent;
      phase('checked');
    } catch (err) {
      row.error = (err as Error).message;
      running = false;
      await Promise.all(workers);
    }
    row.seconds = Math.round((Date.now() - t0) / 1000);
    results.push(row);
    print(row);
    if (process.env.CHAOS_PHASES) console.log(`        ${row.phases.join(', ')}`);
    // a round that could not finish leaves the cluster in a state the next would only inherit
    if (row.error) break;
  }
  await db.close();
  const failed = results.filter((x) => x.error || x.checks.some((c) => !c.ok));
  const total = results.reduce((a, x) => a + x.acked, 0);
  console.log('');
  console.log(`chaos: ${results.length}/${rounds} round(s) in ${Math.round((Date.now() - started) / 1000)} s, ${total} writes acknowledged; ${failed.length === 0 && results.length === rounds ? 'every check passed' : `${failed.length} round(s) failed`}`);
  await stopAll(failed.length === 0 && results.length === rounds ? 0 : 1);
}

await main().catch((err) => {
  console.error(`chaos: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
