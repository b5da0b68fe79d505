import { PostgresJsSession, PostgresJsTransaction } from 'drizzle-orm/postgres-js/session';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';

/**
 * A PostgreSQL transaction for drizzle, with two costs of drizzle's own `db.transaction(fn, config)` removed:
 *
 * - Its mode is given to BEGIN (`begin isolation level read committed`), one statement, where drizzle sends
 *   `begin` and then `set transaction …`: a round trip less per transaction.
 * - Its drizzle handle is reused. drizzle makes a new handle for every transaction, so the statements the
 *   domain prepares once per handle (db/prepared.ts perConnection) were built again, SQL text and all, in
 *   every write job: that building was about an eighth of the API's CPU on POST /withdraw/pix. Here a
 *   handle is taken from a free list, pointed at the transaction's connection for the transaction's
 *   length, and given back after; the statements prepared on it read their connection when they run.
 *   A handle serves one transaction at a time; after its transaction it refuses queries until the next.
 */
type AnyPgDb = PostgresJsDatabase<any>;
interface Handle { session: PostgresJsSession<any, any, any>; tx: PostgresJsTransaction<any, any> }

/** What a handle's connection is between its transactions: nothing may run on it. */
const ENDED = new Proxy({}, {
  get(_t, prop) {
    if (prop === 'then') return undefined;
    throw new Error('a query ran on a transaction that has ended');
  },
});

/** A session whose prepared statements run on the session's current connection, whichever it is then. */
function reboundSession(dialect: any, schema: any, options: any): PostgresJsSession<any, any, any> {
  const session = new PostgresJsSession(ENDED as never, dialect, schema, options);
  const prepareQuery = session.prepareQuery.bind(session) as (...a: unknown[]) => object;
  (session as unknown as { prepareQuery: (...a: unknown[]) => object }).prepareQuery = (...a: unknown[]) => {
    const query = prepareQuery(...a);
    Object.defineProperty(query, 'client', { get: () => session.client, configurable: true });
    return query;
  };
  return session;
}

const freeHandles = new WeakMap<object, Handle[]>();

/**
 * What a transaction's job may do besides querying through its handle (the group commit writer, db/pg/writer.ts):
 * - `savepoint(fn)`: runs `fn` in a SAVEPOINT of the transaction, on the same handle. If `fn` throws (or one of
 *   its queries failed), the work since the savepoint is rolled back to it and the error rethrown; the
 *   transaction goes on. postgres.js's own savepoint scope does that, so that a failed query inside it does not
 *   doom the whole transaction (its outer scope rolls everything back when any of its own queries failed).
 * - `probe()`: one query on the transaction itself, which fails if the transaction is aborted (so that a COMMIT,
 *   which PostgreSQL answers with ROLLBACK on an aborted transaction and no error, is never sent blindly).
 */
export interface TransactScope<Tx> {
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  probe(): Promise<void>;
}

