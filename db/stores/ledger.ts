import { and, desc, eq, gte, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { greatest, onPostgres } from '../dialect';
import { ledgerBooks, ledgerEntries, ledgerLines } from '../schema';
import { first, pipelined, rawRow, rawRows, whenCommittedOnPostgres } from '../query';
import { handleOf, type OnHandle } from './handle-of';
import type { BookKind, LedgerEntryKind, MerchantBook, SystemBook } from '../../contract/ledger';

/**
 * The ledger's rows: books, entries and their lines (a trigger applies each line to its book's running
 * balance and refuses an overdraft or a balance above the ceiling), the statement's pages and the
 * ledger audit's scans. The double-entry rules (lines sum to zero, which book, what a refusal means)
 * are the domain's ledger's; this only reads and writes rows.
 */

export interface NewBook {
  id: string;
  /** null: a system book (the outside world). */
  accountId: string | null;
  kind: BookKind;
  /** Which shard of a system book (0 for a merchant book). */
  shard: number;
  /** System books may go negative; merchant books may not (the trigger's floor). */
  allowNegative: boolean;
  at: Date;
}

export interface NewEntry {
  id: string;
  accountId: string;
  kind: LedgerEntryKind;
  resourceId: string | null;
  description: string | null;
  /** ISO instant. */
  createdAt: string;
}

export interface NewLine {
  entryId: string;
  bookId: string;
  /** Signed cents. */
  amount: number;
  /** ISO instant (the line is dated no earlier than its book's previous line). */
  createdAt: string;
}

/**
 * What became of a line: applied, or refused by its book's trigger (the floor: a merchant book below
 * zero beyond what a dispute hold may do; the ceiling). A refused line has failed a statement of the
 * job: the caller throws, and the job's savepoint takes back what the entry had written.
 */
export type LineOutcome = 'applied' | 'below_floor' | 'above_ceiling';

/** A line refused by its book's trigger. */
export type Refusal = Exclude<LineOutcome, 'applied'>;

/** An entry and its lines, to post together (see LedgerStore.post). */
export interface NewPosting {
  entry: NewEntry;
  /** In the order they are applied (the domain puts debits first, so an overdraft is refused before any credit). */
  lines: { bookId: string; amount: number }[];
}

export interface BookBalance { kind: string; balance: number }

/** A system book's balance: the sum of its shards, and how many there are. */
export interface SystemBookBalance { kind: string; balance: number; shards: number }

/** A book's running balance beside the sum of its lines (they must agree). */
export interface BookAgainstLines { id: string; balance: number; lines: number }

/** Which lines of a book one statement page covers: newest first, keyset-paged on (created_at, id). */
export interface StatementRange {
  bookId: string;
  /** ISO instants: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  /** The last line of the previous page. */
  after?: { createdAt: string; id: number };
  limit: number;
}

/** A line of the statement with its entry. */
export interface StatementLine {
  id: number;
  amount: number;
  balanceAfter: number;
  createdAt: string;
  entryId: string;
  kind: LedgerEntryKind;
  resourceId: string | null;
  description: string | null;
}

export interface LastEntry { id: string; kind: string; createdAt: string }

/** The first row of a raw query, wherever it runs: the read connection, or a reader thread (db/reader-thread.ts). */
export type FirstRow = <T>(query: SQL) => Promise<T | undefined>;

/**
 * The ledger audit's scans, each answering its first offending row (or undefined): over the stores'
 * connection (`LedgerStore.auditReads()`), or a reader thread's (db/ledger-audit-runner.ts).
 */
export interface LedgerAuditReads {
  /** An entry whose lines do not sum to zero, or that has fewer than two lines. */
  unbalancedEntry(): Promise<{ id: string; total: number | null; lines: number } | undefined>;
  /** A book whose running balance differs from the sum of its lines. */
  bookOffItsLines(): Promise<{ id: string; kind: string; balance: number; lines: number } | undefined>;
  /** A system book whose rows are not one per shard number from zero up: two rows claiming one shard, or a shard below zero. */
  systemBookMisnumbered(): Promise<{ kind: string; shards: number; numbered: number; lowest: number } | undefined>;
  /**
   * The system books' shards and the merchant books, summed from their balances (O(books)), when they do
   * not add up to zero: every entry sums to zero, so what the outside world's side holds must be what
   * the merchants' side holds, negated.
   */
  booksOffZero(): Promise<{ system: number; merchants: number } | undefined>;
  /** A merchant book other than `exceptBook` below zero. */
  merchantBookBelowZero(exceptBook: BookKind): Promise<{ id: string; kind: string; balance: number } | undefined>;
  /**
   * Replaying each merchant book of kind `book` in line order: a debit by an entry of another kind than
   * `exceptEntry` that left it (or kept it) below zero.
   */
  debitBelowZero(book: BookKind, exceptEntry: LedgerEntryKind): Promise<{ book: string; entry: string; kind: string; running: number } | undefined>;
  /** A withdrawal whose batches do not add up to its amount. */
  withdrawalOffItsBatches(): Promise<{ id: string; amount: number; batches: number } | undefined>;
  /**
   * A transaction with a number of `credit` entries other than one when APPROVED, or other than none
   * otherwise.
   */
  transactionCreditedWrongly(credit: LedgerEntryKind): Promise<{ id: string; status: string; credits: number } | undefined>;
}

// A kind spelled in SQL, checked against the contract's vocabulary: the same literal text as before
// (not a parameter), so the queries and their plans are unchanged.
const entryKind = (kind: LedgerEntryKind) => sql.raw(`'${kind}'`);
const bookKind = (kind: BookKind) => sql.raw(`'${kind}'`);

/** The audit's scans over any way of reading a query's first row. */
export function ledgerAuditReads(first: FirstRow): LedgerAuditReads {
  return {
    // every entry's lines sum to zero (and an entry has lines at all)
    unbalancedEntry: () => first(sql`
      SELECT e.id, sum(l.amount) AS total, count(l.id) AS lines
      FROM ledger_entries e LEFT JOIN ledger_lines l ON l.entry_id = e.id
      GROUP BY e.id HAVING count(l.id) < 2 OR sum(l.amount) <> 0 LIMIT 1`),
    bookOffItsLines: () => first(sql`
      SELECT b.id, b.kind, b.balance, coalesce(s.total, 0) AS lines
      FROM ledger_books b LEFT JOIN (SELECT book_id, sum(amount) AS total FROM ledger_lines GROUP BY book_id) s ON s.book_id = b.id
      WHERE b.balance <> coalesce(s.total, 0) LIMIT 1`),
    // both O(books), whatever the number of lines: the lines themselves are book_balances' and entries_balanced's
    systemBookMisnumbered: () => first(sql`
      SELECT kind, count(*) AS shards, count(DISTINCT shard) AS numbered, min(shard) AS lowest
      FROM ledger_books WHERE account_id IS NULL
      GROUP BY kind HAVING count(*) <> count(DISTINCT shard) OR min(shard) < 0 LIMIT 1`),
    booksOffZero: () => first(sql`
      SELECT system, merchants FROM (
        SELECT coalesce(sum(CASE WHEN account_id IS NULL THEN balance ELSE 0 END), 0) AS system,
               coalesce(sum(CASE WHEN account_id IS NULL THEN 0 ELSE balance END), 0) AS merchants
        FROM ledger_books) AS sides
      WHERE system + merchants <> 0`),
    merchantBookBelowZero: (exceptBook) => first(sql`
      SELECT id, kind, balance FROM ledger_books
      WHERE account_id IS NOT NULL AND kind <> ${bookKind(exceptBook)} AND balance < 0 LIMIT 1`),
    debitBelowZero: (book, exceptEntry) => first(sql`
      SELECT book, entry, kind, running FROM (
        SELECT l.book_id AS book, l.entry_id AS entry, l.amount, e.kind,
               sum(l.amount) OVER (PARTITION BY l.book_id ORDER BY l.id) AS running
        FROM ledger_lines l
        JOIN ledger_books b ON b.id = l.book_id
        JOIN ledger_entries e ON e.id = l.entry_id
        WHERE b.account_id IS NOT NULL AND b.kind = ${bookKind(book)}) AS replay
      WHERE running < 0 AND amount < 0 AND kind <> ${entryKind(exceptEntry)} LIMIT 1`),
    withdrawalOffItsBatches: () => first(sql`
      SELECT w.id, w.amount, coalesce(sum(b.amount), 0) AS batches
      FROM withdrawals w LEFT JOIN withdrawal_batches b ON b.withdrawal_id = w.id
      GROUP BY w.id HAVING coalesce(sum(b.amount), 0) <> w.amount LIMIT 1`),
    transactionCreditedWrongly: (credit) => first(sql`
      SELECT id, status, credits FROM (
        SELECT t.id, t.status,
               (SELECT count(*) FROM ledger_entries e WHERE e.resource_id = t.id AND e.kind = ${entryKind(credit)}) AS credits
        FROM transactions t) AS credited
      WHERE (status = 'APPROVED' AND credits <> 1) OR (status <> 'APPROVED' AND credits <> 0) LIMIT 1`),
  };
}

/**
 * One statement page's query: ledger_lines_book_created_idx serves the book, the date range, the cursor
 * and the order, so a page costs the same at line 50 and at line 1,000,000. Exported for the plan test.
 */
export function statementPageQuery(db: OnHandle, r: StatementRange) {
  const where: SQL[] = [eq(ledgerLines.bookId, r.bookId)];
  if (r.from) where.push(gte(ledgerLines.createdAt, r.from));
  if (r.to) where.push(lt(ledgerLines.createdAt, r.to));
  if (r.after) where.push(sql`(${ledgerLines.createdAt}, ${ledgerLines.id}) < (${r.after.createdAt}, ${r.after.id})`);
  return handleOf(db).select({
    id: ledgerLines.id, amount: ledgerLines.amount, balanceAfter: ledgerLines.balanceAfter, createdAt: ledgerLines.createdAt,
    entryId: ledgerEntries.id, kind: ledgerEntries.kind, resourceId: ledgerEntries.resourceId, description: ledgerEntries.description,
  }).from(ledgerLines)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .where(and(...where))
    .orderBy(desc(ledgerLines.createdAt), desc(ledgerLines.id))
    .limit(r.limit + 1);
}

const ph = (name: string) => sql.placeholder(name);

// Prepared once per connection (the store is), each group on first use.
function prepareBooks(d: DrizzleDb) {
  return {
    merchantBook: d.select({ id: ledgerBooks.id }).from(ledgerBooks)
      .where(and(eq(ledgerBooks.accountId, ph('account')), eq(ledgerBooks.kind, ph('kind')))).prepare(),
    systemBook: d.select({ id: ledgerBooks.id }).from(ledgerBooks)
      .where(and(isNull(ledgerBooks.accountId), eq(ledgerBooks.kind, ph('kind')), eq(ledgerBooks.shard, ph('shard')))).prepare(),
    // a shard's first use: two jobs may open it at once (PostgreSQL), the second then finds the first's
    openSystemShard: d.insert(ledgerBooks).values({
      id: ph('id'), accountId: null, kind: ph('kind'), shard: ph('shard'), allowNegative: 1, balance: 0, updatedAt: ph('at'),
    }).onConflictDoNothing().prepare(),
    balances: d.select({ kind: ledgerBooks.kind, balance: ledgerBooks.balance }).from(ledgerBooks)
      .where(eq(ledgerBooks.accountId, ph('account'))).prepare(),
  };
}

function preparePosting(d: DrizzleDb) {
  return {
    insertEntry: d.insert(ledgerEntries).values({
      id: ph('id'), accountId: ph('accountId'), kind: ph('kind'), resourceId: ph('resourceId'), description: ph('description'), createdAt: ph('createdAt'),
    }).prepare(),
    // The line states the balance it leaves and is dated no earlier than the book's previous line (a
    // clock stepping back must not reorder a statement); the trigger checks both in the same statement.
    insertLine: d.insert(ledgerLines).values({
      entryId: ph('entryId'), bookId: ph('bookId'), amount: ph('amount'),
      balanceAfter: sql`(SELECT ${ledgerBooks.balance} FROM ${ledgerBooks} WHERE ${ledgerBooks.id} = ${ph('bookId')}) + ${ph('amount')}`,
      createdAt: greatest(ph('createdAt'), sql`(SELECT ${ledgerBooks.updatedAt} FROM ${ledgerBooks} WHERE ${ledgerBooks.id} = ${ph('bookId')})`),
    }).prepare(),
  };
}

// PostgreSQL: the entry, its books' locks and its lines as one call of ledger_post (db/pg/sql/triggers.sql,
// migration 0009), one statement and one round trip; the lines as a JSON text (cast, so that the driver
// sends it as it is)
function preparePgPosting(d: DrizzleDb) {
  return {
    post: d.select({ posted: sql<string>`ledger_post(${ph('id')}, ${ph('accountId')}, ${ph('kind')}, ${ph('resourceId')}, ${ph('description')}, ${ph('createdAt')}::timestamptz, (${ph('lines')}::text)::jsonb)::text` })
      .from(sql`(SELECT 1) AS one`).prepare(),
  };
}

/** Which limit a failed line insert met, if it was one of the book's limits. */
function refusalOf(err: unknown): Refusal | null {
  if (failedConstraint(err, 'ledger_books_balance_non_negative')) return 'below_floor';
  if (failedConstraint(err, 'ledger_books_balance_ceiling')) return 'above_ceiling';
  return null;
}

function failedConstraint(err: unknown, name: string): boolean {
  // drizzle may wrap the driver's error; the constraint name is in one of the two messages
  for (let e: unknown = err, i = 0; e instanceof Error && i < 3; e = e.cause, i++) {
    if (e.message.includes(name)) return true;
  }
  return false;
}

/** Book ids kept per connection at most (about 4 per merchant and 64 per system book); past it the cache starts over. */
const KNOWN_BOOKS_MAX = 100_000;

export class LedgerStore {
  private books?: ReturnType<typeof prepareBooks>;
  private readonly knownBooks = new Map<string, string>();
  private posting?: ReturnType<typeof preparePosting>;
  private pgPosting?: ReturnType<typeof preparePgPosting>;
  private audit?: LedgerAuditReads;

  constructor(private readonly db: DrizzleDb) {}

  private get booksSt() { return (this.books ??= prepareBooks(this.db)); }
  private get postingSt() { return (this.posting ??= preparePosting(this.db)); }
  private get pgPostingSt() { return (this.pgPosting ??= preparePgPosting(this.db)); }

  /** Inserts a book at a zero balance. */
  async insertBook(b: NewBook): Promise<void> {
    await this.db.insert(ledgerBooks).values({ id: b.id, accountId: b.accountId, kind: b.kind, shard: b.shard, allowNegative: b.allowNegative ? 1 : 0, balance: 0, updatedAt: b.at.toISOString() });
  }

  /** The id of an account's book of this kind, if it has one. */
  async merchantBookId(accountId: string, kind: MerchantBook): Promise<string | undefined> {
    const key = `${accountId}\n${kind}`;
    return this.knownBooks.get(key) ?? this.remember(key, (await first(this.booksSt.merchantBook.execute({ account: accountId, kind })))?.id);
  }

  /** The id of this shard of the system's book of this kind, if it exists yet. */
  async systemBookId(kind: SystemBook, shard: number): Promise<string | undefined> {
    const key = `\n${kind}\n${shard}`;
    return this.knownBooks.get(key) ?? this.remember(key, (await first(this.booksSt.systemBook.execute({ kind, shard })))?.id);
  }

  /**
   * A book found is kept by (account, kind) or (kind, shard) once its row is committed (PostgreSQL, where
   * each lookup is a round trip in every entry): a book is never deleted and never changes account, kind
   * or shard (unique indexes and triggers), so a committed book's id is its id for good. Not before the
   * COMMIT: the row may be one an earlier job of the same group created, and the group may yet be lost.
   */
  private remember(key: string, id: string | undefined): string | undefined {
    if (id !== undefined) {
      whenCommittedOnPostgres(this.db, () => {
        if (this.knownBooks.size >= KNOWN_BOOKS_MAX) this.knownBooks.clear();
        this.knownBooks.set(key, id);
      });
    }
    return id;
  }

  /**
   * Inside a write job: the id of this shard of a system book, opened (at zero, allowed negative) under
   * `id` if no job has yet. Two jobs opening one shard at once (PostgreSQL) meet at its unique index: the
   * second waits for the first to commit, inserts nothing, and reads the first's row.
   */
  async openSystemShard(kind: SystemBook, shard: number, id: string, at: Date): Promise<string> {
    await this.booksSt.openSystemShard.execute({ id, kind, shard, at: at.toISOString() });
    const found = await this.systemBookId(kind, shard);
    if (!found) throw new Error(`system book ${kind} shard ${shard} could not be opened`);
    return found;
  }

  /** Each system book's balance, summed over its shards (O(shards), whatever the number of lines). */
  systemBalances(): Promise<SystemBookBalance[]> {
    return rawRows<SystemBookBalance>(this.db, sql`
    SELECT kind, coalesce(sum(balance), 0) AS balance, count(*) AS shards FROM ledger_books WHERE account_id IS NULL GROUP BY kind ORDER BY kind`);
  }

  /** The running balances of an account's books, one row per book (O(1) in the number of entries). */
  async balances(accountId: string): Promise<BookBalance[]> {
    return this.booksSt.balances.execute({ account: accountId });
  }

  /**
   * Inside a write job: posts an entry and its lines, each line applied to its book by the trigger (which moves
   * the balance and refuses an overdraft or a balance above the ceiling), or says which limit refused a line
   * (then the job must fail: its savepoint takes back what the entry had written). On PostgreSQL it is one
   * statement (ledger_post: the books locked in id order until the job commits, so concurrent entries on a
   * book take turns and each line is computed from its book's current balance); on SQLite, whose single
   * writer needs no lock, the prepared inserts.
   */
  async post(p: NewPosting): Promise<LineOutcome> {
    try {
      if (onPostgres) await this.postOnPg(p);
      else await this.postOnSqlite(p);
      return 'applied';
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal) return refusal;
      throw err;
    }
  }

  /**
   * Inside a write job: `post` for a job that answers a refusal only by failing with `refused(refusal)`. On
   * PostgreSQL nothing waits for it (db/query.ts pipelined): it travels with the job's next statements, and a
   * refusal becomes the job's error when the job ends (the statements sent after it fail with it). On
   * SQLite it runs here and throws at once.
   */
  async postOrFail(p: NewPosting, refused: (r: Refusal) => Error): Promise<void> {
    const failed = (err: unknown) => { const r = refusalOf(err); throw r ? refused(r) : err; };
    if (!onPostgres) {
      try { await this.postOnSqlite(p); } catch (err) { failed(err); }
      return;
    }
    await pipelined(this.db, () => this.postOnPg(p).then(undefined, failed));
  }

  private postOnPg(p: NewPosting): Promise<unknown> {
    return this.pgPostingSt.post.execute({ ...p.entry, lines: JSON.stringify(p.lines.map((l) => ({ book: l.bookId, amount: l.amount }))) });
  }

  private async postOnSqlite(p: NewPosting): Promise<void> {
    const st = this.postingSt;
    await st.insertEntry.execute({ ...p.entry });
    for (const l of p.lines) await st.insertLine.execute({ entryId: p.entry.id, bookId: l.bookId, amount: l.amount, createdAt: p.entry.createdAt });
  }

  /** The sum of every line of the ledger. */
  async lineTotal(): Promise<number> {
    return (await first(this.db.select({ s: sql<number>`coalesce(sum(${ledgerLines.amount}), 0)` }).from(ledgerLines)))?.s ?? 0;
  }

  /** Every book's running balance beside the sum of its lines. */
  booksAgainstLines(): Promise<BookAgainstLines[]> {
    return rawRows<BookAgainstLines>(this.db, sql`
    SELECT b.id, b.balance, coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0) AS lines
    FROM ledger_books b`);
  }

  /** One page of a book's lines (one more than `limit`: whether a next page exists). */
  async statementPage(r: StatementRange): Promise<StatementLine[]> {
    return statementPageQuery(this.db, r);
  }

  /** The ledger audit's scans on this connection. */
  auditReads(): LedgerAuditReads {
    return (this.audit ??= ledgerAuditReads((query) => rawRow(this.db, query)));
  }

  /** The last committed ledger entry (for the backup's printout; on SQLite's file by rowid). */
  async lastEntry(): Promise<LastEntry | null> {
    return (await rawRow<LastEntry>(this.db, onPostgres
      ? sql`SELECT id, kind, created_at AS "createdAt" FROM ledger_entries ORDER BY created_at DESC, id DESC LIMIT 1`
      : sql`SELECT id, kind, created_at AS createdAt FROM ledger_entries ORDER BY rowid DESC LIMIT 1`)) ?? null;
  }
}
