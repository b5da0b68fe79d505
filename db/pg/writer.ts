import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { GroupCommitted } from '../writer';
import type * as pgSchema from './schema';
import { transact } from './transact';

/**
 * The PostgreSQL side of the `Writer` seam (db/writer.ts), for the step that moves the domain onto
 * PostgreSQL: each job is ONE transaction on a pooled connection (READ COMMITTED), committed before its
 * promise settles. There is no group commit across jobs — PostgreSQL's own group commit and the pool
 * take that role — so a failing job never takes others down with it.
 *
 * Serialization failures (40001: e.g. a ledger line computed from a balance that moved, see
 * db/pg/sql/triggers.sql) and deadlocks (40P01) are the database saying "run that again": the whole
 * job is retried, a bounded number of times, after a jittered, growing pause. A job that still fails
 * becomes a `WriteContentionError` carrying a retry-after, for the edge to answer 503 (never a wrong
 * balance). A unique violation is retried at most twice (see UNIQUE_VIOLATION). Any other error rolls
 * the job back and is rethrown as it is.
 */
export type PgDb = PostgresJsDatabase<typeof pgSchema>;
export type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0];
export type PgWriteJob<T> = (tx: PgTx) => Promise<T>;

const RETRYABLE = new Set(['40001', '40P01']);
/**
 * A unique violation (23505) from a job that checked first and then inserted: under READ COMMITTED another
 * instance can commit the same key between the check and the insert (a ledger book created on first use,
 * an external_ref, an idempotency key). Run again, the job's check sees the committed row and answers as
 * the domain does for a duplicate. A bounded few times only: a violation that repeats is a bug, and is
 * rethrown as it is (a 500 that is logged), never turned into a 503.
 */
const UNIQUE_VIOLATION = '23505';
const UNIQUE_RETRIES = 2;

/** The SQLSTATE of a driver error, through drizzle's wrapping (DrizzleQueryError.cause). */
export function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export class WriteContentionError extends Error {
  readonly retryAfterSeconds = 1;
  constructor(readonly attempts: number, cause: unknown) {
    super(`the write was retried ${attempts} times and still met concurrent writes (${sqlState(cause)}); nothing was saved`, { cause });
    this.name = 'WriteContentionError';
  }
}

export interface PgWriterOptions {
  /** Tries in all, the first included (default 5). */
  attempts?: number;
  /** Pause before the n-th retry: a random duration up to baseDelayMs × 2^(n-1), capped at maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class PgTransactionWriter {
  private closed = false;
  private running = 0;
  private idle: (() => void)[] = [];
  private commitListeners = new Set<() => void>();
  private groupListeners = new Set<(g: GroupCommitted) => void>();
  readonly stats = { jobs: 0, retries: 0, gaveUp: 0 };
  private readonly o: Required<PgWriterOptions>;

  constructor(private readonly db: PgDb, o: PgWriterOptions = {}) {
    this.o = {
      attempts: o.attempts ?? 5, baseDelayMs: o.baseDelayMs ?? 5, maxDelayMs: o.maxDelayMs ?? 200,
      random: o.random ?? Math.random, sleep: o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    };
  }

  async write<T>(job: PgWriteJob<T>): Promise<T> {
    if (this.closed) throw new Error('the database writer is closed');
    this.running += 1;
    try {
      let uniqueRetries = 0;
      for (let attempt = 1; ; attempt++) {
        try {
          // the job returns inside the transaction and drizzle then sends COMMIT: the time from the one to
          // the transaction's promise is the COMMIT round trip (a job is a group of one here)
          let jobEnded = 0n;
          const value = await transact(this.db, 'isolation level read committed', async (tx: PgTx) => {
            const v = await job(tx);
            jobEnded = process.hrtime.bigint();
            return v;
          });
          const commitSeconds = Number(process.hrtime.bigint() - jobEnded) / 1e9;
          this.stats.jobs += 1;
          for (const fn of this.groupListeners) {
            try { fn({ jobs: 1, commitSeconds }); } catch (err) { console.error('[writer] onGroup listener failed', err); }
          }
          for (const fn of this.commitListeners) {
            try { fn(); } catch (err) { console.error('[writer] onCommit listener failed', err); }
          }
          return value;
        } catch (err) {
          const state = sqlState(err) ?? '';
          if (state === UNIQUE_VIOLATION && uniqueRetries < UNIQUE_RETRIES) {
            uniqueRetries += 1;
            this.stats.retries += 1;
            continue;
          }
          if (!RETRYABLE.has(state)) throw err;
          if (attempt >= this.o.attempts) {
            this.stats.gaveUp += 1;
            throw new WriteContentionError(attempt, err);
          }
          this.stats.retries += 1;
          const ceiling = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (attempt - 1));
          await this.o.sleep(Math.floor(this.o.random() * ceiling));
        }
      }
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /** Calls `fn` after each committed job (to wake this instance's loops; other instances hear NOTIFY). */
  onCommit(fn: () => void): () => void {
    this.commitListeners.add(fn);
    return () => { this.commitListeners.delete(fn); };
  }

  /** Calls `fn` after each committed job with its COMMIT duration (the same metrics as SQLite's groups). */
  onGroup(fn: (g: GroupCommitted) => void): () => void {
    this.groupListeners.add(fn);
    return () => { this.groupListeners.delete(fn); };
  }

  /** Resolves when the jobs under way have finished; new jobs are refused afterwards. */
  close(): Promise<void> {
    this.closed = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
