import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { disputes, events, transactions, webhooks, withdrawalBatches, withdrawals } from '../schema';
import { first, pipelined, tryLockName } from '../query';
import { jsonStringList, onPostgres } from '../dialect';
import type { StoredEventCategory } from '../../contract/enums';

/** An event to record (its seq is the database's). */
export interface NewEvent {
  id: string;
  accountId: string;
  type: string;
  category: StoredEventCategory;
  resourceId: string;
  /** The resource as JSON. */
  payload: string;
  createdAt: string;
  requestId: string | null;
}

/** An event the dispatcher has not fanned out yet. */
export interface UndispatchedEvent {
  seq: number;
  id: string;
  accountId: string;
  category: StoredEventCategory;
  resourceId: string;
}

/** An active, unpaused, live webhook an event may be fanned out to; `events` is its JSON array of categories. */
export interface Subscriber { id: string; accountId: string; url: string; events: string }

/** A resource's postback URL (null when it has none). */
export interface PostbackRow { id: string; postback: string | null }

/** What a receiver's envelope is made of. */
export interface EnvelopeRow { id: string; type: string; category: StoredEventCategory; createdAt: string; payload: string }

/** The name of the advisory lock only one instance's dispatcher holds at a time (PostgreSQL). */
const DISPATCHER_LOCK = 'event-dispatcher';

const ph = (name: string) => sql.placeholder(name);

/** A JSON array of ids bound as one value, so a statement over a list of any length is prepared once. */
const idList = (name: string) => jsonStringList(sql.placeholder(name));

// recording an event runs in nearly every write job: its statement is prepared on its own, and returns
// nothing, so that on PostgreSQL it is pipelined with what the job sends next instead of a round trip
const prepareRecord = (db: DrizzleDb) => db.insert(events).values({
  id: ph('id'), accountId: ph('accountId'), type: ph('type'), category: ph('category'), resourceId: ph('resourceId'),
  payload: ph('payload'), createdAt: ph('createdAt'), requestId: ph('requestId'),
}).prepare();

const undispatchedColumns = { seq: events.seq, id: events.id, accountId: events.accountId, category: events.category, resourceId: events.resourceId };
/** Events not fanned out yet; `before` (a placeholder): recorded before that instant only (another instance's, left to it while fresh). */
const undispatchedWhere = (before: boolean) => (before
  ? and(isNull(events.dispatchedAt), lte(events.createdAt, ph('before')))
  : isNull(events.dispatchedAt));

// the dispatcher's: the probe runs after every commit of the process, the rest per pass
const prepareDispatch = (db: DrizzleDb) => ({
  probe: db.select({ seq: events.seq }).from(events).where(undispatchedWhere(false)).limit(1).prepare(),
  undispatched: db.select(undispatchedColumns).from(events).where(undispatchedWhere(false))
    .orderBy(asc(events.seq)).limit(sql.placeholder('limit')).prepare(),
  probeBefore: db.select({ seq: events.seq }).from(events).where(undispatchedWhere(true)).limit(1).prepare(),
  undispatchedBefore: db.select(undispatchedColumns).from(events).where(undispatchedWhere(true))
    .orderBy(asc(events.seq)).limit(sql.placeholder('limit')).prepare(),
  markDispatched: db.update(events).set({ dispatchedAt: sql.placeholder('at') as unknown as string })
    .where(and(isNull(events.dispatchedAt), lte(events.seq, sql.placeholder('lastSeq')))).prepare(),
  markDispatchedIds: db.update(events).set({ dispatchedAt: sql.placeholder('at') as unknown as string })
    .where(and(isNull(events.dispatchedAt), inArray(events.id, idList('ids')))).prepare(),
  hooksOf: db.select({ id: webhooks.id, accountId: webhooks.accountId, url: webhooks.url, events: webhooks.events })
    .from(webhooks)
    .where(and(inArray(webhooks.accountId, idList('accountIds')), eq(webhooks.active, 1), isNull(webhooks.deletedAt), isNull(webhooks.pausedAt)))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id)).prepare(),
  withdrawalPostbacks: db.select({ id: withdrawals.id, postback: withdrawals.postback }).from(withdrawals)
    .where(inArray(withdrawals.id, idList('ids'))).prepare(),
  batchPostbacks: db.select({ id: withdrawalBatches.id, postback: withdrawals.postback }).from(withdrawalBatches)
    .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId)).where(inArray(withdrawalBatches.id, idList('ids'))).prepare(),
  transactionPostbacks: db.select({ id: transactions.id, postback: transactions.postback }).from(transactions)
    .where(inArray(transactions.id, idList('ids'))).prepare(),
  disputePostbacks: db.select({ id: disputes.id, postback: transactions.postback }).from(disputes)
    .innerJoin(transactions, eq(transactions.id, disputes.transactionId)).where(inArray(disputes.id, idList('ids'))).prepare(),
});

