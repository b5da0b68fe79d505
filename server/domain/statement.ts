import type { Stores } from '../../db';
import type { StatementLine, StatementRange } from '../../db/stores/ledger';
import { DomainError, validationError } from '../errors';
import type { Services } from '../services';
import { dateBound, decodeCursor, encodeCursor } from './cursor';
import { ID_PREFIX } from '../../contract/ids';
import { LEDGER_KINDS, STATEMENT_ENTRY_KINDS, type LedgerEntryKind, type LedgerKind } from '../../contract/ledger';
import { STATEMENT_DEFAULT_LIMIT, type StatementResourceType, type StatementType } from '../../contract/statement';

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

type Range = StatementRange;

/** Checks the query (400 on a bad date, a reversed range or a foreign cursor) and resolves it. */
export async function statementRange(tx: Stores, accountId: string, q: StatementQuery): Promise<Range | null> {
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
  const bookId = await tx.ledger.merchantBookId(accountId, 'available');
  if (!bookId) return null;
  return { bookId, from, to, after, limit: q.limit ?? STATEMENT_DEFAULT_LIMIT };
}

function toMovement(r: StatementLine): StatementMovement {
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
  // newest first, keyset-paged on (created_at, id): a page costs the same at line 50 and at line 1,000,000
  const rows = await db.ledger.statementPage(range);
  const page = rows.slice(0, range.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toMovement),
    next_cursor: rows.length > range.limit && last ? encodeCursor({ createdAt: last.createdAt, id: lineId(last.id) }) : null,
    timestamp,
  };
}
