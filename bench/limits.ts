/**
 * `npm run bench:limits [-- --ops 20000 --keys 100]`: what a rate-limit check costs (db/memory-rate-limits.ts).
 * MemoryRateLimits (SQLite: one process) against PgRateLimits (db/pg/rate-limits.ts: one INSERT … ON
 * CONFLICT … DO UPDATE statement per take, rows every instance shares), with 1 and 50 concurrent callers
 * over the service's pool (db/pg/open.ts, 10 connections): takes/s, p50 and p99. Against DATABASE_URL
 * when given (its limit_buckets rows of the bench's keys are deleted after), otherwise a throwaway,
 * migrated cluster with fsync on, as production runs. Two key spreads: `--keys` accounts (the usual
 * case, mostly accepted at RATE_LIMIT_RPS=100) and one hot account (every caller on one row, mostly
 * refused). The last lines set limit_buckets LOGGED for comparison, then back to UNLOGGED.
 */
import { sql, type SQL } from 'drizzle-orm';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { openPostgres } from '../db/pg/open';
import { migratePostgres } from '../db/pg/migrate';
import { PgRateLimits } from '../db/pg/rate-limits';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../scripts/lib/throwaway-postgres';
import { MemoryRateLimits } from '../db/memory-rate-limits';
import type { RateLimits } from '../contract/rate-limits';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '20000' },
    keys: { type: 'string', default: '100' },
    rps: { type: 'string', default: '100' },
  },
});
const OPS = Number(values.ops);
const KEYS = Number(values.keys);
const RPS = Number(values.rps);

interface Figures { takesPerS: number; p50: number; p99: number; accepted: number }

/** `ops` takes from `callers` concurrent callers on keys chosen by `key`. */
async function load(limits: RateLimits, callers: number, ops: number, key: (i: number) => string): Promise<Figures> {
  const latencies = new Float64Array(ops);
  let next = 0;
  let accepted = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: callers }, async () => {
    for (let i = next++; i < ops; i = next++) {
      const t = process.hrtime.bigint();
      if ((await limits.perAccount.take(key(i))) === null) accepted += 1;
      latencies[i] = Number(process.hrtime.bigint() - t) / 1e6;
    }
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort();
  return { takesPerS: ops / seconds, p50: latencies[Math.floor(ops * 0.5)], p99: latencies[Math.floor(ops * 0.99)], accepted: accepted / ops };
}

const fmt = (name: string, f: Figures) =>
  `${name.padEnd(44)} ${f.takesPerS.toFixed(0).padStart(9)} takes/s  p50 ${f.p50.toFixed(3).padStart(7)} ms  p99 ${f.p99.toFixed(3).padStart(7)} ms  accepted ${(f.accepted * 100).toFixed(0).padStart(3)} %`;

let throwaway: ThrowawayPostgres | null = null;
let url = process.env.DATABASE_URL?.trim();
if (!url) {
  throwaway = await startThrowawayPostgres({ durable: true, maxConnections: 60 });
  url = throwaway.url;
  await migratePostgres(url);
}
const pg = openPostgres(url);
// (the PostgreSQL handle behind the domain's DrizzleDb type, as db/pg/rate-limits.ts uses it)
const db = pg.read as unknown as { execute(q: SQL): Promise<Record<string, unknown>[]> };
const run = `bench-${process.pid}`;
const spread = (i: number) => `${run}-acc-${i % KEYS}`;
const hot = () => `${run}-hot`;
try {
  const [{ server_version: version }] = await db.execute(sql`SHOW server_version`);
  console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')} on ${cpus().length} cores; PostgreSQL ${String(version)}${throwaway ? ' (throwaway, fsync on)' : ''}; RATE_LIMIT_RPS ${RPS}; pool of 10 connections`);
  const memory = new MemoryRateLimits(RPS);
  const shared = new PgRateLimits(pg.read, RPS);
  // connections opened and statements prepared before timing
  await load(shared, 50, 500, spread);
  console.log(fmt('memory, 1 caller, spread', await load(memory, 1, OPS * 10, spread)));
  console.log(fmt('memory, 50 callers, spread', await load(memory, 50, OPS * 10, spread)));
  console.log(fmt('PostgreSQL, 1 caller, spread', await load(shared, 1, Math.ceil(OPS / 4), spread)));
  console.log(fmt('PostgreSQL, 50 callers, spread', await load(shared, 50, OPS, spread)));
  console.log(fmt('PostgreSQL, 50 callers, one hot account', await load(shared, 50, OPS, hot)));
  await db.execute(sql`ALTER TABLE limit_buckets SET LOGGED`);
  try {
    console.log(fmt('PostgreSQL LOGGED (comparison), 50 callers', await load(shared, 50, OPS, (i) => `${run}-logged-${i % KEYS}`)));
  } finally {
    await db.execute(sql`ALTER TABLE limit_buckets SET UNLOGGED`);
  }
} finally {
  await db.execute(sql`DELETE FROM limit_buckets WHERE key LIKE ${`${run}-%`}`).catch(() => {});
  await pg.close();
  await throwaway?.stop();
}
