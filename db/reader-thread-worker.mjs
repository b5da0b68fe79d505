// The worker side of db/reader-thread.ts: one read-only connection to SQLite's file, answering one query
// at a time with its first row. Plain JavaScript with better-sqlite3 alone, so Node loads it as it is: a
// worker thread does not inherit `--import tsx` on Node 20, and loading drizzle and the schema in every
// thread would cost seconds on a loaded machine; the SQL arrives already built.
import Database from 'better-sqlite3';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

// Background reads yield the CPU to the server's own thread: on Linux a nice value is per thread (who = 0
// is this thread alone); elsewhere it would be the whole process's, so it is left alone there.
if (workerData.nice && process.platform === 'linux') {
  try { setPriority(workerData.nice); } catch { /* not permitted: the reads simply compete as equals */ }
}

const conn = new Database(workerData.path, { readonly: true, fileMustExist: true });
conn.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
parentPort.on('message', ({ id, sql, params }) => {
  try {
    parentPort.postMessage({ id, row: conn.prepare(sql).get(...params) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
parentPort.on('close', () => conn.close());
