import { onPostgres } from './dialect';
import { openReaderThread } from './reader-thread';
import { ledgerAuditReads, type LedgerAuditReads } from './stores/ledger';
import type { Stores } from './stores';

/**
 * Where the ledger audit's scans run, the engine's way: on SQLite in a worker thread with a read-only
 * connection of its own (one full audit of a million lines holds a thread for seconds, never the event
 * loop's); on PostgreSQL as queries on the read pool (network I/O the loop only waits for).
 */
export type AuditReadsRunner = <T>(audit: (reads: LedgerAuditReads) => Promise<T>, signal: AbortSignal) => Promise<T>;

/**
 * SQLite: the scans on a reader thread over the file at `path`, a thread per audit (nothing kept open
 * between audits, which are a minute apart); `signal` ends the thread.
 */
export function auditReadsInThread(path: string): AuditReadsRunner {
  return async (audit, signal) => {
    // a low priority: on a busy two-core machine the audit's scans give way to requests (measured: at the
    // same priority a million-line audit pushed /healthz's p99 to 170 ms); not the lowest, so that a
    // saturated instance still finishes an audit within readiness's overdue limit (at 19 one took 105 s here)
    const reader = openReaderThread(path, { nice: 10 });
    const stop = () => { void reader.close(); };
    signal.addEventListener('abort', stop);
    try {
      return await audit(ledgerAuditReads((query) => reader.first(query)));
    } finally {
      signal.removeEventListener('abort', stop);
      await reader.close();
    }
  };
}

/** The engine's way: a worker thread on SQLite's file, the read pool on PostgreSQL. */
export function auditReadsRunner(db: { read: Stores; path: string }): AuditReadsRunner {
  return onPostgres ? (audit) => audit(db.read.ledger.auditReads()) : auditReadsInThread(db.path);
}
