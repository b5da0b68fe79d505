import { and, asc, desc, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { nameWords, withdrawalBatches, withdrawals } from '../schema';
import { contains, jsonStringList, onPostgres } from '../dialect';
import { indexWalkFloor } from '../name-words';
import { lockName, pipelined, rawExec, skipLocked } from '../query';
import { dueHere, type DueClaim, type DueHere } from './claims';
import { handleOf, type OnHandle } from './handle-of';
import type { BatchStatus, FailureCode, PixKeyType, WithdrawalStatus } from '../../contract/enums';
import type { PixPaymentOrder } from '../../contract/rails';

/** A withdrawal as its views read it (never the virtual search columns, see viewedWithdrawalColumns). */
export interface WithdrawalRow {
  id: string;
  status: WithdrawalStatus;
  amount: number;
  key: string;
  keyType: PixKeyType;
  description: string | null;
  detailsName: string;
  detailsDocument: string;
  postback: string | null;
  externalRef: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A batch as its receipt reads it. */
export interface BatchRow {
  id: string;
  status: BatchStatus;
  amount: number;
  endToEnd: string | null;
  receiverName: string | null;
  receiverBank: string | null;
  receiverBankIspb: string | null;
  failureCode: FailureCode | null;
  failureReason: string | null;
}

/** A withdrawal and its batches, in their order. */
export interface WithdrawalWithBatches {
  withdrawal: WithdrawalRow;
  batches: BatchRow[];
}

/** A new withdrawal (stored REQUESTED). */
export type NewWithdrawal = Omit<WithdrawalRow, 'status'> & { accountId: string };

/** A new batch of a withdrawal (stored PENDING). */
export interface NewBatch {
  id: string;
  seq: number;
  amount: number;
}

/** What settling one of its batches reads of a withdrawal: the withdrawal, and each batch's state in order. */
export interface WithdrawalToSettle {
  withdrawal: WithdrawalRow;
  batches: { id: string; status: BatchStatus; amount: number }[];
}

/** A row of a keyset walk in (created_at, id) order: a cursor, or where a bounded walk stops. */
export interface WalkPoint {
  createdAt: string;
  id: string;
}

/** One page of the dashboard's list, newest first: the account's rows, filtered, before the cursor. */
export interface WithdrawalListPage {
  accountId: string;
  status?: WithdrawalStatus;
  /** created_at ≥ since, < until (stored-form instants). */
  since?: string;
  until?: string;
  before?: WalkPoint;
  /** How many rows to read (the page and one more, to know whether another follows). */
  take: number;
}

/**
 * What one reading of a search matches. A word match walks name_words: the key word in the stem's rows,
 * down to `floor` (inclusive) and no further, the other words in the recipient's name.
 */
export type WithdrawalMatch =
  | { by: 'id'; id: string }
  | { by: 'batch'; batchId: string }
  | { by: 'endToEnd'; endToEnd: string }
  | { by: 'key'; key: string }
  | { by: 'document'; document: string }
  | { by: 'amount'; amount: number }
  | { by: 'reference'; externalRef: string }
  | { by: 'words'; stem: string; key: string; others: string[]; floor: WalkPoint | null; walkCap: number };

/** One keyset page of a search for one match (or none), newest first. */
export interface WithdrawalSearchPage extends WithdrawalListPage {
  match: WithdrawalMatch | null;
  /** False for a match naming at most one withdrawal: then no ORDER BY (see searchPageQuery). */
  ordered: boolean;
  /** The bounded walk of another reading: its index down to this row (inclusive) and no further. */
  floor?: WalkPoint | null;
}

/** The walk whose floor searchWalkFloor finds: a match within the search's dates and before its cursor. */
export interface WithdrawalWalk {
  accountId: string;
  match: WithdrawalMatch;
  since?: string;
  until?: string;
  before?: WalkPoint;
  cap: number;
}

/**
 * The stored columns the view reads of a withdrawal: never `select *`, which on SQLite also computes
 * the virtual search columns (details_name_search, details_name_words: dozens of nested replace() per
 * row) that no view shows. The list and search pages select these too.
 */
const viewedWithdrawalColumns = {
  id: withdrawals.id, status: withdrawals.status, amount: withdrawals.amount, key: withdrawals.key, keyType: withdrawals.keyType,
  description: withdrawals.description, detailsName: withdrawals.detailsName, detailsDocument: withdrawals.detailsDocument,
  postback: withdrawals.postback, externalRef: withdrawals.externalRef, createdAt: withdrawals.createdAt, updatedAt: withdrawals.updatedAt,
};

/** The stored columns the view reads of a batch. */
const viewedBatchColumns = {
  id: withdrawalBatches.id, status: withdrawalBatches.status, amount: withdrawalBatches.amount, endToEnd: withdrawalBatches.endToEnd,
  receiverName: withdrawalBatches.receiverName, receiverBank: withdrawalBatches.receiverBank, receiverBankIspb: withdrawalBatches.receiverBankIspb,
  failureCode: withdrawalBatches.failureCode, failureReason: withdrawalBatches.failureReason,
};

/** What the rail needs of a batch and its withdrawal. */
const paymentOrderColumns = {
  batchId: withdrawalBatches.id, withdrawalId: withdrawalBatches.withdrawalId, accountId: withdrawalBatches.accountId,
  seq: withdrawalBatches.seq, amount: withdrawalBatches.amount,
  key: withdrawals.key, keyType: withdrawals.keyType, receiverName: withdrawals.detailsName, receiverDocument: withdrawals.detailsDocument,
};

const ph = (name: string) => sql.placeholder(name);

/**
 * A withdrawal and its batches in one statement (one row per batch, in their order): one statement
 * instead of two per GET and per event payload, and on PostgreSQL one statement is one snapshot, so the
 * withdrawal's status and its batches always agree without a transaction around them. `by: 'batch'`
 * finds the withdrawal by one of its batch identifiers in the same statement (GET /withdraw?identifier=
 * wdb_…, the usual query, then costs one statement rather than two). Exported for the plan test and the
 * floor bench.
 */
export function withdrawalWithBatchesQuery(on: OnHandle, by: 'id' | 'batch' = 'id') {
  const db = handleOf(on);
  const which = by === 'id'
    ? eq(withdrawals.id, sql.placeholder('id'))
    : eq(withdrawals.id, db.select({ id: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
      .where(and(eq(withdrawalBatches.id, sql.placeholder('batchId')), eq(withdrawalBatches.accountId, sql.placeholder('accountId')))));
  return db.select({
    ...viewedWithdrawalColumns,
    batchId: withdrawalBatches.id, batchStatus: withdrawalBatches.status, batchAmount: withdrawalBatches.amount, batchEndToEnd: withdrawalBatches.endToEnd,
    batchReceiverName: withdrawalBatches.receiverName, batchReceiverBank: withdrawalBatches.receiverBank, batchReceiverBankIspb: withdrawalBatches.receiverBankIspb,
    batchFailureCode: withdrawalBatches.failureCode, batchFailureReason: withdrawalBatches.failureReason,
  }).from(withdrawals)
    .leftJoin(withdrawalBatches, eq(withdrawalBatches.withdrawalId, withdrawals.id))
    .where(and(which, eq(withdrawals.accountId, sql.placeholder('accountId'))))
    .orderBy(asc(withdrawalBatches.seq));
}

/** The batches of many withdrawals in one query (withdrawal_batches_withdrawal_idx). Exported for the plan test. */
export function batchesOfQuery(on: OnHandle, withdrawalIds: string[]) {
  return handleOf(on).select({ ...viewedBatchColumns, withdrawalId: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
    .where(inArray(withdrawalBatches.withdrawalId, withdrawalIds))
    .orderBy(asc(withdrawalBatches.withdrawalId), asc(withdrawalBatches.seq));
}

/** Due PENDING batches, oldest due first (withdrawal_batches_due_idx). Exported for the plan test. */
export function duePaymentOrdersQuery(on: OnHandle, now: Date, limit: number) {
  return handleOf(on).select(paymentOrderColumns).from(withdrawalBatches)
    .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
    .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, now.toISOString())))
    .orderBy(asc(withdrawalBatches.dueAt))
    .limit(limit);
}

/** The two inserts of every request on SQLite, prepared once on the writer's connection. */
function prepareInserts(tx: DrizzleDb) {
  return {
    withdrawal: tx.insert(withdrawals).values({
      id: ph('id'), accountId: ph('accountId'), status: 'REQUESTED', amount: ph('amount'), key: ph('key'), keyType: ph('keyType'),
      description: ph('description'), detailsName: ph('detailsName'), detailsDocument: ph('detailsDocument'),
      postback: ph('postback'), externalRef: ph('externalRef'), createdAt: ph('createdAt'), updatedAt: ph('updatedAt'),
    }).prepare(),
    batch: tx.insert(withdrawalBatches).values({
      id: ph('id'), withdrawalId: ph('withdrawalId'), accountId: ph('accountId'), seq: ph('seq'), amount: ph('amount'),
      status: 'PENDING', dueAt: ph('dueAt'), claimedBy: ph('origin'), createdAt: ph('createdAt'), updatedAt: ph('updatedAt'),
    }).prepare(),
  };
}

/** The hot lookups of GET /withdraw and of every event payload. */
function prepareLookups(db: DrizzleDb) {
  return {
    withdrawalWithBatches: withdrawalWithBatchesQuery(db).prepare(),
    withdrawalWithBatchesByBatch: withdrawalWithBatchesQuery(db, 'batch').prepare(),
    idOfBatch: db.select({ id: withdrawalBatches.withdrawalId }).from(withdrawalBatches)
      .where(and(eq(withdrawalBatches.id, sql.placeholder('id')), eq(withdrawalBatches.accountId, sql.placeholder('accountId')))).prepare(),
    idOfExternalRef: db.select({ id: withdrawals.id }).from(withdrawals)
      .where(and(eq(withdrawals.accountId, sql.placeholder('accountId')), eq(withdrawals.externalRef, sql.placeholder('externalRef')))).prepare(),
  };
}

/** The due batches (with their values bound per call: it runs after every commit) and the claim of them. */
function prepareClaims(db: DrizzleDb) {
  const due = dueHere(withdrawalBatches);
  return {
    dueOrders: db.select(paymentOrderColumns).from(withdrawalBatches)
      .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
      .where(and(eq(withdrawalBatches.status, 'PENDING'), lte(withdrawalBatches.dueAt, ph('now'))))
      .orderBy(asc(withdrawalBatches.dueAt))
      .limit(ph('limit'))
      .prepare(),
    /** Whether anything is due: an idle pass reads this one row and writes nothing. */
    anyDue: db.select({ id: withdrawalBatches.id }).from(withdrawalBatches).where(due).limit(1).prepare(),
    /** Takes the oldest due batches nobody else is claiming: due again only when the lease runs out. */
    claim: db.update(withdrawalBatches).set({ dueAt: ph('leaseUntil') as unknown as string, claimedBy: ph('instance') as unknown as string })
      .where(inArray(withdrawalBatches.id, skipLocked(db.select({ id: withdrawalBatches.id }).from(withdrawalBatches)
        .where(due)
        .orderBy(asc(withdrawalBatches.dueAt)).limit(ph('limit')))))
      .returning({ id: withdrawalBatches.id }).prepare(),
    orders: db.select(paymentOrderColumns).from(withdrawalBatches)
      .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId))
      .where(inArray(withdrawalBatches.id, jsonStringList(ph('ids'))))
      // a withdrawal's batches in their order, so its events come in that order too
      .orderBy(asc(withdrawalBatches.createdAt), asc(withdrawalBatches.withdrawalId), asc(withdrawalBatches.seq)).prepare(),
  };
}

/** An outcome's writes and the reads that recompute the withdrawal's status. */
function prepareSettlement(db: DrizzleDb) {
  return {
    retryLater: db.update(withdrawalBatches).set({ dueAt: ph('dueAt') as unknown as string, updatedAt: ph('at') as unknown as string })
      .where(eq(withdrawalBatches.id, ph('id'))).prepare(),
    paid: db.update(withdrawalBatches).set({
      status: 'PAID', endToEnd: ph('endToEnd') as unknown as string, receiverName: ph('receiverName') as unknown as string,
      receiverBank: ph('receiverBank') as unknown as string, receiverBankIspb: ph('receiverBankIspb') as unknown as string, updatedAt: ph('at') as unknown as string,
    }).where(eq(withdrawalBatches.id, ph('id'))).prepare(),
    failed: db.update(withdrawalBatches).set({ status: 'ERROR', failureCode: ph('code') as unknown as 'REJECTED', failureReason: ph('reason') as unknown as string, updatedAt: ph('at') as unknown as string })
      .where(eq(withdrawalBatches.id, ph('id'))).prepare(),
    toSettle: lockedToSettle(db.select({ ...viewedWithdrawalColumns, batchId: withdrawalBatches.id, batchStatus: withdrawalBatches.status, batchAmount: withdrawalBatches.amount })
      .from(withdrawals).innerJoin(withdrawalBatches, eq(withdrawalBatches.withdrawalId, withdrawals.id))
      .where(and(eq(withdrawals.id, sql.placeholder('id')), eq(withdrawals.accountId, sql.placeholder('accountId'))))
      .orderBy(asc(withdrawalBatches.seq))).prepare(),
    withdrawalStatusTo: db.update(withdrawals).set({ status: ph('status') as unknown as 'PAID', updatedAt: ph('at') as unknown as string })
      .where(eq(withdrawals.id, ph('id'))).prepare(),
  };
}

/**
 * On PostgreSQL, the row locks of lockToSettle: the withdrawal's and its batches' (FOR NO KEY UPDATE, what the
 * job's own updates take anyway). Both, not the withdrawal's alone: a statement reads with the snapshot of its
 * start, so a job that waited here for a sibling batch's job would read that batch as it was before, unless
 * its row too is locked, which makes PostgreSQL read the latest committed version of each locked row (READ
 * COMMITTED's recheck). Nothing on SQLite, whose single writer runs one job at a time.
 */
function lockedToSettle<Q>(select: Q): Q {
  if (!onPostgres) return select;
  return (select as unknown as { for(strength: 'no key update', o: { of: unknown[] }): Q }).for('no key update', { of: [withdrawals, withdrawalBatches] });
}

type JoinedRow = Awaited<ReturnType<ReturnType<typeof prepareLookups>['withdrawalWithBatches']['execute']>>[number];

function withBatches(rows: JoinedRow[]): WithdrawalWithBatches | null {
  const w = rows[0];
  if (!w) return null;
  const batches: BatchRow[] = [];
  for (const r of rows) {
    if (r.batchId === null) continue;
    batches.push({
      id: r.batchId, status: r.batchStatus!, amount: r.batchAmount!, endToEnd: r.batchEndToEnd, receiverName: r.batchReceiverName,
      receiverBank: r.batchReceiverBank, receiverBankIspb: r.batchReceiverBankIspb, failureCode: r.batchFailureCode, failureReason: r.batchFailureReason,
    });
  }
  return { withdrawal: w, batches };
}

/** What a match selects of the account's withdrawals; a batch match looks in the account's batches. */
function matchWhere(accountId: string, m: WithdrawalMatch): SQL {
  const ofBatches = (c: SQL) => inArray(withdrawals.id,
    sql`(SELECT ${withdrawalBatches.withdrawalId} FROM ${withdrawalBatches} WHERE ${c} AND ${withdrawalBatches.accountId} = ${accountId})`);
  switch (m.by) {
    case 'id': return eq(withdrawals.id, m.id);
    case 'batch': return ofBatches(eq(withdrawalBatches.id, m.batchId));
    case 'endToEnd': return ofBatches(eq(withdrawalBatches.endToEnd, m.endToEnd));
    case 'key': return eq(withdrawals.key, m.key);
    case 'document': return eq(withdrawals.detailsDocument, m.document);
    case 'amount': return eq(withdrawals.amount, m.amount);
    case 'reference': return eq(withdrawals.externalRef, m.externalRef);
    // walked in name_words (see searchPageQuery): the key word in the stem's row, the others in the name
    case 'words': return and(walkOfWords(m), eq(withdrawals.id, nameWords.ownerId), othersOfWords(m))!;
  }
}

type WordsMatch = Extract<WithdrawalMatch, { by: 'words' }>;

/** A word match's walk in name_words: the key word in the stem's rows, down to the floor and no further. */
function walkOfWords(m: WordsMatch): SQL {
  return and(
    eq(nameWords.subject, 'withdrawal'), eq(nameWords.stem, m.stem), contains(nameWords.words, `,${m.key}`),
    ...(m.floor ? [sql`(${nameWords.createdAt}, ${nameWords.ownerId}) >= (${m.floor.createdAt}, ${m.floor.id})`] : []),
  )!;
}
/** The other typed words, each beginning a word of the recipient's name. */
function othersOfWords(m: WordsMatch): SQL | undefined {
  return and(...m.others.map((w) => contains(withdrawals.detailsNameWords, `"${w}`)));
}

/**
 * The withdrawals and their batches: inserted by POST /withdraw/pix, read by GET /withdraw, the
 * dashboard's list and search and every event payload, claimed and settled by the settlement job.
 * Statements are prepared once per connection (the store is), on first use.
 */
export class WithdrawalStore {
  private inserts?: ReturnType<typeof prepareInserts>;
  private lookups?: ReturnType<typeof prepareLookups>;
  private claims?: ReturnType<typeof prepareClaims>;
  private settlement?: ReturnType<typeof prepareSettlement>;

  constructor(private readonly db: DrizzleDb) {}

  private get inserting() { return (this.inserts ??= prepareInserts(this.db)); }
  private get looking() { return (this.lookups ??= prepareLookups(this.db)); }
  private get claiming() { return (this.claims ??= prepareClaims(this.db)); }
  private get settling() { return (this.settlement ??= prepareSettlement(this.db)); }

  // ---- creation

  /**
   * Inside a write job: whether another withdrawal of the account already uses `externalRef`. On
   * PostgreSQL another instance may be creating the same reference right now: this first takes the
   * reference's lock (until the job commits), waiting for that job, then looks.
   */
  async externalRefTaken(accountId: string, externalRef: string): Promise<boolean> {
    await lockName(this.db, `withdrawal-ref\n${accountId}\n${externalRef}`);
    return (await this.looking.idOfExternalRef.execute({ accountId, externalRef })).length > 0;
  }

  /**
   * Stores a new withdrawal, REQUESTED, and its batches, PENDING and due at `dueAt`, dated as the withdrawal
   * and claimed by `origin`, the instance that created them: its own settlement pass takes them when they
   * fall due, so their settlement joins that instance's write groups, and another instance only after
   * JOB_AFFINITY_MS. On PostgreSQL one statement (the withdrawal's insert in a CTE, its batches from a JSON
   * array), sent with the job's next statements (pipelined); on SQLite the prepared inserts, one per row.
   */
  async insertWithdrawalWithBatches(w: NewWithdrawal, batches: NewBatch[], dueAt: string, origin: string): Promise<void> {
    if (onPostgres) {
      const rows = JSON.stringify(batches.map((b) => ({ id: b.id, seq: b.seq, amount: b.amount })));
      await pipelined(this.db, () => rawExec(this.db, sql`WITH w AS (
        INSERT INTO ${withdrawals} (id, account_id, status, amount, key, key_type, description, details_name, details_document, postback, external_ref, created_at, updated_at)
        VALUES (${w.id}, ${w.accountId}, 'REQUESTED', ${w.amount}, ${w.key}, ${w.keyType}, ${w.description}, ${w.detailsName}, ${w.detailsDocument}, ${w.postback}, ${w.externalRef}, ${w.createdAt}, ${w.updatedAt})
        RETURNING id, account_id, created_at)
      INSERT INTO ${withdrawalBatches} (id, withdrawal_id, account_id, seq, amount, status, due_at, claimed_by, created_at, updated_at)
      SELECT b.id, w.id, w.account_id, b.seq, b.amount, 'PENDING', ${dueAt}::timestamptz, ${origin}::text, w.created_at, w.created_at
      FROM w, jsonb_to_recordset((${rows}::text)::jsonb) AS b(id text, seq integer, amount bigint)`));
      return;
    }
    const st = this.inserting;
    await st.withdrawal.execute(w);
    for (const b of batches) {
      await st.batch.execute({ id: b.id, seq: b.seq, amount: b.amount, withdrawalId: w.id, accountId: w.accountId, dueAt, origin, createdAt: w.createdAt, updatedAt: w.createdAt });
    }
  }

  // ---- lookups and views

  /** The account's withdrawal with this external reference. */
  async idOfExternalRef(accountId: string, externalRef: string): Promise<string | null> {
    return (await this.looking.idOfExternalRef.execute({ accountId, externalRef }))[0]?.id ?? null;
  }

  /** The withdrawal of the account's batch. */
  async idOfBatch(accountId: string, batchId: string): Promise<string | null> {
    return (await this.looking.idOfBatch.execute({ id: batchId, accountId }))[0]?.id ?? null;
  }

  /** The account's withdrawal and its batches, in one statement (consistent on its own on both engines). */
  async withBatches(accountId: string, id: string): Promise<WithdrawalWithBatches | null> {
    return withBatches(await this.looking.withdrawalWithBatches.execute({ id, accountId }));
  }

  /** The same, found by one of the withdrawal's batch identifiers (one statement). */
  async withBatchesByBatch(accountId: string, batchId: string): Promise<WithdrawalWithBatches | null> {
    return withBatches(await this.looking.withdrawalWithBatchesByBatch.execute({ batchId, accountId }));
  }

  /** The batches of these withdrawals, by withdrawal then in their order (one query). */
  async batchesOf(withdrawalIds: string[]): Promise<(BatchRow & { withdrawalId: string })[]> {
    return batchesOfQuery(this.db, withdrawalIds);
  }

  // ---- the dashboard's list and search

  /**
   * One page of the list, newest first, keyset-paginated on (created_at, id). It walks
   * withdrawals_account_created_idx (or withdrawals_account_status_created_idx with a status filter) in
   * order, so a page costs the same at row 20 and at row 100,000. (The query itself: for the plan test.)
   */
  listPageQuery(p: WithdrawalListPage) {
    const where: SQL[] = [eq(withdrawals.accountId, p.accountId)];
    if (p.status) where.push(eq(withdrawals.status, p.status));
    if (p.since) where.push(gte(withdrawals.createdAt, p.since));
    if (p.until) where.push(lt(withdrawals.createdAt, p.until));
    if (p.before) where.push(sql`(${withdrawals.createdAt}, ${withdrawals.id}) < (${p.before.createdAt}, ${p.before.id})`);
    return this.db.select(viewedWithdrawalColumns).from(withdrawals).where(and(...where))
      .orderBy(desc(withdrawals.createdAt), desc(withdrawals.id)).limit(p.take);
  }

  async listPage(p: WithdrawalListPage): Promise<WithdrawalRow[]> {
    return this.listPageQuery(p);
  }

  /**
   * One keyset page of a search for one match (or none), newest first. (The query itself: for the plan
   * test.) A match naming one withdrawal (`ordered: false`) has no ORDER BY: otherwise SQLite, with no
   * statistics, would rather walk the account's rows in order than look the one row up.
   */
  searchPageQuery(p: WithdrawalSearchPage) {
    const m = p.match;
    // a word search walks name_words, whose (created_at, owner_id) are the withdrawal's: order, dates and
    // cursor go on its columns so that its index serves them
    const byWords = m?.by === 'words';
    const createdAt = byWords ? nameWords.createdAt : withdrawals.createdAt;
    const id = byWords ? nameWords.ownerId : withdrawals.id;
    const where: SQL[] = [eq(byWords ? nameWords.accountId : withdrawals.accountId, p.accountId)];
    if (m) where.push(matchWhere(p.accountId, m));
    if (p.status) where.push(eq(withdrawals.status, p.status));
    if (p.since) where.push(gte(createdAt, p.since));
    if (p.until) where.push(lt(createdAt, p.until));
    if (p.before) where.push(sql`(${createdAt}, ${id}) < (${p.before.createdAt}, ${p.before.id})`);
    // the bounded walk of another reading (searchWalkFloor): its index down to the floor and no further
    if (p.floor) where.push(sql`(${createdAt}, ${id}) >= (${p.floor.createdAt}, ${p.floor.id})`);
    if (m?.by === 'words' && onPostgres) {
      // PostgreSQL, left to join name_words and withdrawals itself, hash-joined the capped walk's rows to
      // every withdrawal of the table (112 ms at 100 k); the walk as a subquery with its own LIMIT makes
      // it look each withdrawal up by primary key, as SQLite does anyway (it only joins by nested loops)
      const walkWhere: SQL[] = [eq(nameWords.accountId, p.accountId), walkOfWords(m)];
      if (p.since) walkWhere.push(gte(nameWords.createdAt, p.since));
      if (p.until) walkWhere.push(lt(nameWords.createdAt, p.until));
      if (p.before) walkWhere.push(sql`(${nameWords.createdAt}, ${nameWords.ownerId}) < (${p.before.createdAt}, ${p.before.id})`);
      const walk = this.db.select({ ownerId: nameWords.ownerId, createdAt: nameWords.createdAt }).from(nameWords).where(and(...walkWhere))
        .orderBy(desc(nameWords.createdAt), desc(nameWords.ownerId)).limit(m.walkCap).as('walk');
      const rest = [othersOfWords(m), p.status ? eq(withdrawals.status, p.status) : undefined].filter((c): c is SQL => Boolean(c));
      return this.db.select(viewedWithdrawalColumns).from(walk).innerJoin(withdrawals, eq(withdrawals.id, walk.ownerId))
        .where(rest.length ? and(...rest) : undefined).orderBy(desc(walk.createdAt), desc(walk.ownerId)).limit(p.take);
    }
    const q = byWords
      ? this.db.select(viewedWithdrawalColumns).from(nameWords).crossJoin(withdrawals).where(and(...where)).$dynamic()
      : this.db.select(viewedWithdrawalColumns).from(withdrawals).where(and(...where)).$dynamic();
    if (!p.ordered) return q.limit(p.take);
    return q.orderBy(desc(createdAt), desc(id)).limit(p.take);
  }

  async searchPage(p: WithdrawalSearchPage): Promise<WithdrawalRow[]> {
    return this.searchPageQuery(p);
  }

  /**
   * The `cap`-th row, newest first, of the account's withdrawals the match selects within the walk's
   * dates and before its cursor, read from the match's index alone (db/name-words.ts indexWalkFloor);
   * null when fewer rows are there.
   */
  async searchWalkFloor(w: WithdrawalWalk): Promise<WalkPoint | null> {
    return indexWalkFloor(this.db, {
      table: withdrawals, createdAt: withdrawals.createdAt, id: withdrawals.id, since: w.since, until: w.until, before: w.before,
    }, [eq(withdrawals.accountId, w.accountId), matchWhere(w.accountId, w.match)], w.cap);
  }

  // ---- settlement

  /** Due batches with what the rail needs to pay them, oldest due first (nothing claimed). */
  async duePaymentOrders(now: string, limit: number): Promise<PixPaymentOrder[]> {
    return this.claiming.dueOrders.execute({ now, limit });
  }

  /**
   * The claim of due batches, as rails/pass.ts claimDue runs it: `anyDue` (on the read side: an idle
   * pass writes nothing), `claim` (the oldest due batches nobody else is claiming, FOR UPDATE SKIP LOCKED
   * on PostgreSQL: their due_at moved to the lease's end, claimed_by stamped) and `orders` (what the rail
   * needs of the claimed batches, a JSON array of ids).
   */
  get batchClaims(): {
    anyDue: { execute(values: DueHere): Promise<unknown[]> };
    claim: { execute(values: DueClaim): Promise<{ id: string }[]> };
    orders: { execute(values: { ids: string }): Promise<PixPaymentOrder[]> };
  } {
    return this.claiming;
  }

  /**
   * Inside a write job: locks the withdrawal's row and its batches' until the job commits (PostgreSQL: sibling
   * batches settle in concurrent jobs, and each must see the others' outcome), and reads it and the status of
   * each of its batches, in their order: one statement. Null when the account has no such withdrawal.
   */
  async lockToSettle(accountId: string, withdrawalId: string): Promise<WithdrawalToSettle | null> {
    const rows = await this.settling.toSettle.execute({ id: withdrawalId, accountId });
    const w = rows[0];
    if (!w) return null;
    return {
      withdrawal: {
        id: w.id, status: w.status, amount: w.amount, key: w.key, keyType: w.keyType, description: w.description, detailsName: w.detailsName,
        detailsDocument: w.detailsDocument, postback: w.postback, externalRef: w.externalRef, createdAt: w.createdAt, updatedAt: w.updatedAt,
      },
      batches: rows.map((r) => ({ id: r.batchId, status: r.batchStatus, amount: r.batchAmount })),
    };
  }

  /** The batch is due again at `dueAt` (the rail has no answer yet). */
  async retryBatchLater(batchId: string, dueAt: string, at: string): Promise<void> {
    await pipelined(this.db, () => this.settling.retryLater.execute({ id: batchId, dueAt, at }));
  }

  async markBatchPaid(batchId: string, paid: { endToEnd: string; receiverName: string; receiverBank: string; receiverBankIspb: string }, at: string): Promise<void> {
    await pipelined(this.db, () => this.settling.paid.execute({ id: batchId, ...paid, at }));
  }

  async markBatchFailed(batchId: string, code: FailureCode, reason: string, at: string): Promise<void> {
    await pipelined(this.db, () => this.settling.failed.execute({ id: batchId, code, reason, at }));
  }

  async updateStatus(withdrawalId: string, status: WithdrawalStatus, at: string): Promise<void> {
    await pipelined(this.db, () => this.settling.withdrawalStatusTo.execute({ id: withdrawalId, status, at }));
  }
}
