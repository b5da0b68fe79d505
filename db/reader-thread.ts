import type { SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { Worker } from 'node:worker_threads';

/**
 * SQLite reads off the event loop's thread: a worker thread with a read-only connection of its own runs
 * each query and hands back its first row, so a query that scans a million rows (the ledger audit's)
 * blocks that thread, never the server's. The SQL is built here and sent as text with its parameters.
 */
export interface ReaderThread {
  /** The first row of the query, as `rawRow` returns it on the read connection. */
  first<T>(query: SQL): Promise<T | undefined>;
  /** Ends the thread (a query still running is abandoned and rejects) and its connection. */
  close(): Promise<void>;
}

const ENTRY = new URL('./reader-thread-worker.mjs', import.meta.url);
const dialect = new SQLiteSyncDialect();
/** As db/client.ts's connections: a reader waits this long for the writer's checkpoint rather than fail. */
const BUSY_TIMEOUT_MS = 5_000;

/** `nice`: lower the thread's CPU priority (Linux, 0–19) for background work such as the ledger audit. */
export function openReaderThread(path: string, o: { nice?: number } = {}): ReaderThread {
  const worker = new Worker(ENTRY, { workerData: { path, busyTimeoutMs: BUSY_TIMEOUT_MS, nice: o.nice ?? 0 } });
  // a process that is otherwise done (a command, a test) need not wait for reads nobody will use
  worker.unref();
  const waiting = new Map<number, { resolve: (row: unknown) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  let ended: Error | null = null;
  const endAll = (err: Error) => {
    ended ??= err;
    for (const w of waiting.values()) w.reject(ended);
    waiting.clear();
  };
  worker.on('message', (m: { id: number; row?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.row);
  });
  worker.on('error', (err) => endAll(err));
  worker.on('exit', (code) => endAll(new Error(`the reader thread ended (exit code ${code})`)));
  return {
    first<T>(query: SQL) {
      if (ended) return Promise.reject(ended);
      const { sql, params } = dialect.sqlToQuery(query);
      const id = nextId++;
      return new Promise<T | undefined>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (row: unknown) => void, reject });
        worker.postMessage({ id, sql, params });
      });
    },
    async close() {
      endAll(new Error('the reader thread was closed'));
      await worker.terminate();
    },
  };
}
