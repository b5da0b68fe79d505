import type Database from 'better-sqlite3';
import { holdSharedUse } from './in-use';
import { applyMigrations, drizzleOver, openConnection, type DrizzleDb } from './client';
import { SqliteGroupCommitWriter, type Writer, type WriteJob } from './writer';
import { onPostgres } from './dialect';

// PostgreSQL's driver and handle are loaded only when this process runs on it (db/dialect.ts)
const pg = onPostgres ? await import('./pg/open') : null;
const pgNotify = onPostgres ? await import('./pg/notify') : null;

export type { DrizzleDb } from './client';
export type { Writer, WriteJob, GroupCommitted } from './writer';

/** What a running write job carries besides its transaction: who asked for it, what to do once committed. */
interface JobContext {
  requestId: string | null;
  effects: (() => void)[];
}

/**
 * The context of the job running on a transaction handle. A handle runs one job at a time (SQLite's
 * writer runs its jobs one after another on its one handle; each PostgreSQL job has a connection's
 * handle to itself), so the handle names the job. Kept beside the handle rather than in
 * AsyncLocalStorage, which on Node 20 puts promise hooks on every promise of the process.
 */
const running = new WeakMap<DrizzleDb, JobContext>();

/**
 * Inside a write job: runs `fn` once that job has committed (never if it rolls back). For effects
 * outside the database, e.g. counting outcomes; outside a job (a test calling a domain function
 * directly on a transaction) they are dropped.
 */
export function afterCommit(tx: DrizzleDb, fn: () => void): void {
  running.get(tx)?.effects.push(fn);
}

/** Inside a write job: the id of the request that queued it (null for background work). */
export function jobRequestId(tx: DrizzleDb): string | null {
  return running.get(tx)?.requestId ?? null;
}

export interface WriteOptions {
  /** The request this job serves: events it records keep the id. */
  requestId?: string;
}

/**
 * The seam the domain is written against: `read` is a connection that only ever sees committed work,
 * `write` runs a job on the single writer.
 */
export interface AppDatabase {
  read: DrizzleDb;
  write<T>(job: WriteJob<T>, o?: WriteOptions): Promise<T>;
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
  return <T>(job: WriteJob<T>, o?: WriteOptions): Promise<T> => {
    const tries = { last: null as JobContext | null };
    return writer.write(inContext(job, o?.requestId ?? null, tries)).then((v) => {
      // committed: an effect that throws must not make the caller believe the write failed
      for (const fn of tries.last?.effects ?? []) { try { fn(); } catch (err) { process.emitWarning(`after-commit effect failed: ${String(err)}`); } }
      return v;
    });
  };
}

// Factories rather than named closures: tsx (esbuild keepNames) names a closure made in a function on every call.
function inContext<T>(job: WriteJob<T>, requestId: string | null, tries: { last: JobContext | null }): WriteJob<T> {
  return (tx) => {
    const context: JobContext = { requestId, effects: [] };
    tries.last = context;
    running.set(tx, context);
    try {
      const out = job(tx);
      // cleared before the writer moves on to the next job on this handle
      if (out instanceof Promise) return out.finally(leave(tx, context));
      running.delete(tx);
      return out;
    } catch (err) {
      running.delete(tx);
      throw err;
    }
  };
}

function leave(tx: DrizzleDb, context: JobContext): () => void {
  return () => { if (running.get(tx) === context) running.delete(tx); };
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
      read: opened.read,
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
    read: drizzleOver(readConn),
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
