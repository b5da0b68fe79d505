import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawalBatches, withdrawals } from '../../db/schema';
import type Database from 'better-sqlite3';
import { openConnection } from '../../db/client';
import { encodeCursor, withdrawalPageQuery } from '../../server/domain/withdrawals/query';
import { duePaymentOrdersQuery } from '../../server/domain/withdrawals/settle';
import { batchesOfQuery } from '../../server/domain/withdrawals/view';
import { callerFor, makeAccount, makeTestServices } from '../support/services';

/**
 * The dashboard list stays cheap at 100,000 withdrawals: every page, first or deep, is an index walk
 * in (created_at, id) order that stops after limit+1 rows (no scan, no sort), shown by the query plan.
 */
const N = 100_000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const at = (i: number) => new Date(BASE + i * 1000).toISOString();
const idOf = (i: number) => `wd_${String(i).padStart(20, '0')}`;

let s: ReturnType<typeof makeTestServices>;
let accountId: string;
let raw: Database.Database | undefined;

beforeAll(async () => {
  s = makeTestServices();
  accountId = (await makeAccount(s)).account_id;
  const other = (await makeAccount(s)).account_id;
  // one write job of the writer, in chunks of 500 rows per statement
  await s.db.write(async (tx) => {
    for (let start = 0; start < N; start += 500) {
      const w: (typeof withdrawals.$inferInsert)[] = [];
      const b: (typeof withdrawalBatches.$inferInsert)[] = [];
      for (let i = start; i < Math.min(N, start + 500); i++) {
        const acc = i % 50 === 49 ? other : accountId;
        const status = i % 10 === 3 ? 'ERROR' as const : 'PAID' as const;
        w.push({ id: idOf(i), accountId: acc, status, amount: 100 + (i % 1000), key: 'fulano@example.com', keyType: 'EMAIL', detailsName: 'Fulano', detailsDocument: '52998224725', createdAt: at(i), updatedAt: at(i) });
        b.push({ id: `wdb_${String(i).padStart(20, '0')}`, withdrawalId: idOf(i), accountId: acc, seq: 0, amount: 100 + (i % 1000), status, dueAt: at(i), createdAt: at(i), updatedAt: at(i) });
      }
      await tx.insert(withdrawals).values(w);
      await tx.insert(withdrawalBatches).values(b);
    }
  });
}, 120_000);
afterAll(async () => { raw?.close(); await s.cleanup(); });

/** EXPLAIN QUERY PLAN of the very query the domain runs, on a connection of its own. */
function plan(q: { toSQL(): { sql: string; params: unknown[] } }): string {
  const { sql, params } = q.toSQL();
  raw ??= openConnection(s.db.path, { readonly: true });
  const rows = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as never[])) as { detail: string }[];
  if (process.env.SHOW_PLANS) console.log(sql, '\n', rows.map((r) => r.detail).join('\n'));
  return rows.map((r) => r.detail).join('\n');
}

/** An index search on the account's rows, in order: no full scan and no sort of the matches. */
function expectIndexWalk(p: string, index: string) {
  expect(p).toMatch(new RegExp(`SEARCH withdrawals USING (COVERING )?INDEX ${index} \\(account_id=\\?`));
  expect(p).not.toMatch(/SCAN withdrawals|TEMP B-TREE/);
}

describe('withdrawals.list over 100,000 rows', () => {
  const mine = Array.from({ length: N }, (_, i) => i).filter((i) => i % 50 !== 49).reverse(); // newest first

  it('answers the first page from the index', async () => {
    const page = await callerFor(s, accountId).withdrawals.list({ limit: 20 });
    expect(page.items.map((i) => i.id)).toEqual(mine.slice(0, 20).map(idOf));
    expect(page.items[0].receipt).toHaveLength(1);
    expectIndexWalk(plan(withdrawalPageQuery(s.db.read, accountId, { limit: 20 })), 'withdrawals_account_created_idx');
  });

  it('answers a deep page (row 60,000) from the index, seeking to the cursor', async () => {
    const pos = 60_000;
    const cursor = encodeCursor({ createdAt: at(mine[pos - 1]), id: idOf(mine[pos - 1]) });
    const page = await callerFor(s, accountId).withdrawals.list({ limit: 50, cursor });
    expect(page.items.map((i) => i.id)).toEqual(mine.slice(pos, pos + 50).map(idOf));
    const p = plan(withdrawalPageQuery(s.db.read, accountId, { limit: 50, cursor }));
    expectIndexWalk(p, 'withdrawals_account_created_idx');
    // the cursor is part of the index search, not a filter applied to rows read before it
    expect(p).toMatch(/\(account_id=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    // and following next_cursor continues exactly where the page ended
    const next = await callerFor(s, accountId).withdrawals.list({ limit: 50, cursor: page.next_cursor });
    expect(next.items[0].id).toBe(idOf(mine[pos + 50]));
  });

  it('uses the status index with a status filter, and the date bounds in the search', async () => {
    const deep = mine.filter((i) => i % 10 === 3);
    const cursor = encodeCursor({ createdAt: at(deep[5_000]), id: idOf(deep[5_000]) });
    const page = await callerFor(s, accountId).withdrawals.list({ status: 'ERROR', limit: 10, cursor });
    expect(page.items.map((i) => i.id)).toEqual(deep.slice(5_001, 5_011).map(idOf));
    expectIndexWalk(plan(withdrawalPageQuery(s.db.read, accountId, { status: 'ERROR', limit: 10, cursor })), 'withdrawals_account_status_created_idx');

    const from = at(70_000);
    const to = at(70_100);
    const ranged = await callerFor(s, accountId).withdrawals.list({ from, to, limit: 100 });
    expect(ranged.items.map((i) => i.id)).toEqual(mine.filter((i) => i >= 70_000 && i < 70_100).map(idOf));
    const p = plan(withdrawalPageQuery(s.db.read, accountId, { from, to, limit: 100 }));
    expectIndexWalk(p, 'withdrawals_account_created_idx');
    expect(p).toMatch(/created_at>\? AND created_at<\?|created_at>\?.*created_at<\?/);
  });

  it('loads all batches of a page with one indexed query', () => {
    const p = plan(batchesOfQuery(s.db.read, mine.slice(0, 100).map(idOf)));
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_withdrawal_idx \(withdrawal_id=\?\)/);
    expect(p).not.toMatch(/SCAN withdrawal_batches/);
  });

  it('finds due batches for the settlement job through the due index', async () => {
    const p = plan(duePaymentOrdersQuery(s.db.read, new Date(), 25));
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_due_idx \(status=\? AND due_at<\?\)/);
    expect(p).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    expect(p).not.toMatch(/SCAN|TEMP B-TREE/);
    // every seeded batch is settled: nothing is due however late it is
    expect(await duePaymentOrdersQuery(s.db.read, new Date('2100-01-01'), 25).all()).toEqual([]);
  });
});
