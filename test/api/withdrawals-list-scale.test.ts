// @engines sqlite: seeds with SQLite SQL and asserts SQLite's query plans
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor, withdrawalPageQuery } from '../../server/domain/withdrawals/query';
import { batchesOfQuery, duePaymentOrdersQuery } from '../../db/stores/withdrawals';
import { at, mine as isMine, SCALE_ROWS as N, seedScaleDatabase, wd as idOf, type ScaleDatabase } from '../support/scale-seed';
import { callerFor } from '../support/services';

/**
 * The dashboard list stays cheap at a million withdrawals (test/support/scale-seed.ts): every page,
 * first or deep, is an index walk in (created_at, id) order that stops after limit+1 rows (no scan,
 * no sort), shown by the query plan.
 */
let db: ScaleDatabase;
const plan = (q: Parameters<ScaleDatabase['plan']>[0]) => db.plan(q);

beforeAll(async () => { db = await seedScaleDatabase(); }, 900_000); // the first run seeds (minutes); later runs copy it
afterAll(async () => { await db?.cleanup(); });

/** An index search on the account's rows, in order: no full scan and no sort of the matches. */
function expectIndexWalk(p: string, index: string) {
  expect(p).toMatch(new RegExp(`SEARCH withdrawals USING (COVERING )?INDEX ${index} \\(account_id=\\?`));
  expect(p).not.toMatch(/SCAN withdrawals|TEMP B-TREE/);
}

describe(`withdrawals.list over ${N.toLocaleString('en')} rows`, () => {
  const mine = Array.from({ length: N }, (_, i) => i).filter(isMine).reverse(); // newest first

  it('answers the first page from the index', async () => {
    const page = await callerFor(db.s, db.accountId).withdrawals.list({ limit: 20 });
    expect(page.items.map((i) => i.id)).toEqual(mine.slice(0, 20).map(idOf));
    expect(page.items[0].receipt).toHaveLength(1);
    expectIndexWalk(plan(withdrawalPageQuery(db.s.db.read, db.accountId, { limit: 20 })), 'withdrawals_account_created_idx');
  });

  it('answers a deep page (row 600,000) from the index, seeking to the cursor', async () => {
    const pos = Math.floor(N * 0.6);
    const cursor = encodeCursor({ createdAt: at(mine[pos - 1]), id: idOf(mine[pos - 1]) });
    const page = await callerFor(db.s, db.accountId).withdrawals.list({ limit: 50, cursor });
    expect(page.items.map((i) => i.id)).toEqual(mine.slice(pos, pos + 50).map(idOf));
    const p = plan(withdrawalPageQuery(db.s.db.read, db.accountId, { limit: 50, cursor }));
    expectIndexWalk(p, 'withdrawals_account_created_idx');
    // the cursor is part of the index search, not a filter applied to rows read before it
    expect(p).toMatch(/\(account_id=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    // and following next_cursor continues exactly where the page ended
    const next = await callerFor(db.s, db.accountId).withdrawals.list({ limit: 50, cursor: page.next_cursor });
    expect(next.items[0].id).toBe(idOf(mine[pos + 50]));
  });

  it('uses the status index with a status filter, and the date bounds in the search', async () => {
    const deep = mine.filter((i) => i % 10 === 3);
    const cursor = encodeCursor({ createdAt: at(deep[5_000]), id: idOf(deep[5_000]) });
    const page = await callerFor(db.s, db.accountId).withdrawals.list({ status: 'ERROR', limit: 10, cursor });
    expect(page.items.map((i) => i.id)).toEqual(deep.slice(5_001, 5_011).map(idOf));
    expectIndexWalk(plan(withdrawalPageQuery(db.s.db.read, db.accountId, { status: 'ERROR', limit: 10, cursor })), 'withdrawals_account_status_created_idx');

    const from = at(N - 30_000);
    const to = at(N - 29_900);
    const ranged = await callerFor(db.s, db.accountId).withdrawals.list({ from, to, limit: 100 });
    expect(ranged.items.map((i) => i.id)).toEqual(mine.filter((i) => i >= N - 30_000 && i < N - 29_900).map(idOf));
    const p = plan(withdrawalPageQuery(db.s.db.read, db.accountId, { from, to, limit: 100 }));
    expectIndexWalk(p, 'withdrawals_account_created_idx');
    expect(p).toMatch(/created_at>\? AND created_at<\?|created_at>\?.*created_at<\?/);
  });

  it('loads all batches of a page with one indexed query', () => {
    const p = plan(batchesOfQuery(db.s.db.read, mine.slice(0, 100).map(idOf)));
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_withdrawal_idx \(withdrawal_id=\?\)/);
    expect(p).not.toMatch(/SCAN withdrawal_batches/);
  });

  it('finds due batches for the settlement job through the due index', async () => {
    const p = plan(duePaymentOrdersQuery(db.s.db.read, new Date(), 25));
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_due_idx \(status=\? AND due_at<\?\)/);
    expect(p).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    expect(p).not.toMatch(/SCAN|TEMP B-TREE/);
    // every seeded batch is settled: nothing is due however late it is
    expect(await duePaymentOrdersQuery(db.s.db.read, new Date('2100-01-01'), 25).all()).toEqual([]);
  });
});
