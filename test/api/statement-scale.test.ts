// @engines sqlite: seeds a million lines with SQLite SQL (printf, strftime) and asserts SQLite's query plans
import type Database from 'better-sqlite3';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../db/client';
import { ManualClock } from '../../server/clock';
import { ledgerBooks } from '../../db/schema';
import { encodeCursor } from '../../server/domain/cursor';
import { statementPageQuery } from '../../db/stores/ledger';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * The statement stays cheap at 1,000,000 ledger lines: every page, first or deep, with or without a
 * date range, is a walk of ledger_lines_book_created_idx in (created_at, id) order that stops after
 * limit+1 rows, joined to its entry by primary key (no scan, no sort), shown by the query plan.
 */
const N = 1_000_000;
const BASE_S = Date.parse('2026-01-01T00:00:00.000Z') / 1000;
const at = (i: number) => new Date((BASE_S + i) * 1000).toISOString();
const mine = (i: number) => i % 10 !== 9; // every tenth line is another account's

let s: TestServices;
let accountId: string;
let bookId: string;
let raw: Database.Database | undefined;

beforeAll(async () => {
  // accounts opened before the seeded lines: a book's lines are never dated before its last change
  s = await makeTestServices({ clock: new ManualClock(new Date('2025-12-31T00:00:00.000Z')) });
  accountId = (await makeAccount(s)).account_id;
  const other = (await makeAccount(s)).account_id;
  const book = async (acc: string) => (await s.db.read.handle.select({ id: ledgerBooks.id }).from(ledgerBooks)
    .where(and(eq(ledgerBooks.accountId, acc), eq(ledgerBooks.kind, 'available'))).get())!.id;
  bookId = await book(accountId);
  const otherBook = await book(other);
  // One job of the writer; lines go through the real triggers (balance_after and date checked, books
  // updated). Only the merchant side is seeded: the plan does not depend on the counter-lines.
  await s.db.write((tx) => {
    tx.handle.run(sql`
      INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at)
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${N - 1})
      SELECT printf('lje_%020d', i), CASE WHEN i % 10 = 9 THEN ${other} ELSE ${accountId} END, 'sandbox_topup', NULL, 'seed',
             strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE_S} + i, 'unixepoch')
      FROM n`);
    tx.handle.run(sql`
      INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${N - 1})
      SELECT printf('lje_%020d', i),
             CASE WHEN i % 10 = 9 THEN ${otherBook} ELSE ${bookId} END, 100,
             CASE WHEN i % 10 = 9 THEN ((i + 1) / 10) * 100 ELSE (i + 1 - (i + 1) / 10) * 100 END,
             strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE_S} + i, 'unixepoch')
      FROM n`);
  });
}, 600_000);
afterAll(async () => { raw?.close(); await s.cleanup(); });

function plan(q: { toSQL(): { sql: string; params: unknown[] } }): string {
  const { sql: text, params } = q.toSQL();
  raw ??= openConnection(s.db.path, { readonly: true });
  const rows = raw.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...(params as never[])) as { detail: string }[];
  if (process.env.SHOW_PLANS) console.log(text, '\n', rows.map((r) => r.detail).join('\n'));
  return rows.map((r) => r.detail).join('\n');
}

function expectIndexWalk(p: string) {
  expect(p).toMatch(/SEARCH l(edger_lines)? USING (COVERING )?INDEX ledger_lines_book_created_idx \(book_id=\?/);
  expect(p).toMatch(/SEARCH (e|ledger_entries) USING INDEX sqlite_autoindex_ledger_entries_1 \(id=\?\)/);
  expect(p).not.toMatch(/SCAN|TEMP B-TREE/);
}

describe(`account.statement over ${N.toLocaleString('en')} ledger lines`, () => {
  const lineNo = (i: number) => i + 1; // ledger_lines.id of seed row i (a fresh account has no lines)
  const ownNewestFirst = Array.from({ length: N }, (_, i) => N - 1 - i).filter(mine);

  it('answers the first page from the index, with the seeded running balance', async () => {
    const page = await callerFor(s, accountId).account.statement({ limit: 50 });
    expect(page.data.map((m) => m.id)).toEqual(ownNewestFirst.slice(0, 50).map((i) => `lnl_${lineNo(i)}`));
    expect(page.data[0].balance_after).toBe(900_000 * 100);
    expectIndexWalk(plan(statementPageQuery(s.db.read, { bookId, limit: 50 })));
  });

  it('answers a deep page (line 600,000) from the index, seeking to the cursor', async () => {
    const pos = 600_000;
    const i = ownNewestFirst[pos - 1];
    const cursor = encodeCursor({ createdAt: at(i), id: `lnl_${lineNo(i)}` });
    const page = await callerFor(s, accountId).account.statement({ limit: 200, cursor });
    expect(page.data.map((m) => m.id)).toEqual(ownNewestFirst.slice(pos, pos + 200).map((j) => `lnl_${lineNo(j)}`));
    const p = plan(statementPageQuery(s.db.read, { bookId, limit: 200, after: { createdAt: at(i), id: lineNo(i) } }));
    expectIndexWalk(p);
    // the cursor is part of the index search, not a filter over rows read before it (id is the rowid:
    // SQLite seeks on created_at and checks id only among lines of the cursor's very instant)
    expect(p).toMatch(/\(book_id=\? AND (\(created_at,id\)<\(\?,\?\)|created_at<\?)\)/);
  });

  it('puts a date range into the index search', async () => {
    const from = at(700_000);
    const to = at(700_100);
    const page = await callerFor(s, accountId).account.statement({ from, to, limit: 200 });
    expect(page.data.map((m) => m.created_at)).toEqual(ownNewestFirst.filter((i) => i >= 700_000 && i < 700_100).map(at));
    const p = plan(statementPageQuery(s.db.read, { bookId, from, to, limit: 200 }));
    expectIndexWalk(p);
    expect(p).toMatch(/created_at>\? AND created_at<\?/);
  });
});
