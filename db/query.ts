import { sql, type AnyColumn, type SQL, type Table } from 'drizzle-orm';

type AnyTable = Table;
import type { DrizzleDb } from './handle';
import { onPostgres } from './dialect';
import { pipelinedWrite, transact, whenCommitted } from './pg/transact';
import { handleOf, type OnHandle } from './stores/handle-of';

/** A handle, or stores over one (the domain's); the helpers below run on the handle. */
type On = OnHandle;

/** The PostgreSQL handle behind a DrizzleDb (db/pg/open.ts casts it once); only its `execute` is used here. */
type Executes = { execute(query: SQL): Promise<unknown[] & { count?: number }> };
const onPg = (db: On) => handleOf(db) as unknown as Executes;

/**
 * The calls the domain makes on a query, in the form both engines share (docs/decisions.md "Engines"):
 * a query is awaited for its rows, `first` takes the first row, a prepared statement runs through
 * `execute`, and a write that must know what it touched says so with `.returning()`. better-sqlite3's
 * synchronous `.get()`, `.all()`, `.run()` and `.changes` have no PostgreSQL twin, so the domain leaves
 * them to `db/`.
 */
export async function first<T>(rows: PromiseLike<T[]> | T[]): Promise<T | undefined> {
  return (await rows)[0];
}

/** How many rows a write touched, from its `.returning({…})` rows. */
export async function touched(rows: PromiseLike<unknown[]> | unknown[]): Promise<number> {
  return (await rows).length;
}

/** The rows of a raw SQL query (`db.all` on SQLite; `db.execute(…).rows` on PostgreSQL). */
export async function rawRows<T>(db: On, query: SQL): Promise<T[]> {
  // (db/pg/open.ts makes timestamps ISO strings and counts numbers, as SQLite returns them)
  if (onPostgres) return [...await onPg(db).execute(query)] as T[];
  return handleOf(db).all<T>(query);
}

/** The first row of a raw SQL query, or undefined. */
export async function rawRow<T>(db: On, query: SQL): Promise<T | undefined> {
  return (await rawRows<T>(db, query))[0];
}

/** Runs a raw SQL statement for its effect. */
export async function rawExec(db: On, query: SQL): Promise<void> {
  await rawChanges(db, query);
}

/** Runs a raw SQL statement; how many rows it changed. */
export async function rawChanges(db: On, query: SQL): Promise<number> {
  if (onPostgres) return (await onPg(db).execute(query)).count ?? 0;
  return handleOf(db).run(query).changes;
}

/**
 * Inside a write job: runs a write whose answer nothing reads and whose failure fails the job (an insert,
 * an update, a lock). On PostgreSQL it is pipelined (db/pg/transact.ts JobWork): sent with the statements
 * that follow it, in one round trip up to the next one the job waits for, its failure the job's. On SQLite,
 * and outside a job, it simply runs here.
 */
export async function pipelined(db: On, write: () => PromiseLike<unknown>): Promise<void> {
  if (onPostgres) return pipelinedWrite(handleOf(db), write);
  await write();
}

/**
 * On PostgreSQL: runs `fn` once what the current write job read is committed (after its transaction's
 * COMMIT, never if the job or its group is rolled back), or at once outside a job. Never on SQLite, whose
 * statements cost microseconds: for caches of what a committed row says for good (db/pg/transact.ts).
 */
export function whenCommittedOnPostgres(db: On, fn: () => void): void {
  if (onPostgres) whenCommitted(handleOf(db), fn);
}

/**
 * Inside a write job: takes the row locks of these rows, in id order, until the job commits. SQLite's
 * single writer already runs one job at a time (nothing to do); on PostgreSQL concurrent jobs on the same
 * rows (a balance) wait for each other here, so what each then reads of them is current (pipelined: the
 * statements after it are sent with it and run once it holds the locks).
 */
export async function lockRows(tx: On, table: AnyTable, id: AnyColumn, ids: string[]): Promise<void> {
  if (!onPostgres || ids.length === 0) return;
  const sorted = [...new Set(ids)].sort();
  return pipelined(tx, () => onPg(tx).execute(sql`SELECT 1 FROM ${table} WHERE ${id} IN (${sql.join(sorted.map((v) => sql`${v}`), sql`, `)}) ORDER BY ${id} FOR UPDATE`));
}

/**
 * Inside a write job: holds a lock named by `name` until the job commits, for work that has no row to
 * lock yet (the first request of an idempotency key). SQLite's single writer already serializes jobs;
 * on PostgreSQL a second job with the same name waits here until the first commits, then sees its rows.
 */
export async function lockName(tx: On, name: string): Promise<void> {
  if (!onPostgres) return;
  return pipelined(tx, () => onPg(tx).execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`));
}

/**
 * `lockName` for many names in one statement, taken in one global order (of their hashes) so that two
 * jobs locking overlapping sets cannot deadlock. Nothing on SQLite.
 */
export async function lockNames(tx: On, names: string[]): Promise<void> {
  if (!onPostgres || names.length === 0) return;
  const list = [...new Set(names)];
  return pipelined(tx, () => onPg(tx).execute(sql`SELECT pg_advisory_xact_lock(h) FROM (
    SELECT DISTINCT hashtextextended(n, 0) AS h FROM jsonb_array_elements_text(${JSON.stringify(list)}::jsonb) AS n ORDER BY h) AS ordered`));
}

/**
 * Inside a write job: takes a lock named by `name` until the job commits if no other job holds it, and
 * says whether it got it, for work one instance at a time is enough for (the idempotency purge). Always
 * true on SQLite, whose single writer runs one job at a time.
 */
export async function tryLockName(tx: On, name: string): Promise<boolean> {
  if (!onPostgres) return true;
  const rows = await onPg(tx).execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) AS locked`);
  return (rows[0] as { locked: boolean }).locked === true;
}

/**
 * A select of due rows made into a claim, for `WHERE id IN (<it>)` of the update that stamps the claim:
 * on PostgreSQL it locks the rows it returns and skips those another job holds (`FOR UPDATE SKIP LOCKED`),
 * so concurrent instances each take different rows instead of queueing on the same ones. SQLite's single
 * writer runs one claim at a time: nothing to add.
 */
export function skipLocked<Q>(select: Q): Q {
  if (!onPostgres) return select;
  return (select as unknown as { for(strength: 'update', o: { skipLocked: true }): Q }).for('update', { skipLocked: true });
}

/**
 * The same for a raw claim's subselect: `FOR UPDATE OF <alias> SKIP LOCKED` on PostgreSQL (locks the rows
 * of that table only, skipping those another job holds), nothing on SQLite, whose single writer runs one
 * claim at a time.
 */
export function skipLockedOf(alias: string): SQL {
  return onPostgres ? sql.raw(`FOR UPDATE OF ${alias.replace(/[^a-z_]/g, '')} SKIP LOCKED`) : sql``;
}
