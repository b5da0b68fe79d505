import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Stores } from '../../db';
import { perConnection } from '../../db/prepared';
import { ledgerBooks, ledgerEntries, ledgerLines } from '../../db/schema';
import { DomainError, validationError } from '../errors';
import type { Services } from '../services';
import { dateBound, decodeCursor, encodeCursor } from './cursor';
import { ID_PREFIX } from './ids';
import { LEDGER_KINDS, STATEMENT_ENTRY_KINDS, type LedgerEntryKind, type LedgerKind } from '../../contract/ledger';
import { STATEMENT_DEFAULT_LIMIT, type StatementResourceType, type StatementType } from '../../contract/statement';
import { first } from '../../db/query';

/**
 * The account statement (extrato): the lines of the merchant's `available` book. Each line was
 * written with the balance it left, by the same statement that applied it (a trigger checks it), so
 * `balance_after` is exact whatever the concurrency, and paging never recomputes a running sum.
 */
export interface StatementMovement {
  id: string;
  created_at: string;
  type: StatementType;
  /** Signed cents: credits positive, debits negative. */
  amount: number;
  balance_after: number;
  resource: { type: StatementResourceType; id: string };
  description: string;
}

export interface StatementQuery {
  from?: string;
  to?: string;
  cursor?: string | null;
  limit?: number;
}

export interface StatementPage { data: StatementMovement[]; next_cursor: string | null; timestamp: string }

/** Exported for tests: every kind the domain posts against `available` must be one of these. */
export const STATEMENT_KINDS: readonly LedgerEntryKind[] = STATEMENT_ENTRY_KINDS;

const LINE_PREFIX = `${ID_PREFIX.ledgerLine}_`;
const lineId = (n: number) => `${LINE_PREFIX}${n}`;

const availableBook = perConnection((db) => db.select({ id: ledgerBooks.id }).from(ledgerBooks)
  .where(and(eq(ledgerBooks.accountId, sql.placeholder('accountId')), eq(ledgerBooks.kind, 'available'))).prepare());

interface Range { bookId: string; from?: string; to?: string; after?: { createdAt: string; id: number }; limit: number }

/**
 * One page, newest first, keyset-paged on (created_at, id): ledger_lines_book_created_idx serves the
 * book, the date range, the cursor and the order, so a page costs the same at line 50 and at line
 * 1,000,000. Exported for the plan test.
 */
export function statementPageQuery(db: Stores, r: Range) {
  const where: SQL[] = [eq(ledgerLines.bookId, r.bookId)];
  if (r.from) where.push(gte(ledgerLines.createdAt, r.from));
  if (r.to) where.push(lt(ledgerLines.createdAt, r.to));
  if (r.after) where.push(sql`(${ledgerLines.createdAt}, ${ledgerLines.id}) < (${r.after.createdAt}, ${r.after.id})`);
  return db.handle.select({
    id: ledgerLines.id, amount: ledgerLines.amount, balanceAfter: ledgerLines.balanceAfter, createdAt: ledgerLines.createdAt,
    entryId: ledgerEntries.id, kind: ledgerEntries.kind, resourceId: ledgerEntries.resourceId, description: ledgerEntries.description,
  }).from(ledgerLines)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
    .where(and(...where))
    .orderBy(desc(ledgerLines.createdAt), desc(ledgerLines.id))
    .limit(r.limit + 1);
}

/** Checks the query (400 on a bad date, a reversed range or a foreign cursor) and resolves it. */
export async function statementRange(db: Stores, accountId: string, q: StatementQuery): Promise<Range | null> {
  const from = q.from !== undefined ? dateBound('from', q.from) : undefined;
  const to = q.to !== undefined ? dateBound('to', q.to) : undefined;
  if (from !== undefined && to !== undefined && from > to) {
    throw validationError([{ path: 'from', message: 'must not be after to' }]);
  }
  let after: Range['after'];
  if (q.cursor) {
    const c = decodeCursor(q.cursor, ID_PREFIX.ledgerLine);
    const n = Number(c.id.slice(LINE_PREFIX.length));
    if (!/^\d{1,15}$/.test(c.id.slice(LINE_PREFIX.length)) || !Number.isSafeInteger(n)) {
      throw validationError([{ path: 'cursor', message: 'not a cursor returned by this list' }]);
    }
    after = { createdAt: c.createdAt, id: n };
  }
  const book = await first(availableBook(db).execute({ accountId }));
  if (!book) return null;
  return { bookId: book.id, from, to, after, limit: q.limit ?? STATEMENT_DEFAULT_LIMIT };
}

function toMovement(r: Awaited<ReturnType<typeof statementPageQuery>>[number]): StatementMovement {
  const k: LedgerKind | undefined = LEDGER_KINDS[r.kind];
  // a line of `available` whose kind has no statement name is a bug in contract/ledger.ts (a test posts
  // every kind): say so, never guess
  if (!k?.statement) throw new DomainError('INTERNAL', `ledger entry kind ${r.kind} has no statement type`);
  return {
    id: lineId(r.id),
    created_at: r.createdAt,
    type: k.statement,
    amount: r.amount,
    balance_after: r.balanceAfter,
    resource: { type: k.resource, id: k.resource === 'topup' ? r.entryId : (r.resourceId ?? r.entryId) },
    description: r.description ?? '',
  };
}

/** GET /balance/statement. */
export async function accountStatement(s: Services, accountId: string, q: StatementQuery): Promise<StatementPage> {
  const db = s.db.read;
  const timestamp = s.clock.now().toISOString();
  const range = await statementRange(db, accountId, q);
  if (!range) return { data: [], next_cursor: null, timestamp };
  const rows = await statementPageQuery(db, range);
  const page = rows.slice(0, range.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toMovement),
    next_cursor: rows.length > range.limit && last ? encodeCursor({ createdAt: last.createdAt, id: lineId(last.id) }) : null,
    timestamp,
  };
}
