import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { sql } from 'drizzle-orm';
import { databaseUnavailable } from '../unavailable';
import { WriterClosedError, type GroupCommitted, type WriteRetried } from '../writer';
import type * as pgSchema from './schema';
import { transact, type TransactScope } from './transact';

/**
 * The PostgreSQL side of the `Writer` seam (db/writer.ts), with group commit as on SQLite: the write jobs
 * that arrive while a group is running or committing are gathered and run together in ONE transaction
 * (READ COMMITTED) on a pooled connection, each in its own SAVEPOINT, with one COMMIT; every job is
 * answered only after that COMMIT returned (synchronous_commit on: the WAL is flushed). One group is in
 * flight per instance at a time, and one at a time across instances too (GROUP_LOCK). A hot row (a busy
 * merchant's ledger_books) is then locked once per group rather than once per job, and its lock is held across one COMMIT fsync for the whole group, so one
 * account takes many withdrawals per fsync instead of one.
 *
 * At most 64 jobs per group (MAX_GROUP): each job that writes is a subtransaction with its own xid, and a
 * backend caches at most 64 of them (PGPROC_MAX_CACHED_SUBXIDS); past that every snapshot taken by any
 * backend has to look in pg_subtrans.
 *
 * Failures:
 * - A job that throws (a rule's DomainError, an idempotency replay, any error) is rolled back to its
 *   savepoint, leaves nothing behind and does not fail the others; it is answered with its error after
 *   the group's COMMIT (if the group is lost, it runs again with the others: its refusal may have rested
 *   on an earlier job of the group).
 * - A job whose statement met a serialization failure (40001: e.g. a ledger line computed from a balance
 *   that another instance moved, see db/pg/sql/triggers.sql), a deadlock (40P01, with another instance's
 *   group) or a unique violation (see UNIQUE_VIOLATION) is rolled back to its savepoint too and runs again
 *   in a later group, after a jittered, growing pause for the first two; the rest of its group commits.
 * - The group's transaction itself failing (BEGIN, a SAVEPOINT or ROLLBACK TO, a lost connection, COMMIT)
 *   saves nothing: on 40001/40P01/23505 all its jobs run again (each counts the try), otherwise every job
 *   is answered with the error (a lost database: the edge answers 503, db/unavailable.ts).
 * A job that met 40001/40P01 `attempts` times becomes a `WriteContentionError` carrying a retry-after,
 * for the edge to answer 503 (never a wrong balance).
 *
 * A job may await its queries but must never wait on the network or a timer: the whole group waits with it.
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
  /** Tries in all of one job, the first included (default 5). */
  attempts?: number;
  /** Pause before the n-th retry: a random duration up to baseDelayMs × 2^(n-1), capped at maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Jobs (SAVEPOINTs) per group at most: 64 by default and at most (PGPROC_MAX_CACHED_SUBXIDS, see above). */
  maxGroup?: number;
  /** Whether each group first takes GROUP_LOCK, so that the groups of all instances run one at a time (default true). */
  serializeGroups?: boolean;
}

/**
 * The transaction-scoped advisory lock every group takes first (the two-int key space: the domain's named
 * locks, db/query.ts, use the bigint one). Without it, two instances' groups deadlock whenever their jobs
 * lock the same rows in different orders — within one job the books are locked in id order, but a group
 * of many jobs holds the rows of all of them: group A (jobs on books 1 then 2) and group B (jobs on books
 * 2 then 1) each wait for the other. PostgreSQL breaks that only after deadlock_timeout (1 s by default),
 * with every job of both groups waiting. And every withdrawal's group touches the same system books, so
 * groups of different instances wait for each other on those rows anyway: taking turns explicitly costs one
 * round trip per group and no concurrency that was really there. Measured with two instances on one hot
 * account (bench/pg-ab.ts, PGAB_INSTANCES=2): 57-77 req/s and p99 1.5-2.6 s without it, 100-118 req/s and
 * p99 0.7 s with it.
 */
export const GROUP_LOCK = [0x70697877, 1] as const;

export interface PgWriterStats { groups: number; jobs: number; maxGroup: number; retries: number; gaveUp: number }

/** Most subtransactions a backend keeps in its shared cache (PGPROC_MAX_CACHED_SUBXIDS): past it, every snapshot of every backend pays. */
export const MAX_GROUP = 64;

interface Queued {
  job: PgWriteJob<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Tries so far that ended in a serialization failure or a deadlock (of the job or of its whole group). */
  attempts: number;
  uniqueRetries: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown } | { retry: unknown };

