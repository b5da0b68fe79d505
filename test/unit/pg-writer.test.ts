// @engines none: starts a PostgreSQL cluster of its own (runs once)
import net from 'node:net';
import { sql as q } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pgSchema from '../../db/pg/schema';
import { PgGroupCommitWriter, sqlState, WriteContentionError } from '../../db/pg/writer';
import { pipelinedWrite, whenCommitted } from '../../db/pg/transact';
import { DomainError } from '../../server/errors';
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
  await client`CREATE TABLE hot (id int PRIMARY KEY, n int NOT NULL)`;
  await client`INSERT INTO hot VALUES (1, 0)`;
  // a COMMIT that fails once with a serialization failure: a deferred constraint trigger, checked at COMMIT,
  // raises 40001 the first time it fires (a sequence: its value survives the rollback)
  await client`CREATE TABLE fragile (id int PRIMARY KEY)`;
  await client`CREATE SEQUENCE fragile_fires`;
  await client.unsafe(`CREATE FUNCTION fragile_check() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('fragile_fires') = 1 THEN RAISE EXCEPTION 'lost at commit' USING ERRCODE = 'serialization_failure'; END IF;
      RETURN NULL;
    END $$`);
  await client`CREATE CONSTRAINT TRIGGER fragile_check AFTER INSERT ON fragile DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fragile_check()`;
  // deadlocks are found after deadlock_timeout (1 s by default): shorter, so the test waits less
  await client`ALTER DATABASE payments SET deadlock_timeout = '100ms'`;
});
afterAll(async () => {
  // a connection killed under its transaction (the test of a lost group) keeps postgres.js's end() waiting on it
  await client?.end({ timeout: 1 });
  await server?.stop();
});

