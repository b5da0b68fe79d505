import Database from 'better-sqlite3';
import { createPrivately } from './client';

/**
 * "This database is in use", made reliable: every process that opens DATABASE_PATH (server, worker,
 * account:create, backup, audit) holds a shared lock on a small companion SQLite file, `<db>-inuse`,
 * for as long as it runs; `npm run restore` needs that file's exclusive lock. The operating system
 * drops the locks of a process that dies, so a crash never leaves a stale "in use" behind (unlike a
 * pid file), and a server cannot start while a restore is replacing the file.
 */
export class DatabaseInUseError extends Error {}

export function inUsePath(databasePath: string): string {
  return `${databasePath}-inuse`;
}

function openLockFile(databasePath: string): Database.Database {
  // taken before the database itself is opened: its directory may not exist yet, and both are private
  createPrivately(inUsePath(databasePath));
  const conn = new Database(inUsePath(databasePath));
  conn.pragma('journal_mode = DELETE');
  conn.pragma('busy_timeout = 2000');
  conn.exec('CREATE TABLE IF NOT EXISTS holder (x INTEGER)');
  conn.pragma('busy_timeout = 0');
  return conn;
}

function isBusy(err: unknown): boolean {
  return (err as { code?: string }).code?.startsWith('SQLITE_BUSY') === true || (err as { code?: string }).code === 'SQLITE_LOCKED';
}

/** Held by every user of the database until `release` (or the process's death). */
export function holdSharedUse(databasePath: string): { release(): void } {
  // an in-memory or temporary database belongs to this process alone
  if (databasePath === ':memory:' || databasePath === '' || databasePath.startsWith('file:')) return { release() {} };
  const conn = openLockFile(databasePath);
  try {
    conn.exec('BEGIN');
    conn.prepare('SELECT count(*) FROM holder').get();
  } catch (err) {
    conn.close();
    if (isBusy(err)) throw new DatabaseInUseError(`${databasePath} is being restored by another process`);
    throw err;
  }
  return { release() { if (conn.open) { if (conn.inTransaction) conn.exec('ROLLBACK'); conn.close(); } } };
}

/** Held by `restore` while it replaces the file; refused while any process uses the database. */
export function holdExclusiveUse(databasePath: string): { release(): void } {
  const conn = openLockFile(databasePath);
  try {
    conn.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    conn.close();
    if (isBusy(err)) throw new DatabaseInUseError(`${databasePath} is in use by a running process (server, worker or another command); stop it first`);
    throw err;
  }
  return { release() { if (conn.open) { if (conn.inTransaction) conn.exec('ROLLBACK'); conn.close(); } } };
}
