import type Database from 'better-sqlite3';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { holdSharedUse } from './in-use';
import { applyMigrations, drizzleOver, openConnection, type DrizzleDb } from './client';
import { SqliteGroupCommitWriter, type Writer, type WriteJob } from './writer';

export type { DrizzleDb } from './client';
export type { Writer, WriteJob, GroupCommitted } from './writer';

const jobScope = new AsyncLocalStorage<(() => void)[]>();

/**
 * Inside a write job: runs `fn` once that job has committed (never if it rolls back). For effects
 * outside the database, e.g. counting outcomes; a job without a scope (a test calling it directly on a
 * transaction) just drops them.
 */
export function afterCommit(fn: () => void): void {
  jobScope.getStore()?.push(fn);
}

/**
 * The seam the domain is written against: `read` is a connection that only ever sees committed work,
 * `write` runs a job on the single writer.
 */
export interface AppDatabase {
  read: DrizzleDb;
  write<T>(job: WriteJob<T>): Promise<T>;
  writer: Writer;
  /** Drains the writer, then closes both connections. */
  close(): Promise<void>;
  path: string;
}

export function openDatabase(path: string): AppDatabase {
  const inUse = holdSharedUse(path);
  let writeConn: Database.Database;
  let readConn: Database.Database;
  try {
    writeConn = openConnection(path);
    applyMigrations(writeConn);
    readConn = openConnection(path, { readonly: true });
  } catch (err) {
    inUse.release();
    throw err;
  }
  const writer = new SqliteGroupCommitWriter(writeConn, drizzleOver(writeConn));
  let closing: Promise<void> | null = null;
  return {
    path,
    read: drizzleOver(readConn),
    writer,
    write: (job) => {
      const effects: (() => void)[] = [];
      // Run in the caller's async context (the request, for its request id), with its own effects list.
      // (runInAsyncScope rather than AsyncResource.bind: bind defines a deprecated getter on every call,
      // about 1 % of a withdrawal's CPU.)
      const caller = new AsyncResource('db.write');
      const bound = (tx: DrizzleDb) => caller.runInAsyncScope(() => jobScope.run(effects, () => job(tx)));
      return writer.write(bound).then((v) => {
        // committed: an effect that throws must not make the caller believe the write failed
        for (const fn of effects) { try { fn(); } catch (err) { process.emitWarning(`after-commit effect failed: ${String(err)}`); } }
        return v;
      });
    },
    close() {
      closing ??= writer.close().then(() => {
        readConn.close();
        // leave no WAL behind for the next process to replay
        writeConn.pragma('wal_checkpoint(TRUNCATE)');
        writeConn.close();
        inUse.release();
      });
      return closing;
    },
  };
}
