import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { dateBound as bound, decodeCursor, encodeCursor } from '../cursor';
import type { Stores } from '../../../db';
import { withdrawals } from '../../../db/schema';
import { DomainError, validationError } from '../../errors';
import { ID_PREFIX } from '../ids';
import type { WithdrawalStatus } from './rules';
import { viewedWithdrawalColumns, withdrawalLookups, withdrawalView, withdrawalViewByBatch, withdrawalViews, type WithdrawalListItem, type WithdrawalView } from './view';
import { first } from '../../../db/query';

/**
 * GET /withdraw: by `identifier` (the withdrawal id or any of its batch identifiers) and/or
 * `external_ref`. Either is enough; when both are given they must name the same withdrawal. Another
 * account's withdrawal answers 404, exactly like an unknown one.
 */
export async function findWithdrawal(db: Stores, accountId: string, q: { identifier?: string | null; external_ref?: string | null }): Promise<WithdrawalView> {
  const identifier = q.identifier ?? null;
  const externalRef = q.external_ref ?? null;
  if (identifier === null && externalRef === null) {
    throw validationError([{ path: 'identifier', message: 'send identifier or external_ref' }]);
  }
  const isBatch = identifier !== null && identifier.startsWith(`${ID_PREFIX.batch}_`);
  // the usual query, by a batch identifier alone: one statement
  if (isBatch && externalRef === null) return withdrawalViewByBatch(db, accountId, identifier).then(foundOr404);
  const lookups = withdrawalLookups(db);
  let id: string | null = null;
  if (identifier !== null) {
    // the prefix says which table: one primary-key lookup either way
    id = isBatch ? (await first(lookups.idOfBatch.execute({ id: identifier, accountId })))?.id ?? null : identifier;
  }
  if (externalRef !== null) {
    const row = await first(lookups.idOfExternalRef.execute({ accountId, externalRef }));
    if (!row || (id !== null && row.id !== id)) throw withdrawalNotFound();
    id = row.id;
  }
  // one statement (withdrawalView): consistent on PostgreSQL without a snapshot transaction
  return foundOr404(id === null ? null : await withdrawalView(db, accountId, id));
}

// (module-level, not per call: tsx names a closure made inside a function on every call)
function withdrawalNotFound(): DomainError {
  return new DomainError('NOT_FOUND', 'withdrawal not found');
}

function foundOr404(view: WithdrawalView | null): WithdrawalView {
  if (!view) throw withdrawalNotFound();
  return view;
}

export interface ListFilter {
  cursor?: string | null;
  limit?: number;
  status?: WithdrawalStatus;
  /** Inclusive lower bound on created_at (ISO 8601). */
  from?: string;
  /** Exclusive upper bound on created_at (ISO 8601); a bare date means the end of that day. */
  to?: string;
}

export const DEFAULT_LIST_LIMIT = 20;

export { encodeCursor } from '../cursor';

/**
 * The page query, newest first, keyset-paginated on (created_at, id). It walks
 * withdrawals_account_created_idx (or withdrawals_account_status_created_idx with a status filter) in
 * order, so a page costs the same at row 20 and at row 100,000. Exported for the plan test.
 */
export function withdrawalPageQuery(db: Stores, accountId: string, f: ListFilter) {
  const limit = f.limit ?? DEFAULT_LIST_LIMIT;
  const where: SQL[] = [eq(withdrawals.accountId, accountId)];
  if (f.status) where.push(eq(withdrawals.status, f.status));
  if (f.from) where.push(gte(withdrawals.createdAt, bound('from', f.from)));
  if (f.to) where.push(lt(withdrawals.createdAt, bound('to', f.to)));
  if (f.cursor) {
    const c = decodeCursor(f.cursor, ID_PREFIX.withdrawal);
    where.push(sql`(${withdrawals.createdAt}, ${withdrawals.id}) < (${c.createdAt}, ${c.id})`);
  }
  return db.handle.select(viewedWithdrawalColumns).from(withdrawals).where(and(...where))
    .orderBy(desc(withdrawals.createdAt), desc(withdrawals.id)).limit(limit + 1);
}

/** The dashboard's list: one query for the page, one for all of its batches. */
export async function listWithdrawals(db: Stores, accountId: string, f: ListFilter): Promise<{ items: WithdrawalListItem[]; next_cursor: string | null }> {
  const limit = f.limit ?? DEFAULT_LIST_LIMIT;
  const rows = await withdrawalPageQuery(db, accountId, f);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: await withdrawalViews(db, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
