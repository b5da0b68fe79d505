// @engines none: starts a PostgreSQL cluster of its own (runs once)
import { sql as q } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pgSchema from '../../db/pg/schema';
import { PgTransactionWriter, sqlState, WriteContentionError } from '../../db/pg/writer';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

let server: ThrowawayPostgres;
let client: postgres.Sql;
let db: ReturnType<typeof drizzle<typeof pgSchema>>;

beforeAll(async () => {
  server = await startTestPostgres();
  client = postgres(server.url, { max: 10, onnotice: () => {} });
  db = drizzle(client, { schema: pgSchema });
  await client`CREATE TABLE writer_rows (id int PRIMARY KEY, note text NOT NULL)`;
  await client`INSERT INTO writer_rows VALUES (1, 'a'), (2, 'b')`;
  // deadlocks are found after deadlock_timeout (1 s by default): shorter, so the test waits less
  await client`ALTER DATABASE payments SET deadlock_timeout = '100ms'`;
});
afterAll(async () => {
  await client?.end();
  await server?.stop();
});

describe('PgTransactionWriter: one transaction per job, retried on serialization failures and deadlocks', () => {
  it('commits a job before answering it, and tells its commit listeners', async () => {
    const writer = new PgTransactionWriter(db);
    let commits = 0;
    writer.onCommit(() => { commits += 1; });
    const v = await writer.write(async (tx) => {
      await tx.execute(q`INSERT INTO writer_rows VALUES (10, 'committed')`);
      return 'done';
    });
    expect(v).toBe('done');
    expect(commits).toBe(1);
    expect((await client`SELECT note FROM writer_rows WHERE id = 10`)[0].note).toBe('committed');
  });

  it('rolls back a job that throws and rethrows its error as it is, without retrying', async () => {
    const writer = new PgTransactionWriter(db);
    let runs = 0;
    const err = await writer.write(async (tx) => {
      runs += 1;
      await tx.execute(q`INSERT INTO writer_rows VALUES (11, 'never')`);
      throw new Error('the rule said no');
    }).catch((e) => e);
    expect(err.message).toBe('the rule said no');
    expect(runs).toBe(1);
    expect(await client`SELECT 1 FROM writer_rows WHERE id = 11`).toHaveLength(0);
  });

  it('retries the loser of a deadlock until both jobs are done', async () => {
    const writer = new PgTransactionWriter(db, { sleep: async () => {} });
    // both jobs hold their first row before asking for the other's: a real deadlock, the first time
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((r) => { bothLocked = r; });
    const job = (first: number, second: number) => writer.write(async (tx) => {
      await tx.execute(q`UPDATE writer_rows SET note = note || ${String(first)} WHERE id = ${first}`);
      if (++locked === 2) bothLocked();
      await barrier;
      await tx.execute(q`UPDATE writer_rows SET note = note || ${String(first)} WHERE id = ${second}`);
      return first;
    });
    expect(await Promise.all([job(1, 2), job(2, 1)])).toEqual([1, 2]);
    expect(writer.stats.retries).toBeGreaterThanOrEqual(1);
    const notes = (await client`SELECT note FROM writer_rows WHERE id IN (1, 2) ORDER BY id`).map((r) => r.note);
    // each job's two updates landed exactly once: the deadlock victim's first attempt left nothing
    expect(notes.map((n) => n.length)).toEqual([3, 3]);
  });

  it('gives up after the bounded attempts with a retry-after, waiting a jittered, growing pause between them', async () => {
    const pauses: number[] = [];
    const writer = new PgTransactionWriter(db, { attempts: 4, baseDelayMs: 10, maxDelayMs: 25, random: () => 0.999, sleep: async (ms) => { pauses.push(ms); } });
    let runs = 0;
    const err = await writer.write(async (tx) => {
      runs += 1;
      await tx.execute(q`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$`);
    }).catch((e) => e);
    expect(err).toBeInstanceOf(WriteContentionError);
    expect(err.retryAfterSeconds).toBe(1);
    expect(sqlState(err.cause)).toBe('40001');
    expect(runs).toBe(4);
    expect(pauses).toEqual([9, 19, 24]);
    expect(writer.stats.gaveUp).toBe(1);
  });

  it('runs again a job whose insert met a key another job committed after its check, so the check sees it', async () => {
    const writer = new PgTransactionWriter(db);
    // both jobs look for key 20 before either inserts it: the loser's insert violates the primary key
    let checked = 0;
    let bothChecked!: () => void;
    const barrier = new Promise<void>((r) => { bothChecked = r; });
    let runs = 0;
    const job = (note: string) => writer.write(async (tx) => {
      runs += 1;
      const found = await tx.execute(q`SELECT note FROM writer_rows WHERE id = 20`);
      if (found.length > 0) return `existing ${(found[0] as { note: string }).note}`;
      if (++checked === 2) bothChecked();
      await barrier;
      await tx.execute(q`INSERT INTO writer_rows VALUES (20, ${note})`);
      return `created ${note}`;
    });
    const answers = await Promise.all([job('x'), job('y')]);
    const created = answers.filter((a) => a.startsWith('created '));
    expect(created).toHaveLength(1);
    expect(answers).toContain(`existing ${created[0].slice('created '.length)}`);
    expect(runs).toBe(3);
  });

  it('rethrows a unique violation that repeats (a bug, not a race) as it is, after two more tries', async () => {
    const writer = new PgTransactionWriter(db);
    let runs = 0;
    const err = await writer.write(async (tx) => {
      runs += 1;
      await tx.execute(q`INSERT INTO writer_rows VALUES (1, 'duplicate')`);
    }).catch((e) => e);
    expect(err).not.toBeInstanceOf(WriteContentionError);
    expect(sqlState(err)).toBe('23505');
    expect(runs).toBe(3);
  });

  it('refuses jobs once closed, after those under way finish', async () => {
    const writer = new PgTransactionWriter(db);
    const slow = writer.write(async (tx) => { await tx.execute(q`SELECT pg_sleep(0.05)`); return 'finished'; });
    const closed = writer.close();
    await expect(writer.write(async () => 1)).rejects.toThrow(/closed/);
    expect(await slow).toBe('finished');
    await closed;
  });
});
