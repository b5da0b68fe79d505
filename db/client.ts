import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { sql } from 'drizzle-orm';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from './schema';
import { onPostgres } from './dialect';
import { rawRow } from './query';
import { migrationFailed, pendingAfter, shippedMigrations } from './migration-history';

import type { DrizzleDb } from './handle';
import { handleOf, type OnHandle } from './stores/handle-of';

export type { DrizzleDb, Schema } from './handle';

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
const PG_MIGRATIONS = fileURLToPath(new URL('./pg/migrations', import.meta.url));
const BUSY_TIMEOUT_MS = 5000;

/** Opens a connection with the pragmas the product depends on, and refuses one where they did not take. */
export function openConnection(path: string, opts: { readonly?: boolean } = {}): Database.Database {
  if (!opts.readonly) createPrivately(path);
  const conn = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  if (!opts.readonly) conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = FULL');
  conn.pragma('foreign_keys = ON');
  conn.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  verifyPragmas(conn);
  return conn;
}

/**
 * The database holds hashed credentials and encrypted secrets: only its owner may read it. SQLite gives
 * the WAL and shm files the database file's mode, so creating the database 0600 (whatever the umask)
 * covers all three; a database made before this rule is tightened.
 */
export function createPrivately(path: string) {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return; // not a file of ours to create
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

export class PragmaError extends Error {}

export function verifyPragmas(conn: Database.Database): void {
  const got = {
    journal_mode: String(conn.pragma('journal_mode', { simple: true })).toLowerCase(),
    synchronous: Number(conn.pragma('synchronous', { simple: true })),
    foreign_keys: Number(conn.pragma('foreign_keys', { simple: true })),
    busy_timeout: Number(conn.pragma('busy_timeout', { simple: true })),
  };
  const problems: string[] = [];
  if (got.journal_mode !== 'wal') problems.push(`journal_mode is ${got.journal_mode}, expected wal`);
  if (got.synchronous !== 2) problems.push(`synchronous is ${got.synchronous}, expected 2 (FULL)`);
  if (got.foreign_keys !== 1) problems.push('foreign_keys is off');
  if (got.busy_timeout < 1000) problems.push(`busy_timeout is ${got.busy_timeout}`);
  if (problems.length) throw new PragmaError(`database pragmas did not take: ${problems.join('; ')}`);
}

/** Every application table must be STRICT (drizzle-kit cannot say so; scripts/db-generate.sh adds it). */
export function verifyStrictTables(conn: Database.Database): void {
  const rows = conn.prepare(`SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`).all() as { name: string; strict: number }[];
  const loose = rows.filter((r) => r.strict !== 1).map((r) => r.name);
  if (loose.length) throw new PragmaError(`tables are not STRICT: ${loose.join(', ')}`);
}

/**
 * Brings the database up to this code's migrations, or throws a MigrationError and changes nothing: a
 * database migrated by a newer release is refused before anything runs, and drizzle's migrator runs all
 * pending migrations in one transaction (BEGIN … COMMIT, ROLLBACK on the first failure; SQLite's DDL is
 * transactional). `folder` is for tests; the product always uses db/migrations.
 */
export function applyMigrations(conn: Database.Database, folder = MIGRATIONS): void {
  const shipped = shippedMigrations(folder);
  const journal = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`).get();
  const applied = journal
    ? (conn.prepare('SELECT created_at AS createdAt FROM __drizzle_migrations').all() as { createdAt: number | string }[]).map((r) => ({ createdAt: Number(r.createdAt) }))
    : [];
  const pending = pendingAfter(applied, shipped);
  if (pending.length) {
    try {
      migrate(drizzle(conn, { schema }), { migrationsFolder: folder });
    } catch (err) {
      throw migrationFailed(err, pending);
    }
  }
  verifyStrictTables(conn);
}

let lastShipped: { folderMillis: number } | null | undefined;
/**
 * The last migration this build ships, read once: the files do not change under a running process, and
 * reading and hashing them all on every /readyz cost about 1 ms of the event loop's thread per probe.
 */
function lastShippedMigration() {
  if (lastShipped === undefined) lastShipped = readMigrationFiles({ migrationsFolder: onPostgres ? PG_MIGRATIONS : MIGRATIONS }).at(-1) ?? null;
  return lastShipped;
}

/**
 * Whether the database has every migration this build ships (readiness, restore): the last applied
 * migration is the last one in db/migrations (db/pg/migrations on PostgreSQL). Null when current, else
 * what is missing.
 */
export async function pendingMigrations(on: OnHandle): Promise<string | null> {
  const db = handleOf(on);
  const last = lastShippedMigration();
  // drizzle keeps its journal in the "drizzle" schema on PostgreSQL, in the main database on SQLite
  const journal = onPostgres ? sql`drizzle.__drizzle_migrations` : sql`__drizzle_migrations`;
  const table = await rawRow(db, onPostgres
    ? sql`SELECT 1 AS x FROM information_schema.tables WHERE table_schema = 'drizzle' AND table_name = '__drizzle_migrations'`
    : sql`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`);
  if (!table) return 'no migrations applied';
  const applied = await rawRow<{ hash: string; createdAt: number }>(db, sql`SELECT hash, created_at AS "createdAt" FROM ${journal} ORDER BY created_at DESC LIMIT 1`);
  if (!applied) return 'no migrations applied';
  if (last && Number(applied.createdAt) < last.folderMillis) return `database is behind: last applied migration ${applied.createdAt}, this build ships ${last.folderMillis}`;
  return null;
}

export function drizzleOver(conn: Database.Database): DrizzleDb {
  return drizzle(conn, { schema });
}

export { schema };
