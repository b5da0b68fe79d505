import { dateBound as bound, decodeCursor, encodeCursor } from '../cursor';
import type { Stores } from '../../../db';
import type { WithdrawalListPage } from '../../../db/stores/withdrawals';
import { DomainError, validationError } from '../../errors';
import { ID_PREFIX } from '../../../contract/ids';
import type { WithdrawalStatus } from './rules';
import { withdrawalView, withdrawalViewByBatch, withdrawalViews, type WithdrawalPage, type WithdrawalView } from './view';
import type { Services } from '../../services';

/**
 * GET /withdraw: by `identifier` (the withdrawal id or any of its batch identifiers) and/or
 * `external_ref`. Either is enough; when both are given they must name the same withdrawal. Another
 * account's withdrawal answers 404, exactly like an unknown one.
 */
export async function findWithdrawal(s: Pick<Services, 'db'>, accountId: string, q: { identifier?: string | null; external_ref?: string | null }): Promise<WithdrawalView> {
  const reads = s.db.read;
  const identifier = q.identifier ?? null;
  const externalRef = q.external_ref ?? null;
  if (identifier === null && externalRef === null) {
    throw validationError([{ path: 'identifier', message: 'send identifier or external_ref' }]);
  }
  const isBatch = identifier !== null && identifier.startsWith(`${ID_PREFIX.batch}_`);
  // the usual query, by a batch identifier alone: one statement
  if (isBatch && externalRef === null) return withdrawalViewByBatch(reads, accountId, identifier).then(foundOr404);
  let id: string | null = null;
  if (identifier !== null) {
    // the prefix says which table: one primary-key lookup either way
    id = isBatch ? await reads.withdrawals.idOfBatch(accountId, identifier) : identifier;
  }
  if (externalRef !== null) {
    const found = await reads.withdrawals.idOfExternalRef(accountId, externalRef);
    if (found === null || (id !== null && found !== id)) throw withdrawalNotFound();
    id = found;
  }
  // one statement (withdrawalView): consistent on PostgreSQL without a snapshot transaction
  return foundOr404(id === null ? null : await withdrawalView(reads, accountId, id));
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
 * The page a filter asks for, newest first, keyset-paginated on (created_at, id): the dates as
 * stored-form bounds, the cursor decoded, one row more than the page to know whether another follows.
 */
function listPageOf(accountId: string, f: ListFilter): WithdrawalListPage {
  return {
    accountId,
    status: f.status,
    since: f.from ? bound('from', f.from) : undefined,
    until: f.to ? bound('to', f.to) : undefined,
    before: f.cursor ? decodeCursor(f.cursor, ID_PREFIX.withdrawal) : undefined,
    take: (f.limit ?? DEFAULT_LIST_LIMIT) + 1,
  };
}

/** The page's query (db/stores/withdrawals.ts listPageQuery: an index walk). For the plan test. */
export function withdrawalPageQuery(tx: Stores, accountId: string, f: ListFilter) {
  return tx.withdrawals.listPageQuery(listPageOf(accountId, f));
}

/** The dashboard's list: one query for the page, one for all of its batches. */
export async function listWithdrawals(s: Pick<Services, 'db'>, accountId: string, f: ListFilter): Promise<WithdrawalPage> {
  const reads = s.db.read;
  const limit = f.limit ?? DEFAULT_LIST_LIMIT;
  const rows = await reads.withdrawals.listPage(listPageOf(accountId, f));
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: await withdrawalViews(reads, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
