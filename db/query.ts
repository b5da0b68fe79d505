import type { SQL } from 'drizzle-orm';
import type { DrizzleDb } from './client';

/**
 * The calls the domain makes on a query, in the form both engines share (issue 12, DECISIONS "Engines"):
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
export async function rawRows<T>(db: DrizzleDb, query: SQL): Promise<T[]> {
  return db.all<T>(query);
}

/** The first row of a raw SQL query, or undefined. */
export async function rawRow<T>(db: DrizzleDb, query: SQL): Promise<T | undefined> {
  return (await rawRows<T>(db, query))[0];
}

/** Runs a raw SQL statement for its effect. */
export async function rawExec(db: DrizzleDb, query: SQL): Promise<void> {
  db.run(query);
}
