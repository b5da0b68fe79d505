import type Database from 'better-sqlite3';
import type { DrizzleDb } from './client';

/**
 * The single writer. Every durable write is a job: `write(async tx => …)`. Jobs run one at a time on
 * the dedicated write connection inside one `BEGIN IMMEDIATE` transaction, each in its own SAVEPOINT
 * (a throwing job rolls back only its own work), and their promises settle only after COMMIT returns,
 * i.e. after the WAL is fsynced (synchronous=FULL). Jobs that arrive while a group is running or
 * committing wait for the next group, so one fsync serves many requests.
 *
 * A job may await the query builder but must never wait on the network or a timer: the whole group
 * waits with it. PostgreSQL's writer (db/pg/writer.ts) commits its jobs in groups the same way.
 */
export type WriteJob<T> = (tx: DrizzleDb) => Promise<T> | T;

export interface Writer {
  write<T>(job: WriteJob<T>): Promise<T>;
  /** Resolves when every queued job has committed; new jobs are refused afterwards. */
  close(): Promise<void>;
  /** Calls `fn` after each successful COMMIT (e.g. to wake the event dispatcher); returns an unsubscribe. */
  onCommit?(fn: () => void): () => void;
  /** Calls `fn` with each committed group's size and COMMIT duration (metrics); returns an unsubscribe. */
  onGroup?(fn: (g: GroupCommitted) => void): () => void;
  /**
   * Calls `fn` each time jobs are put back to run again because of another transaction (PostgreSQL: a
   * serialization failure, a deadlock, a unique key another instance just committed): the figure that must
   * stay 0 on the normal path. SQLite's one writer never retries.
   */
  onRetry?(fn: (r: WriteRetried) => void): () => void;
}

export interface WriteRetried { jobs: number; reason: 'serialization' | 'deadlock' | 'unique' | 'other' }

export interface GroupCommitted { jobs: number; commitSeconds: number }

interface Queued {
  job: WriteJob<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface WriterStats { groups: number; jobs: number; maxGroup: number }

export class WriterClosedError extends Error {
  constructor() { super('the database writer is closed'); }
}

/** The write transaction of a group failed as a whole: none of the group's jobs was saved. */
export class TransactionLostError extends Error {
  constructor(cause: unknown) {
    // drizzle wraps the driver's error: name the SQLite error itself (SQLITE_FULL: database or disk is full)
    let root = cause;
    for (let i = 0; i < 4 && root instanceof Error && !('code' in root) && root.cause; i++) root = root.cause;
    const code = (root as { code?: unknown })?.code;
    const what = root instanceof Error ? root.message : String(root);
    super(`the database rolled back the write transaction (${typeof code === 'string' ? `${code}: ` : ''}${what}); no job of its group was saved`, { cause });
    this.name = 'TransactionLostError';
  }
}

export class SqliteGroupCommitWriter implements Writer {
  private queue: Queued[] = [];
  private running = false;
  private scheduled = false;
  private closed = false;
  private idle: (() => void)[] = [];
  private commitListeners = new Set<() => void>();
  private groupListeners = new Set<(g: GroupCommitted) => void>();
  readonly stats: WriterStats = { groups: 0, jobs: 0, maxGroup: 0 };
  /** A job's savepoint statements, prepared once rather than parsed for every job. */
  private readonly savepoint: { open: Database.Statement; release: Database.Statement; rollback: Database.Statement };

  constructor(
    private readonly conn: Database.Database,
    private readonly tx: DrizzleDb,
    private readonly maxGroup = 512,
  ) {
    this.savepoint = { open: conn.prepare('SAVEPOINT job'), release: conn.prepare('RELEASE job'), rollback: conn.prepare('ROLLBACK TO job') };
    // A job's savepoint copies each page the job first changes into SQLite's statement journal, which
    // spills to a temporary file past 64 KiB: a withdrawal wrote about 38 pages there in 76 pwrite calls.
    // In memory it is emptied at every RELEASE (bench:ab: a withdrawal 611 → 483 µs CPU, req/s 1.25×).
    // This connection only, after the migrations: the reader's large sorts keep their temporary files.
    conn.pragma('temp_store = MEMORY');
  }

  write<T>(job: WriteJob<T>): Promise<T> {
    if (this.closed) return Promise.reject(new WriterClosedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // setImmediate rather than a microtask: requests parsed in the same I/O turn join this group.
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
        const group = this.queue.splice(0, this.maxGroup);
        try {
          await this.runGroup(group);
        } catch (error) {
          // runGroup settles its jobs itself; this is the last line so that no promise is left hanging
          // and the writer keeps serving the next group whatever went wrong
          this.abandon(group, error);
        }
      }
    } finally {
      this.running = false;
      if (this.queue.length) this.schedule();
      else for (const done of this.idle.splice(0)) done();
    }
  }

  private async runGroup(group: Queued[]) {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.conn.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const q of group) q.reject(error);
      return;
    }
    for (const q of group) {
      try {
        this.savepoint.open.run();
        const value = await q.job(this.tx);
        this.savepoint.release.run();
        outcomes.push({ ok: true, value });
      } catch (error) {
        // SQLite may have rolled back the whole transaction under this job (SQLITE_FULL, IOERR, NOMEM
        // on a statement without a statement journal, a busy timeout…): no savepoint is left to roll
        // back to, and every job of the group, done or not, has lost its work.
        if (!this.conn.inTransaction) return this.abandon(group, error);
        try {
          this.savepoint.rollback.run();
          this.savepoint.release.run();
        } catch (rollbackError) {
          return this.abandon(group, rollbackError);
        }
        outcomes.push({ ok: false, error });
      }
    }
    const commitStart = process.hrtime.bigint();
    try {
      this.conn.exec('COMMIT');
    } catch (error) {
      // Nothing of this group is durable: every job fails, including those that succeeded.
      return this.abandon(group, error);
    }
    this.stats.groups += 1;
    this.stats.jobs += group.length;
    this.stats.maxGroup = Math.max(this.stats.maxGroup, group.length);
    if (this.groupListeners.size) {
      const g = { jobs: group.length, commitSeconds: Number(process.hrtime.bigint() - commitStart) / 1e9 };
      for (const fn of this.groupListeners) fn(g);
    }
    group.forEach((q, i) => {
      const o = outcomes[i];
      if (o.ok) q.resolve(o.value);
      else q.reject(o.error);
    });
    for (const fn of this.commitListeners) {
      try { fn(); } catch (err) { console.error('[writer] onCommit listener failed', err); }
    }
  }

  /** The group's transaction is gone: roll back whatever is left of it and reject every job of the group. */
  private abandon(group: Queued[], cause: unknown) {
    try {
      if (this.conn.inTransaction) this.conn.exec('ROLLBACK');
    } catch (err) {
      console.error('[writer] rollback of a failed group failed', err);
    }
    const error = new TransactionLostError(cause);
    console.error(`[writer] ${error.message}`);
    // a promise settles once: jobs already settled (none today) are unaffected
    for (const q of group) q.reject(error);
  }

  onCommit(fn: () => void): () => void {
    this.commitListeners.add(fn);
    return () => { this.commitListeners.delete(fn); };
  }

  onGroup(fn: (g: GroupCommitted) => void): () => void {
    this.groupListeners.add(fn);
    return () => { this.groupListeners.delete(fn); };
  }

  close(): Promise<void> {
    this.closed = true;
    if (!this.running && !this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