describe('PgGroupCommitWriter: jobs gathered into one transaction, one savepoint each, retried on serialization failures and deadlocks', () => {
  it('commits a job before answering it, and tells its commit listeners', async () => {
    const writer = new PgGroupCommitWriter(db);
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
    const writer = new PgGroupCommitWriter(db);
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
    // two instances: in one, the second job would wait for the first job's group to end
    // (without the lock that makes instances take turns, which would keep the second job from starting)
    const writers = [new PgGroupCommitWriter(db, { sleep: async () => {}, serializeGroups: false }), new PgGroupCommitWriter(db, { sleep: async () => {}, serializeGroups: false })];
    // both jobs hold their first row before asking for the other's: a real deadlock, the first time
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((r) => { bothLocked = r; });
    const job = (first: number, second: number) => writers[first - 1].write(async (tx) => {
      await tx.execute(q`UPDATE writer_rows SET note = note || ${String(first)} WHERE id = ${first}`);
      if (++locked === 2) bothLocked();
      await barrier;
      await tx.execute(q`UPDATE writer_rows SET note = note || ${String(first)} WHERE id = ${second}`);
      return first;
    });
    const told: string[] = [];
    for (const w of writers) w.onRetry((r) => told.push(`${r.jobs} ${r.reason}`));
    expect(await Promise.all([job(1, 2), job(2, 1)])).toEqual([1, 2]);
    expect(writers[0].stats.retries + writers[1].stats.retries).toBeGreaterThanOrEqual(1);
    // what db_writer_retries_total counts (server/observability/metrics.ts)
    expect(told).toContain('1 deadlock');
    const notes = (await client`SELECT note FROM writer_rows WHERE id IN (1, 2) ORDER BY id`).map((r) => r.note);
    // each job's two updates landed exactly once: the deadlock victim's first attempt left nothing
    expect(notes.map((n) => n.length)).toEqual([3, 3]);
  });

  it('gives up after the bounded attempts with a retry-after, waiting a jittered, growing pause between them', async () => {
    const pauses: number[] = [];
    const writer = new PgGroupCommitWriter(db, { attempts: 4, baseDelayMs: 10, maxDelayMs: 25, random: () => 0.999, sleep: async (ms) => { pauses.push(ms); } });
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
    const writers = { x: new PgGroupCommitWriter(db, { serializeGroups: false }), y: new PgGroupCommitWriter(db, { serializeGroups: false }) };
    // both jobs look for key 20 before either inserts it: the loser's insert violates the primary key
    let checked = 0;
    let bothChecked!: () => void;
    const barrier = new Promise<void>((r) => { bothChecked = r; });
    let runs = 0;
    const job = (note: 'x' | 'y') => writers[note].write(async (tx) => {
      runs += 1;
      const found = await tx.execute(q`SELECT note FROM writer_rows WHERE id = 20`);
      if (found.length > 0) return `existing ${(found[0] as { note: string }).note}`;
      if (++checked === 2) bothChecked();
      await barrier;
      await tx.execute(q`INSERT INTO writer_rows VALUES (20, ${note})`);
      return `created ${note}`;
    });
    const told: string[] = [];
    for (const w of Object.values(writers)) w.onRetry((r) => told.push(`${r.jobs} ${r.reason}`));
    const answers = await Promise.all([job('x'), job('y')]);
    expect(told).toEqual(['1 unique']);
    const created = answers.filter((a) => a.startsWith('created '));
    expect(created).toHaveLength(1);
    expect(answers).toContain(`existing ${created[0].slice('created '.length)}`);
    expect(runs).toBe(3);
  });

  it('rethrows a unique violation that repeats (a bug, not a race) as it is, after two more tries', async () => {
    const writer = new PgGroupCommitWriter(db);
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
    const writer = new PgGroupCommitWriter(db);
    const slow = writer.write(async (tx) => { await tx.execute(q`SELECT pg_sleep(0.05)`); return 'finished'; });
    const closed = writer.close();
    await expect(writer.write(async () => 1)).rejects.toThrow(/closed/);
    expect(await slow).toBe('finished');
    await closed;
  });

  it('commits a group whose middle job a rule refused: that job leaves nothing and is answered with its refusal after the COMMIT', async () => {
    const writer = new PgGroupCommitWriter(db);
    const groups: number[] = [];
    writer.onGroup((g) => groups.push(g.jobs));
    const insert = (id: number) => writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (${id}, 'group')`); return id; });
    const answers = await Promise.allSettled([
      insert(30),
      writer.write(async (tx) => {
        await tx.execute(q`INSERT INTO writer_rows VALUES (31, 'refused')`);
        throw new DomainError('INSUFFICIENT_FUNDS' as never, 'not enough money');
      }),
      insert(32),
    ]);
    expect(answers[0]).toEqual({ status: 'fulfilled', value: 30 });
    expect(answers[1].status).toBe('rejected');
    expect((answers[1] as PromiseRejectedResult).reason).toBeInstanceOf(DomainError);
    expect(answers[2]).toEqual({ status: 'fulfilled', value: 32 });
    expect(groups).toEqual([3]);
    expect(writer.stats).toMatchObject({ groups: 1, maxGroup: 3, jobs: 3 });
    expect((await client`SELECT id FROM writer_rows WHERE id BETWEEN 30 AND 32 ORDER BY id`).map((r) => r.id)).toEqual([30, 32]);
  });

  it('answers a job that threw an unexpected error, or whose statement failed, with its error and commits the others', async () => {
    const writer = new PgGroupCommitWriter(db);
    const answers = await Promise.allSettled([
      writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (40, 'kept')`); return 'a'; }),
      writer.write(async (tx) => {
        await tx.execute(q`INSERT INTO writer_rows VALUES (41, 'gone')`);
        throw new TypeError('a bug in the job');
      }),
      writer.write(async (tx) => {
        await tx.execute(q`INSERT INTO writer_rows VALUES (42, 'gone')`);
        await tx.execute(q`SELECT 1 / 0`);
      }),
      writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (43, 'kept')`); return 'd'; }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((answers[1] as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
    expect(sqlState((answers[2] as PromiseRejectedResult).reason)).toBe('22012');
    expect(writer.stats.groups).toBe(1);
    expect((await client`SELECT id FROM writer_rows WHERE id BETWEEN 40 AND 43 ORDER BY id`).map((r) => r.id)).toEqual([40, 43]);
  });

  it('answers a job that caught its failed statement and went on with that statement\'s error, and commits the others', async () => {
    const writer = new PgGroupCommitWriter(db);
    const answers = await Promise.allSettled([
      writer.write(async (tx) => {
        await tx.execute(q`INSERT INTO writer_rows VALUES (44, 'gone')`);
        await tx.execute(q`INSERT INTO writer_rows VALUES (1, 'duplicate')`).catch(() => undefined);
        return 'went on';
      }),
      writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (45, 'kept')`); return 'b'; }),
    ]);
    expect(answers[0].status).toBe('rejected');
    expect(sqlState((answers[0] as PromiseRejectedResult).reason)).toBe('23505');
    expect(answers[1]).toEqual({ status: 'fulfilled', value: 'b' });
    expect((await client`SELECT id FROM writer_rows WHERE id IN (44, 45) ORDER BY id`).map((r) => r.id)).toEqual([45]);
  });

  it('answers a job whose pipelined write failed with that write\'s error (not "transaction aborted"), rolls it back, and commits the others', async () => {
    const writer = new PgGroupCommitWriter(db);
    const answers = await Promise.allSettled([
      writer.write(async (tx) => { await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (146, 'kept')`)); return 'a'; }),
      // the failing write, then a statement the job waits for: that one fails with 25P02, the job with 23502
      writer.write(async (tx) => {
        await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (147, 'gone')`));
        await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (148, NULL)`));
        await tx.execute(q`SELECT 1`);
        return 'b';
      }),
      // the failing write last: the job returned, its savepoint is not left before the write is answered
      writer.write(async (tx) => {
        await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (149, 'gone')`));
        await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (150, NULL)`));
        return 'c';
      }),
      writer.write(async (tx) => { await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (151, 'kept')`)); return 'd'; }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(sqlState((answers[1] as PromiseRejectedResult).reason)).toBe('23502');
    expect(sqlState((answers[2] as PromiseRejectedResult).reason)).toBe('23502');
    expect(writer.stats.groups).toBe(1);
    expect((await client`SELECT id FROM writer_rows WHERE id BETWEEN 146 AND 151 ORDER BY id`).map((r) => r.id)).toEqual([146, 151]);
  });

  it('sends a job\'s pipelined writes in one socket write, past 1 KiB too (patches/postgres+3.4.9.patch)', async () => {
    // postgres.js flushed its buffer at 1 KiB: a job's writes past it (a withdrawal's are about 2 KiB) went in two
    const writer = new PgGroupCommitWriter(db);
    const port = Number(new URL(server.url).port);
    const sent: Buffer[] = [];
    const write = net.Socket.prototype.write;
    net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
      if (this.remotePort === port && Buffer.isBuffer(chunk)) sent.push(chunk);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof write;
    try {
      await writer.write(async (tx) => {
        for (let id = 160; id < 165; id++) await pipelinedWrite(tx, () => tx.execute(q.raw(`INSERT INTO writer_rows VALUES (${id}, '${'n'.repeat(400)}')`)));
      });
    } finally {
      net.Socket.prototype.write = write;
    }
    const carrying = sent.filter((b) => b.includes('INSERT INTO writer_rows'));
    expect(carrying).toHaveLength(1);
    expect(carrying[0].toString('latin1').match(/INSERT INTO writer_rows/g)).toHaveLength(5);
    expect((await client`SELECT count(*)::int AS n FROM writer_rows WHERE id BETWEEN 160 AND 164`)[0].n).toBe(5);
  });

  it('runs again a job whose pipelined insert met a key another job committed, as an awaited one', async () => {
    const writer = new PgGroupCommitWriter(db);
    let runs = 0;
    const v = await writer.write(async (tx) => {
      runs += 1;
      const taken = (await tx.execute(q`SELECT 1 FROM writer_rows WHERE id = 152`)).length > 0;
      if (taken) return 'seen';
      // another instance commits the key between this job's check and its insert
      if (runs === 1) await client`INSERT INTO writer_rows VALUES (152, 'other')`;
      await pipelinedWrite(tx, () => tx.execute(q`INSERT INTO writer_rows VALUES (152, 'mine')`));
      return 'inserted';
    });
    expect(v).toBe('seen');
    expect(runs).toBe(2);
  });

  it('tells what a job learned only after its COMMIT, and never for a job rolled back', async () => {
    const writer = new PgGroupCommitWriter(db);
    const learned: string[] = [];
    const answers = await Promise.allSettled([
      writer.write(async (tx) => {
        await tx.execute(q`SELECT 1`);
        whenCommitted(tx, () => learned.push('a'));
        expect(learned).toEqual([]);
        return 'a';
      }),
      writer.write(async (tx) => {
        whenCommitted(tx, () => learned.push('b'));
        throw new Error('refused');
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected']);
    expect(learned).toEqual(['a']);
  });

  it('runs again every job of a group whose COMMIT met a serialization failure, and the work of each job lands exactly once', async () => {
    const writer = new PgGroupCommitWriter(db, { sleep: async () => {} });
    const runs = new Map<number, number>();
    let commits = 0;
    writer.onCommit(() => { commits += 1; });
    const job = (id: number) => writer.write(async (tx) => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      await tx.execute(q`INSERT INTO fragile VALUES (${id})`);
      await tx.execute(q`UPDATE hot SET n = n + 1 WHERE id = 1`);
      return id;
    });
    const before = Number((await client`SELECT n FROM hot WHERE id = 1`)[0].n);
    expect(await Promise.all([job(1), job(2), job(3)])).toEqual([1, 2, 3]);
    expect([...runs.values()]).toEqual([2, 2, 2]);
    expect(writer.stats).toMatchObject({ groups: 1, jobs: 3, retries: 3, gaveUp: 0 });
    expect(commits).toBe(1);
    expect((await client`SELECT id FROM fragile ORDER BY id`).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(Number((await client`SELECT n FROM hot WHERE id = 1`)[0].n)).toBe(before + 3);
  });

  it('takes 200 concurrent jobs on one hot row in far fewer groups, at most 64 jobs each, every one committed', async () => {
    const writer = new PgGroupCommitWriter(db);
    const before = Number((await client`SELECT n FROM hot WHERE id = 1`)[0].n);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => writer.write(async (tx) => {
      await tx.execute(q`UPDATE hot SET n = n + 1 WHERE id = 1`);
      return i;
    })));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(writer.stats.jobs).toBe(200);
    expect(writer.stats.groups).toBeLessThan(200);
    expect(writer.stats.groups).toBeGreaterThanOrEqual(4);
    expect(writer.stats.maxGroup).toBe(64);
    expect(Number((await client`SELECT n FROM hot WHERE id = 1`)[0].n)).toBe(before + 200);
  });

  it('takes a smaller group size when told, never more than 64', async () => {
    const small = new PgGroupCommitWriter(db, { maxGroup: 3 });
    await Promise.all(Array.from({ length: 10 }, () => small.write(async (tx) => { await tx.execute(q`SELECT 1`); })));
    expect(small.stats).toMatchObject({ jobs: 10, groups: 4, maxGroup: 3 });
    const big = new PgGroupCommitWriter(db, { maxGroup: 1000 });
    await Promise.all(Array.from({ length: 70 }, () => big.write(async (tx) => { await tx.execute(q`SELECT 1`); })));
    expect(big.stats.maxGroup).toBe(64);
  });

  it('answers every job of a group whose connection was lost with the error, saves none of them, and goes on with the next group', async () => {
    const writer = new PgGroupCommitWriter(db);
    const answers = await Promise.allSettled([
      writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (50, 'lost')`); }),
      writer.write(async (tx) => { await tx.execute(q`SELECT pg_terminate_backend(pg_backend_pid())`); }),
      writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (51, 'lost')`); }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(writer.stats.groups).toBe(0);
    expect(await client`SELECT 1 FROM writer_rows WHERE id IN (50, 51)`).toHaveLength(0);
    expect(await writer.write(async (tx) => { await tx.execute(q`INSERT INTO writer_rows VALUES (52, 'after')`); return 'ok'; })).toBe('ok');
  });

  it('runs the groups of two instances one after the other, so that they never deadlock', async () => {
    const writers = [new PgGroupCommitWriter(db), new PgGroupCommitWriter(db)];
    const spans: [string, number][] = [];
    const job = (w: number, name: string) => writers[w].write(async (tx) => {
      spans.push([`${name} start`, Date.now()]);
      await tx.execute(q`SELECT pg_sleep(0.05)`);
      spans.push([`${name} end`, Date.now()]);
    });
    const first = job(0, 'a');
    await new Promise((r) => setTimeout(r, 10));
    await Promise.all([first, job(1, 'b')]);
    // b's group began with the lock a's group held until its COMMIT
    expect(spans.map((s) => s[0])).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('answers the queued jobs before close resolves', async () => {
    const writer = new PgGroupCommitWriter(db);
    const jobs = Array.from({ length: 5 }, (_, i) => writer.write(async (tx) => { await tx.execute(q`SELECT pg_sleep(0.01)`); return i; }));
    await writer.close();
    expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3, 4]);
  });
});