/**
 * The event log: recording events, and the dispatcher's side of it (the undispatched events, who they
 * fan out to, marking them dispatched). Statements are prepared once per connection, on first use.
 */
export class EventStore {
  private recordStatement?: ReturnType<typeof prepareRecord>;
  private dispatchStatements?: ReturnType<typeof prepareDispatch>;

  constructor(private readonly db: DrizzleDb) {}

  private get dispatch() {
    return (this.dispatchStatements ??= prepareDispatch(this.db));
  }

  /** Inside a write job: inserts an event (pipelined on PostgreSQL: its failure is the job's). */
  async record(e: NewEvent): Promise<void> {
    const statement = (this.recordStatement ??= prepareRecord(this.db));
    await pipelined(this.db, () => statement.execute({ ...e }));
  }

  /** Inserts an event already dispatched (a test event with its one delivery: the fan-out never sees it); its seq. */
  async recordDispatched(e: Omit<NewEvent, 'requestId'>): Promise<number> {
    const [row] = await this.db.insert(events).values({
      id: e.id, accountId: e.accountId, type: e.type, category: e.category, resourceId: e.resourceId, payload: e.payload,
      createdAt: e.createdAt, dispatchedAt: e.createdAt,
    }).returning({ seq: events.seq });
    return row.seq;
  }

  /** An event as its envelope needs it. */
  async envelopeOf(eventId: string): Promise<EnvelopeRow | undefined> {
    return first(this.db.select({ id: events.id, type: events.type, category: events.category, createdAt: events.createdAt, payload: events.payload })
      .from(events).where(eq(events.id, eventId)));
  }

  // ---- the dispatcher ----

  /**
   * Whether any event waits to be fanned out (a cheap indexed probe); with `before`, any recorded before
   * that instant (the undispatched events are few, and the index finds them all).
   */
  async anyUndispatched(before?: string): Promise<boolean> {
    const found = before === undefined ? this.dispatch.probe.execute() : this.dispatch.probeBefore.execute({ before });
    return (await first(found)) !== undefined;
  }

  /**
   * Inside a write job: the dispatcher's turn, if no other instance's dispatcher has it (a transaction-level
   * advisory lock on PostgreSQL, held until the job commits); always true on SQLite's single writer.
   */
  takeDispatcherTurn(): Promise<boolean> {
    return tryLockName(this.db, DISPATCHER_LOCK);
  }

  /** Up to `limit` undispatched events (with `before`: recorded before that instant), in seq order. */
  async undispatched(limit: number, before?: string): Promise<UndispatchedEvent[]> {
    return before === undefined ? this.dispatch.undispatched.execute({ limit }) : this.dispatch.undispatchedBefore.execute({ limit, before });
  }

  /** The active, unpaused, live webhooks of these accounts, oldest first. */
  async subscribersOf(accountIds: string[]): Promise<Subscriber[]> {
    return this.dispatch.hooksOf.execute({ accountIds: JSON.stringify(accountIds) });
  }

  /** The postback URLs of these withdrawals (those that exist). */
  withdrawalPostbacks(withdrawalIds: string[]): Promise<PostbackRow[]> {
    return this.dispatch.withdrawalPostbacks.execute({ ids: JSON.stringify(withdrawalIds) });
  }

  /** The postback URLs of the withdrawals of these batches, by batch id. */
  batchPostbacks(batchIds: string[]): Promise<PostbackRow[]> {
    return this.dispatch.batchPostbacks.execute({ ids: JSON.stringify(batchIds) });
  }

  /** The postback URLs of these transactions (those that exist). */
  transactionPostbacks(transactionIds: string[]): Promise<PostbackRow[]> {
    return this.dispatch.transactionPostbacks.execute({ ids: JSON.stringify(transactionIds) });
  }

  /** The postback URLs of the transactions of these disputes, by dispute id. */
  disputePostbacks(disputeIds: string[]): Promise<PostbackRow[]> {
    return this.dispatch.disputePostbacks.execute({ ids: JSON.stringify(disputeIds) });
  }

  /** Marks exactly these events (the batch just fanned out, in seq order) dispatched at `at`. */
  async markDispatched(batch: { id: string; seq: number }[], at: string): Promise<void> {
    if (batch.length === 0) return;
    if (onPostgres) {
      // Exactly the events fanned out: on PostgreSQL an event with a lower seq may have committed after
      // this job read the batch (seqs are taken at insert, not at commit), so "up to lastSeq" could mark
      // one that was never fanned out.
      await this.dispatch.markDispatchedIds.execute({ at, ids: JSON.stringify(batch.map((e) => e.id)) });
    } else {
      // Exactly the selected events: SQLite's single writer commits in seq order, so every undispatched
      // event up to lastSeq was in this batch.
      await this.dispatch.markDispatched.execute({ at, lastSeq: batch[batch.length - 1].seq });
    }
  }
}