/** The group's transaction failed as a whole (outside any job's savepoint, or at COMMIT): nothing of it was saved. */
class GroupLost extends Error {
  constructor(readonly reason: unknown) { super('the group transaction was lost', { cause: reason }); }
}

export class PgGroupCommitWriter {
  private queue: Queued[] = [];
  private running = false;
  private scheduled = false;
  private closed = false;
  /** Jobs waiting out their backoff pause before they join a group again. */
  private delayed = 0;
  private idle: (() => void)[] = [];
  private commitListeners = new Set<() => void>();
  private groupListeners = new Set<(g: GroupCommitted) => void>();
  private retryListeners = new Set<(r: WriteRetried) => void>();
  readonly stats: PgWriterStats = { groups: 0, jobs: 0, maxGroup: 0, retries: 0, gaveUp: 0 };
  private readonly o: Required<PgWriterOptions>;

  constructor(private readonly db: PgDb, o: PgWriterOptions = {}) {
    this.o = {
      attempts: o.attempts ?? 5, baseDelayMs: o.baseDelayMs ?? 5, maxDelayMs: o.maxDelayMs ?? 200,
      random: o.random ?? Math.random, sleep: o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      maxGroup: Math.max(1, Math.min(MAX_GROUP, o.maxGroup ?? MAX_GROUP)),
      serializeGroups: o.serializeGroups ?? true,
    };
  }