export function transact<T, Tx = PostgresJsTransaction<any, any>>(db: AnyPgDb, mode: string, job: (tx: Tx, scope: TransactScope<Tx>) => Promise<T>): Promise<T> {
  const root = (db as unknown as { session: PostgresJsSession<any, any, any> }).session;
  const internals = root as unknown as { client: PostgresJsSession<any, any, any>['client']; dialect: any; schema: any; options: any };
  let free = freeHandles.get(db);
  if (!free) { free = []; freeHandles.set(db, free); }
  const handles = free;
  // what the jobs that stood learned, true once COMMIT has returned (whenCommitted)
  const committed: (() => void)[] = [];
  const done = internals.client.begin(mode, async (client: unknown) => {
    let h = handles.pop();
    if (!h) {
      const session = reboundSession(internals.dialect, internals.schema, internals.options);
      h = { session, tx: new PostgresJsTransaction(internals.dialect, session, internals.schema) };
    }
    const handle = h;
    const session = handle.session as unknown as { client: unknown };
    session.client = client;
    type Scoped = { savepoint: (fn: (sp: unknown) => Promise<unknown>) => Promise<unknown>; unsafe: (q: string) => Promise<unknown> };
    const scope: TransactScope<Tx> = {
      savepoint: <R>(fn: (tx: Tx) => Promise<R>) => (client as Scoped).savepoint(async (sp: unknown) => {
        session.client = sp;
        const work = new JobWork();
        jobWork.set(handle.tx, work);
        try {
          let value: R;
          try {
            value = await fn(handle.tx as unknown as Tx);
          } catch (error) {
            // a statement that failed after a pipelined write had failed only says "transaction aborted" (25P02):
            // the write's error is the cause
            await work.settled();
            throw work.failure && sqlStateOf(error) === ABORTED ? work.failure.error : error;
          }
          await work.settled();
          if (work.failure) throw work.failure.error;
          committed.push(...work.afterCommit);
          return value;
        } finally {
          jobWork.delete(handle.tx);
          session.client = client;
        }
      }) as Promise<R>,
      probe: async () => { await (client as Scoped).unsafe('select 1'); },
    };
    try {
      return await job(handle.tx as unknown as Tx, scope);
    } finally {
      (handle.session as unknown as { client: unknown }).client = ENDED;
      handles.push(handle);
    }
  }) as Promise<T>;
  return done.then((value) => {
    for (const fn of committed) fn();
    return value;
  });
}

const ABORTED = '25P02';

/** The SQLSTATE of a driver error, through drizzle's wrapping (DrizzleQueryError.cause). */
function sqlStateOf(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 4; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * What one job of a transaction (one savepoint) has sent without waiting for its answer, and what it learned
 * that becomes true at COMMIT.
 *
 * Pipelined writes: a write whose answer the job does not read (an insert, an update, a lock) is sent and not
 * awaited, so it travels to the server in one socket write with the statements the job sends next, up to the
 * next statement it does wait for: one round trip for all of them instead of one each. postgres.js pipelines
 * the queries of one connection, and the server runs them in the order they were sent, which is the order of
 * the calls (drizzle hands a statement to postgres.js synchronously within the call). A write that fails
 * aborts the transaction, so every statement after it fails with 25P02; the job ends with that write's error
 * (the first failed in the order sent), as if it had been awaited, and its savepoint is rolled back as before.
 * Before the job's savepoint is left, every pipelined write has been answered.
 */
class JobWork {
  private readonly pending: Promise<void>[] = [];
  /** The first pipelined write that failed, in the order sent. */
  failure: { error: unknown } | undefined;
  private failedAt = Infinity;
  readonly afterCommit: (() => void)[] = [];

  send(write: PromiseLike<unknown>) {
    const at = this.pending.length;
    this.pending.push(Promise.resolve(write).then(() => {}, (error: unknown) => {
      if (at < this.failedAt) { this.failedAt = at; this.failure = { error }; }
    }));
  }

  async settled(): Promise<void> {
    // writes pipelined while waiting are awaited too
    for (let n = 0; n < this.pending.length; n = this.pending.length) await Promise.all(this.pending.slice(n));
  }
}

const jobWork = new WeakMap<object, JobWork>();

/**
 * Inside a write job on PostgreSQL: sends `write` pipelined (see JobWork) and returns at once; its failure
 * becomes the job's. Elsewhere (SQLite, a read, a transaction without savepoints) it is awaited here.
 * Only for a write whose answer nothing reads and whose failure nobody catches to go on.
 */
export async function pipelinedWrite(handle: object, write: () => PromiseLike<unknown>): Promise<void> {
  const work = jobWork.get(handle);
  if (!work) { await write(); return; }
  work.send(write());
}

/**
 * Inside a write job on PostgreSQL: runs `fn` once the transaction of the job has committed, and never if the
 * job's savepoint or the transaction is rolled back (a cache of what only a committed row says). Outside a
 * job, at once: what the pool reads outside a transaction is committed.
 */
export function whenCommitted(handle: object, fn: () => void): void {
  const work = jobWork.get(handle);
  if (work) work.afterCommit.push(fn);
  else fn();
}
