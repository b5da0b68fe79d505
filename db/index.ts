import type Database from 'better-sqlite3';
import { holdSharedUse } from './in-use';
import { applyMigrations, drizzleOver, openConnection, type DrizzleDb } from './client';
import { SqliteGroupCommitWriter, type Writer, type WriteJob } from './writer';
import { onPostgres } from './dialect';
import { Stores, storesOver, type JobContext } from './stores';

// PostgreSQL's driver and handle are loaded only when this process runs on it (db/dialect.ts)
const pg = onPostgres ? await import('./pg/open') : null;
const pgNotify = onPostgres ? await import('./pg/notify') : null;

export type { DrizzleDb } from './client';
export type { Writer, GroupCommitted } from './writer';
export { Stores } from './stores';

/** A write job as the domain writes it: over the stores of one transaction. */
export type StoresJob<T> = (tx: Stores) => Promise<T> | T;

export interface WriteOptions {
  /** The request this job serves: events it records keep the id. */
  requestId?: string;
}

/**
 * The seam the domain is written against: `read` is a connection that only ever sees committed work,
 * `write` runs a job on the single writer.
 */
export interface AppDatabase {
  read: Stores;
  write<T>(job: StoresJob<T>, o?: WriteOptions): Promise<T>;
  writer: Writer;
  /**
   * PostgreSQL only (absent on SQLite, whose one process has nobody else to hear from): calls `onWork`
   * with a table's name when another instance (or this one) commits work on it, and with null after each
   * (re)connect of the listening connection, when a notification may have been missed. Returns the stop.
   */
  listenForWork?(onWork: (table: string | null) => void): () => Promise<void>;
  /** Drains the writer, then closes both connections. */
  close(): Promise<void>;
  path: string;
}

/**
 * Runs a write job with its own context (request id, after-commit effects); the effects run once the
 * writer says it committed. On PostgreSQL a job may be tried again after a serialization failure: each
 * try starts with no effects, so only the committed try's count.
 */
function runJobs(writer: Writer) {
  return <T>(job: StoresJob<T>, o?: WriteOptions): Promise<T> => {
    const tries = { last: null as JobContext | null };
    return writer.write(inContext(job, o?.requestId ?? null, tries)).then((v) => {
      // committed: an effect that throws must not make the caller believe the write failed
      for (const fn of tries.last?.effects ?? []) { try { fn(); } catch (err) { process.emitWarning(`after-commit effect failed: ${String(err)}`); } }
      return v;
    });
  };
}

// A factory rather than a named closure: tsx (esbuild keepNames) names a closure made in a function on every call.
function inContext<T>(job: StoresJob<T>, requestId: string | null, tries: { last: JobContext | null }): WriteJob<T> {
  return (handle) => {
    // a fresh context per try: a retried PostgreSQL job keeps only the committed try's effects
    const context: JobContext = { requestId, effects: [] };
    tries.last = context;
    return job(new Stores(handle, context));
  };
}

/**
 * SQLite at `path` (a single group-commit writer), or — with DATABASE_URL set — PostgreSQL: reads on a
 * pool, each write job one transaction of its own with bounded retries (db/pg/writer.ts). Migrations on
 * PostgreSQL run at start (db/engine.ts), before this is called.
 */
export function openDatabase(path: string, o: { url?: string } = {}): AppDatabase {
  if (pg) {
    // (a test may name another database of the same cluster)
    const url = o.url ?? process.env.DATABASE_URL!.trim();
    const opened = pg.openPostgres(url);
    let closing: Promise<void> | null = null;
    const listeners = new Set<() => Promise<void>>();
    return {
      path: url.replace(/\/\/[^@/]*@/, '//'),
      read: storesOver(opened.read),
      writer: opened.writer,
      write: runJobs(opened.writer),
      listenForWork(onWork) {
        const listener = pgNotify!.listenForWork(url, onWork);
        const stop = async () => { listeners.delete(stop); await listener.close(); };
        listeners.add(stop);
        return stop;
      },
      // (a listener still open is closed with the database)
      close: () => (closing ??= Promise.all([...listeners].map((stop) => stop())).then(() => opened.close())),
    };
  }
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
    read: storesOver(drizzleOver(readConn)),
    writer,
    write: runJobs(writer),
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
