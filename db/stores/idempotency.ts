import { and, eq, lt, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first, lockName, pipelined, touched, tryLockName } from '../query';
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

/** Idempotency keys: the answers of idempotent creates, kept a day under their key. */
export class IdempotencyStore {
  constructor(private readonly db: DrizzleDb) {}

  /** When the answer stored in the slot expires, if there is one (a look before the write job). */
  async answerExpiry(slot: IdempotencySlot): Promise<{ expiresAt: string } | undefined> {
    return first(lookup(this.db).execute(slot));
  }

  /**
   * Inside a write job: takes the slot's lock until the job commits (PostgreSQL: a second request of the
   * same key, on any instance, waits here for the first one's job, then sees its answer), and reads the
   * answer stored in the slot, if any.
   */
  async lockedAnswer(slot: IdempotencySlot): Promise<StoredAnswer | undefined> {
    await lockName(this.db, `idempotency\n${slot.accountId}\n${slot.operation}\n${slot.key}`);
    return first(statements(this.db).find.execute(slot));
  }

  /** Drops the slot's (expired) answer, so a new one can be stored. */
  async forget(slot: IdempotencySlot): Promise<void> {
    await pipelined(this.db, () => statements(this.db).remove.execute(slot));
  }

  async storeAnswer(answer: StoredAnswer): Promise<void> {
    await pipelined(this.db, () => statements(this.db).insert.execute(answer));
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