  write<T>(job: PgWriteJob<T>): Promise<T> {
    if (this.closed) return Promise.reject(new WriterClosedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job: job as PgWriteJob<unknown>, resolve: resolve as (v: unknown) => void, reject, attempts: 0, uniqueRetries: 0 });
      this.schedule();
    });
  }

  private schedule() {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // setImmediate rather than a microtask: requests parsed in the same I/O turn join this group
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        const group = this.queue.splice(0, this.o.maxGroup);
        try {
          await this.runGroup(group);
        } catch (error) {
          // runGroup settles or requeues its jobs itself: this is the last line, so no promise is left hanging
          console.error('[writer] a group failed unexpectedly', error);
          for (const q of group) q.reject(error);
        }
      }
    } finally {
      this.running = false;
      if (this.queue.length) this.schedule();
      else this.wakeIdle();
    }
  }

  private wakeIdle() {
    if (!this.running && !this.scheduled && this.queue.length === 0 && this.delayed === 0) for (const done of this.idle.splice(0)) done();
  }

  private async runGroup(group: Queued[]) {
    const outcomes: Outcome[] = [];
    let jobsEnded = 0n;
    try {
      await transact(this.db, 'isolation level read committed', async (tx: PgTx, scope: TransactScope<PgTx>) => {
        // one group at a time across the instances too (see GROUP_LOCK)
        if (this.o.serializeGroups) await tx.execute(sql`SELECT pg_advisory_xact_lock(${GROUP_LOCK[0]}::int, ${GROUP_LOCK[1]}::int)`);
        for (const q of group) {
          // what the job threw, to tell it from a failed ROLLBACK TO (the savepoint scope rethrows that instead)
          let thrown: { error: unknown } | undefined;
          let started = false;
          try {
            const value = await scope.savepoint(async (sp) => {
              started = true;
              try {
                return await q.job(sp);
              } catch (error) {
                thrown = { error };
                throw error;
              }
            });
            outcomes.push({ ok: true, value });
          } catch (error) {
            // the SAVEPOINT itself failed: the transaction is gone or aborted
            if (!started) throw new GroupLost(error);
            // the connection is gone (or the server going): so is the transaction, run nothing more on it
            if (databaseUnavailable(error) !== null) throw new GroupLost(error);
            if (!thrown || error !== thrown.error) {
              // not what the job threw: postgres.js answers with the first failed query of the savepoint when the
              // job caught it and went on (or threw "transaction aborted", 25P02), or with the error of the
              // ROLLBACK TO itself. Ask the transaction whether it still stands.
              try { await scope.probe(); } catch (probeError) { throw new GroupLost(probeError); }
            }
            // rolled back to its savepoint: nothing of this job is left, the others go on
            outcomes.push(this.jobFailed(q, error));
          }
        }
        jobsEnded = process.hrtime.bigint();
        // postgres.js sends COMMIT once this returns; synchronous_commit is the server's (on by default)
      });
    } catch (error) {
      const reason = error instanceof GroupLost ? error.reason : error;
      return this.groupLost(group, reason);
    }
    const commitSeconds = jobsEnded ? Number(process.hrtime.bigint() - jobsEnded) / 1e9 : 0;
    this.stats.groups += 1;
    this.stats.maxGroup = Math.max(this.stats.maxGroup, group.length);
    let committed = 0;
    group.forEach((q, i) => {
      const o = outcomes[i];
      if ('retry' in o) return this.retryLater([q], o.retry);
      committed += 1;
      if (o.ok) q.resolve(o.value);
      else q.reject(o.error);
    });
    this.stats.jobs += committed;
    for (const fn of this.groupListeners) {
      try { fn({ jobs: committed, commitSeconds }); } catch (err) { console.error('[writer] onGroup listener failed', err); }
    }
    for (const fn of this.commitListeners) {
      try { fn(); } catch (err) { console.error('[writer] onCommit listener failed', err); }
    }
  }

  /**
   * A job that threw, rolled back to its savepoint. A rule's refusal (a DomainError) or any other error is its
   * answer, given after the group's COMMIT (if the group is lost, the job runs again: its refusal may have
   * rested on the work of a job before it in the group). A serialization failure, a deadlock or a unique
   * violation means another transaction (another instance) moved what the job read: it runs again, alone
   * of its group, in a later group.
   */
  private jobFailed(q: Queued, error: unknown): Outcome {
    const state = sqlState(error) ?? '';
    if (state === UNIQUE_VIOLATION && q.uniqueRetries < UNIQUE_RETRIES) {
      q.uniqueRetries += 1;
      return { retry: error };
    }
    if (!RETRYABLE.has(state)) return { ok: false, error };
    q.attempts += 1;
    if (q.attempts >= this.o.attempts) {
      this.stats.gaveUp += 1;
      return { ok: false, error: new WriteContentionError(q.attempts, error) };
    }
    return { retry: error };
  }

  /** Nothing of the group was saved: its jobs run again (a retryable failure), or are all answered with the error. */
  private groupLost(group: Queued[], reason: unknown) {
    const state = sqlState(reason) ?? '';
    if (!RETRYABLE.has(state) && state !== UNIQUE_VIOLATION) {
      console.error(`[writer] the group's transaction was lost, none of its ${group.length} jobs was saved:`, reason);
      for (const q of group) q.reject(reason);
      return;
    }
    const again: Queued[] = [];
    for (const q of group) {
      const o = this.jobFailed(q, reason);
      if ('retry' in o) again.push(q);
      else q.reject((o as { error: unknown }).error);
    }
    this.retryLater(again, reason);
  }

  /** Puts jobs back at the head of the queue, after the backoff pause of a serialization failure or deadlock. */
  private retryLater(jobs: Queued[], reason: unknown) {
    if (jobs.length === 0) return;
    this.stats.retries += jobs.length;
    const state = sqlState(reason);
    const why: WriteRetried['reason'] = state === '40001' ? 'serialization' : state === '40P01' ? 'deadlock' : state === UNIQUE_VIOLATION ? 'unique' : 'other';
    for (const fn of this.retryListeners) {
      try { fn({ jobs: jobs.length, reason: why }); } catch (err) { console.error('[writer] onRetry listener failed', err); }
    }
    const contention = RETRYABLE.has(sqlState(reason) ?? '');
    const attempt = Math.max(1, ...jobs.map((q) => q.attempts));
    const ceiling = Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** (attempt - 1));
    const pause = contention ? this.o.sleep(Math.floor(this.o.random() * ceiling)) : Promise.resolve();
    this.delayed += jobs.length;
    void pause.then(() => {
      this.delayed -= jobs.length;
      this.queue.unshift(...jobs);
      this.schedule();
    });
  }

  /** Calls `fn` after each committed group (to wake this instance's loops; other instances hear NOTIFY). */
  onCommit(fn: () => void): () => void {
    this.commitListeners.add(fn);
    return () => { this.commitListeners.delete(fn); };
  }

  /** Calls `fn` after each committed group with its size and COMMIT duration (the same metrics as SQLite's groups). */
  onGroup(fn: (g: GroupCommitted) => void): () => void {
    this.groupListeners.add(fn);
    return () => { this.groupListeners.delete(fn); };
  }

  onRetry(fn: (r: WriteRetried) => void): () => void {
    this.retryListeners.add(fn);
    return () => { this.retryListeners.delete(fn); };
  }

  /** Resolves when every queued job has been answered; new jobs are refused afterwards. */
  close(): Promise<void> {
    this.closed = true;
    return new Promise((resolve) => {
      this.idle.push(resolve);
      this.wakeIdle();
    });
  }
}
