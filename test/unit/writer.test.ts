// @engines sqlite: SQLite's group-commit writer (test/unit/pg-writer.test.ts covers PostgreSQL's)
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type AppDatabase } from '../../db';
import { openConnection, PragmaError, verifyPragmas } from '../../db/client';

let dir: string;
let db: AppDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'writer-'));
  db = openDatabase(join(dir, 'w.db'));
  db.read.handle.run(sql`SELECT 1`);
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

// a scratch table outside the product schema, made through the writer itself
async function scratch() {
  await db.write((tx) => tx.handle.run(sql`CREATE TABLE IF NOT EXISTS scratch (v INTEGER NOT NULL) STRICT`));
}
const count = (d: { all: (q: ReturnType<typeof sql>) => unknown }) =>
  (d.all(sql`SELECT count(*) AS n FROM scratch`) as { n: number }[])[0].n;

describe('the single writer', () => {
  it('rolls back only the throwing job of a group', async () => {
    await scratch();
    const results = await Promise.allSettled([
      db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (1)`)),
      db.write(async (tx) => {
        tx.handle.run(sql`INSERT INTO scratch VALUES (2)`);
        throw new Error('job two fails after writing');
      }),
      db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (3)`)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const values = db.read.handle.all<{ v: number }>(sql`SELECT v FROM scratch ORDER BY v`).map((r) => r.v);
    expect(values).toEqual([1, 3]);
  });

  it('groups concurrent jobs into one transaction (one commit serves many)', async () => {
    await scratch();
    const writer = db.writer as unknown as { stats: { groups: number; jobs: number; maxGroup: number } };
    const before = { ...writer.stats };
    await Promise.all(Array.from({ length: 200 }, (_, i) => db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (${i})`))));
    expect(writer.stats.jobs - before.jobs).toBe(200);
    expect(writer.stats.groups - before.groups).toBeLessThan(200);
    expect(writer.stats.maxGroup).toBeGreaterThan(1);
    expect(count(db.read.handle)).toBe(200);
  });

  it('resolves a job only after its commit is visible to an independent connection', async () => {
    await scratch();
    const other = new Database(db.path, { readonly: true });
    try {
      const seen = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (${i})`)).then(() =>
          (other.prepare('SELECT count(*) AS n FROM scratch WHERE v = ?').get(i) as { n: number }).n)));
      // every promise resolved after its row was durable and visible outside the writer
      expect(seen.every((n) => n === 1)).toBe(true);
    } finally {
      other.close();
    }
  });

  it('never lets a reader see a job’s writes before commit', async () => {
    await scratch();
    let seenInside = -1;
    let readerDuringJob = -1;
    await db.write(async (tx) => {
      tx.handle.run(sql`INSERT INTO scratch VALUES (42)`);
      seenInside = (tx.handle.all(sql`SELECT count(*) AS n FROM scratch`) as { n: number }[])[0].n;
      await Promise.resolve(); // the job is async; other code runs meanwhile
      readerDuringJob = count(db.read.handle);
    });
    expect(seenInside).toBe(1);
    expect(readerDuringJob).toBe(0);
    expect(count(db.read.handle)).toBe(1);
  });

  it('runs jobs one at a time, in arrival order', async () => {
    await scratch();
    const order: number[] = [];
    let active = 0;
    let maxActive = 0;
    await Promise.all(Array.from({ length: 30 }, (_, i) => db.write(async (tx) => {
      active += 1; maxActive = Math.max(maxActive, active);
      tx.handle.run(sql`INSERT INTO scratch VALUES (${i})`);
      await Promise.resolve();
      order.push(i);
      active -= 1;
    })));
    expect(maxActive).toBe(1);
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("keeps a job's savepoint journal in memory, even when the job rewrites far more than 64 KiB of pages", async () => {
    await db.write((tx) => tx.handle.run(sql`CREATE TABLE wide (id INTEGER PRIMARY KEY, pad TEXT NOT NULL) STRICT`));
    await db.write((tx) => tx.handle.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO wide (pad) SELECT printf('%.300c', 'x') FROM n`));
    // SQLite's temporary files are unlinked at once but stay open while used: /proc shows them as etilqs_…
    const temporaryFiles = () => readdirSync('/proc/self/fd').map((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; } })
      .filter((target) => target.includes('etilqs_'));
    const during = await db.write((tx) => {
      tx.handle.run(sql`UPDATE wide SET pad = printf('%.300c', 'y')`); // about 160 existing pages, each journaled
      return temporaryFiles();
    });
    expect(during).toEqual([]);
    expect((db.read.handle.all(sql`SELECT count(*) AS n FROM wide WHERE pad LIKE 'y%'`) as { n: number }[])[0].n).toBe(2000);
  });

  it('drains queued jobs on close and refuses new ones afterwards', async () => {
    await scratch();
    const pending = Array.from({ length: 10 }, (_, i) => db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (${i})`)));
    const closing = db.writer.close();
    await expect(db.write(() => 1)).rejects.toThrow(/closed/);
    await Promise.all(pending);
    await closing;
    expect(count(db.read.handle)).toBe(10);
  });
});

describe('connection pragmas', () => {
  it('are WAL, synchronous=FULL, foreign keys on, busy timeout set, and every table STRICT', () => {
    const conn = openConnection(db.path);
    try {
      expect(conn.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(conn.pragma('synchronous', { simple: true })).toBe(2);
      expect(conn.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(Number(conn.pragma('busy_timeout', { simple: true }))).toBeGreaterThanOrEqual(1000);
      const loose = conn.prepare(`SELECT name FROM pragma_table_list WHERE schema='main' AND type='table' AND strict=0 AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`).all();
      expect(loose).toEqual([]);
    } finally {
      conn.close();
    }
  });

  it('refuses a connection whose pragmas did not take', () => {
    const mem = new Database(':memory:');
    mem.pragma('journal_mode = WAL'); // an in-memory database cannot be WAL
    expect(() => verifyPragmas(mem)).toThrow(PragmaError);
    mem.close();
  });
});

describe('a transaction SQLite rolls back as a whole', () => {
  it('rejects every job of the group with a clear error, and the writer goes on with the next group', async () => {
    await scratch();
    await db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (0)`));
    // a tiny ceiling on the file: one big single-row insert hits SQLITE_FULL without a statement
    // journal, so SQLite rolls back the whole group's transaction, not just the statement
    const raw = (db.writer as unknown as { conn: Database.Database }).conn;
    const pages = Number(raw.pragma('page_count', { simple: true }));
    raw.pragma(`max_page_count = ${pages + 4}`);
    const settled = await Promise.allSettled([
      db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (1)`)),
      db.write((tx) => {
        tx.handle.run(sql`CREATE TABLE big (b BLOB) STRICT`);
        tx.handle.run(sql`INSERT INTO big VALUES (randomblob(400000))`);
      }),
      db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (4)`)),
    ]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of settled) expect(String((r as PromiseRejectedResult).reason)).toMatch(/rolled back the write transaction \(SQLITE_FULL/);
    expect(count(db.read.handle)).toBe(1);
    expect(db.read.handle.all(sql`SELECT name FROM sqlite_master WHERE name = 'big'`)).toEqual([]);

    // the next group commits as usual
    raw.pragma('max_page_count = 1073741823');
    await Promise.all([2, 3].map((v) => db.write((tx) => tx.handle.run(sql`INSERT INTO scratch VALUES (${v})`))));
    expect(db.read.handle.all<{ v: number }>(sql`SELECT v FROM scratch ORDER BY v`).map((r) => r.v)).toEqual([0, 2, 3]);
  });
});
