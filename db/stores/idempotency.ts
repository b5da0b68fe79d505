import { and, eq, lt, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { onPostgres } from '../dialect';
import { first, pipelined, touched, tryLockName } from '../query';
import { idempotencyKeys } from '../schema';

/** Where an answer is kept: one account's key of one named operation. */
// (type aliases, not interfaces: a prepared statement's execute takes a Record of its placeholders)
export type IdempotencySlot = { accountId: string; operation: string; key: string };

/** A stored answer: the request's fingerprint and the operation's plain result as JSON. */
export type StoredAnswer = {
  accountId: string;
  operation: string;
  key: string;
  fingerprint: string;
  result: string;
  createdAt: string;
  expiresAt: string;
};

/** What a job that may store an answer in a slot says of it before the answer is known. */
export type AnswerClaim = Pick<StoredAnswer, 'fingerprint' | 'createdAt' | 'expiresAt'>;

/** The result of a claim (PostgreSQL): a slot's row whose answer is not stored yet, only ever seen by its own job. */
const CLAIMED = '';

// every idempotent create runs these: prepared once per connection
const ph = (name: string) => sql.placeholder(name);
const bySlot = and(eq(idempotencyKeys.accountId, ph('accountId')), eq(idempotencyKeys.operation, ph('operation')),
  eq(idempotencyKeys.key, ph('key')));
const lookup = perConnection((d) => d.select({ expiresAt: idempotencyKeys.expiresAt }).from(idempotencyKeys).where(bySlot).prepare());
const statements = perConnection((d) => ({
  find: d.select().from(idempotencyKeys).where(bySlot).prepare(),
  remove: d.delete(idempotencyKeys).where(bySlot).prepare(),
  insert: d.insert(idempotencyKeys).values({
    accountId: ph('accountId'), operation: ph('operation'), key: ph('key'), fingerprint: ph('fingerprint'),
    result: ph('result'), createdAt: ph('createdAt'), expiresAt: ph('expiresAt'),
  }).prepare(),
}));
const slotColumns = [idempotencyKeys.accountId, idempotencyKeys.operation, idempotencyKeys.key];
// PostgreSQL: the slot taken and read in one statement (see lockedAnswer), and the answer stored over the claim
const pgStatements = perConnection((d) => ({
  claim: d.insert(idempotencyKeys).values({
    accountId: ph('accountId'), operation: ph('operation'), key: ph('key'), fingerprint: ph('fingerprint'),
    result: CLAIMED, createdAt: ph('createdAt'), expiresAt: ph('expiresAt'),
  }).onConflictDoUpdate({ target: slotColumns, set: { key: sql`excluded.key` } }).returning().prepare(),
  store: d.insert(idempotencyKeys).values({
    accountId: ph('accountId'), operation: ph('operation'), key: ph('key'), fingerprint: ph('fingerprint'),
    result: ph('result'), createdAt: ph('createdAt'), expiresAt: ph('expiresAt'),
  }).onConflictDoUpdate({
    target: slotColumns,
    set: { fingerprint: sql`excluded.fingerprint`, result: sql`excluded.result`, createdAt: sql`excluded.created_at`, expiresAt: sql`excluded.expires_at` },
  }).prepare(),
}));

/** Idempotency keys: the answers of idempotent creates, kept a day under their key. */
export class IdempotencyStore {
  constructor(private readonly db: DrizzleDb) {}

  /** When the answer stored in the slot expires, if there is one (a look before the write job). */
  async answerExpiry(slot: IdempotencySlot): Promise<{ expiresAt: string } | undefined> {
    return first(lookup(this.db).execute(slot));
  }

  /**
   * Inside a write job: takes the slot until the job commits and reads the answer stored in it, if any.
   * `claim` is what the job will store with its answer (storeAnswer), if it stores one.
   *
   * SQLite's single writer runs one job at a time: a read. On PostgreSQL a second request of the same key,
   * on another instance, must wait for the first one's job and then see its answer. That is one statement: an
   * INSERT of the slot's row (answer not known yet) that meets the row of a job under way at the primary key
   * and waits for it to end, and on meeting a committed row locks it and returns it as it now is (ON
   * CONFLICT DO UPDATE follows the latest committed version, whatever the statement's snapshot). A lock
   * taken inside a SELECT (a sub-select of pg_advisory_xact_lock) would not do: the SELECT reads with the
   * snapshot of its start, taken before the wait, so it would miss the answer it waited for. The claimed row
   * goes with the job: storeAnswer writes the answer over it, and a job that ends without storing one must
   * fail, so that its savepoint takes the claim back.
   */
  async lockedAnswer(slot: IdempotencySlot, claim: AnswerClaim): Promise<StoredAnswer | undefined> {
    if (!onPostgres) return first(statements(this.db).find.execute(slot));
    const row = (await pgStatements(this.db).claim.execute({ ...slot, ...claim }))[0] as StoredAnswer | undefined;
    return row && row.result !== CLAIMED ? row : undefined;
  }

  /** Drops the slot's (expired) answer, so a new one can be stored. */
  async forget(slot: IdempotencySlot): Promise<void> {
    await pipelined(this.db, () => statements(this.db).remove.execute(slot));
  }

  /** Inside a write job: stores the answer in the slot (on PostgreSQL over the job's claim, see lockedAnswer). */
  async storeAnswer(answer: StoredAnswer): Promise<void> {
    if (onPostgres) await pipelined(this.db, () => pgStatements(this.db).store.execute(answer));
    else await pipelined(this.db, () => statements(this.db).insert.execute(answer));
  }

  /**
   * Inside a write job: deletes the answers expired at `now`; how many. One purge at a time: when
   * another job (another instance) holds the purge's lock, nothing is done and 0 is answered.
   */
  async purgeExpired(now: string): Promise<number> {
    if (!(await tryLockName(this.db, 'idempotency-cleanup'))) return 0;
    return touched(this.db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now)).returning({ key: idempotencyKeys.key }));
  }
}
