// @engines none: starts a PostgreSQL cluster of its own (runs once)
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/**
 * The ledger's guarantees on PostgreSQL are the database's own (db/pg/sql/triggers.sql): tested here
 * through plain SQL on a migrated throwaway cluster, including many connections at once.
 */

let server: ThrowawayPostgres;
let sql: postgres.Sql;
const id = (p: string) => `${p}_${randomBytes(6).toString('hex')}`;
const CEILING = 10_000_000_000_000;
type Line = [book: string, amount: number];

async function account() {
  const acc = id('acc');
  await sql`INSERT INTO accounts (id, name, code, token_hash, api_key, postback_secret_enc, created_at, updated_at)
    VALUES (${acc}, 'Loja', ${acc}, ${acc}, ${acc}, 'x', now(), now())`;
  const books: Record<string, string> = {};
  for (const kind of ['available', 'blocked', 'withdrawals_in_flight']) {
    books[kind] = id('lb');
    await sql`INSERT INTO ledger_books (id, account_id, kind, updated_at) VALUES (${books[kind]}, ${acc}, ${kind}, now())`;
  }
  // each account draws on a shard of its own of the system book (one row per shard: ledger_books_system_shard_uq)
  books.funding = id('lb');
  await sql`INSERT INTO ledger_books (id, account_id, kind, shard, allow_negative, updated_at)
    VALUES (${books.funding}, NULL, 'sandbox_funding', (SELECT coalesce(max(shard), -1) + 1 FROM ledger_books WHERE account_id IS NULL AND kind = 'sandbox_funding'), 1, now())`;
  return { acc, books };
}

/**
 * One entry in one transaction, the way the PostgreSQL writer is meant to post it: the entry's books
 * locked first in id order (two entries on the same books then queue instead of deadlocking), then
 * each line states the balance it leaves, debits first.
 */
function post(acc: string, kind: string, lines: Line[], o: { resourceId?: string; lockFirst?: boolean } = {}) {
  return sql.begin(async (tx) => {
    if (o.lockFirst !== false) await tx`SELECT id FROM ledger_books WHERE id IN ${tx(lines.map(([b]) => b))} ORDER BY id FOR UPDATE`;
    const entry = id('le');
    await tx`INSERT INTO ledger_entries (id, account_id, kind, resource_id, created_at) VALUES (${entry}, ${acc}, ${kind}, ${o.resourceId ?? null}, now())`;
    for (const [book, amount] of [...lines].sort((a, b) => a[1] - b[1])) {
      await tx`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
        VALUES (${entry}, ${book}, ${amount}, (SELECT balance FROM ledger_books WHERE id = ${book}) + ${amount},
                greatest(now(), (SELECT updated_at FROM ledger_books WHERE id = ${book})))`;
    }
  });
}

async function balance(book: string): Promise<number> {
  const [r] = await sql`SELECT balance, (SELECT coalesce(sum(amount), 0) FROM ledger_lines WHERE book_id = ${book}) AS lines FROM ledger_books WHERE id = ${book}`;
  expect(Number(r.balance)).toBe(Number(r.lines));
  return Number(r.balance);
}

beforeAll(async () => {
  server = await startTestPostgres({ migrated: true });
  sql = postgres(server.url, { max: 50, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await server?.stop();
});

describe('PostgreSQL ledger triggers', () => {
  it('keeps entries, lines and events append-only', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    await expect(sql`UPDATE ledger_entries SET kind = 'x' WHERE account_id = ${acc}`).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM ledger_entries WHERE account_id = ${acc}`).rejects.toThrow(/append-only/);
    await expect(sql`UPDATE ledger_lines SET amount = 1 WHERE book_id = ${books.available}`).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM ledger_lines WHERE book_id = ${books.available}`).rejects.toThrow(/append-only/);
    await expect(sql`TRUNCATE ledger_lines CASCADE`).rejects.toThrow(/append-only/);
    await sql`INSERT INTO events (id, account_id, type, category, resource_id, payload, created_at) VALUES (${id('evt')}, ${acc}, 'withdraw.requested', 'withdraw', 'wd_1', '{}', now())`;
    await expect(sql`DELETE FROM events WHERE account_id = ${acc}`).rejects.toThrow(/append-only/);
    expect(await balance(books.available)).toBe(500);
  });

  it('moves a balance only with a new line of its book', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    await expect(sql`UPDATE ledger_books SET balance = 1000000 WHERE id = ${books.available}`).rejects.toThrow(/moves only with a new ledger line/);
    await expect(sql`UPDATE ledger_books SET last_line_id = last_line_id + 1000 WHERE id = ${books.available}`).rejects.toThrow(/moves only with a new ledger line/);
    expect(await balance(books.available)).toBe(500);
  });

  it('refuses a debit beyond the available balance, and changes nothing', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    const err = await post(acc, 'withdrawal_requested', [[books.available, -501], [books.withdrawals_in_flight, 501]]).catch((e) => e);
    expect(err).toMatchObject({ code: '23514', constraint_name: 'ledger_books_balance_non_negative' });
    expect(await balance(books.available)).toBe(500);
    expect(await balance(books.withdrawals_in_flight)).toBe(0);
    // books other than available never go below zero, not even through a dispute hold
    await expect(post(acc, 'dispute_released', [[books.blocked, -1], [books.available, 1]])).rejects.toThrow(/ledger_books_balance_non_negative/);
  });

  it('lets a dispute hold alone take available below zero; credits then cover the shortfall and debits wait for them', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -100], [books.available, 100]]);
    await post(acc, 'dispute_hold', [[books.available, -300], [books.blocked, 300]]);
    expect(await balance(books.available)).toBe(-200);
    await expect(post(acc, 'withdrawal_requested', [[books.available, -1], [books.withdrawals_in_flight, 1]])).rejects.toThrow(/only a dispute hold/);
    await post(acc, 'sandbox_topup', [[books.funding, -250], [books.available, 250]]);
    expect(await balance(books.available)).toBe(50);
    await post(acc, 'withdrawal_requested', [[books.available, -50], [books.withdrawals_in_flight, 50]]);
    expect(await balance(books.available)).toBe(0);
  });

  it('refuses money arriving across the ceiling, while the merchant\'s own money moving back always passes', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -10], [books.available, 10]]);
    await post(acc, 'withdrawal_requested', [[books.available, -10], [books.withdrawals_in_flight, 10]]);
    for (let i = 0; i < CEILING / 100_000_000_000; i++) await post(acc, 'sandbox_topup', [[books.funding, -100_000_000_000], [books.available, 100_000_000_000]]);
    expect(await balance(books.available)).toBe(CEILING);
    const err = await post(acc, 'sandbox_topup', [[books.funding, -1], [books.available, 1]]).catch((e) => e);
    expect(err).toMatchObject({ code: '23514', constraint_name: 'ledger_books_balance_ceiling' });
    await expect(post(acc, 'transaction_credit', [[books.funding, -1], [books.available, 1]], { resourceId: id('txn') })).rejects.toThrow(/ceiling/);
    await post(acc, 'withdrawal_returned', [[books.withdrawals_in_flight, -10], [books.available, 10]]);
    expect(await balance(books.available)).toBe(CEILING + 10);
  });

  it('credits a transaction once', async () => {
    const { acc, books } = await account();
    const txn = id('txn');
    await post(acc, 'transaction_credit', [[books.funding, -100], [books.available, 100]], { resourceId: txn });
    const err = await post(acc, 'transaction_credit', [[books.funding, -100], [books.available, 100]], { resourceId: txn }).catch((e) => e);
    expect(err).toMatchObject({ code: '23505', constraint_name: 'ledger_entries_one_credit_uq' });
    expect(await balance(books.available)).toBe(100);
  });

  it('answers a line computed from a balance that moved meanwhile with a serialization failure (the writer retries), never a wrong balance', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -1000], [books.available, 1000]]);
    const a = await sql.reserve();
    try {
      // A holds the book; B's line is computed from the balance before A's commit, then waits for the lock
      await a`BEGIN`;
      await a`SELECT 1 FROM ledger_books WHERE id = ${books.available} FOR UPDATE`;
      const late = post(acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]], { lockFirst: false }).catch((e) => e);
      // wait by condition until B is really blocked on A's lock
      for (;;) {
        const [r] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO ledger_lines%'`;
        if (r.n > 0) break;
        await new Promise((r2) => setImmediate(r2));
      }
      const entry = id('le');
      await a`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES (${entry}, ${acc}, 'withdrawal_requested', now())`;
      await a`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
        VALUES (${entry}, ${books.available}, -300, 700, now()), (${entry}, ${books.withdrawals_in_flight}, 300, 300, now())`;
      await a`COMMIT`;
      expect(await late).toMatchObject({ code: '40001' });
    } finally {
      a.release();
    }
    expect(await balance(books.available)).toBe(700);
    // the retry reads afresh and succeeds
    await post(acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]], { lockFirst: false });
    expect(await balance(books.available)).toBe(600);
  });

  it('never takes a balance below the floor with many connections debiting it at once', async () => {
    const { acc, books } = await account();
    await post(acc, 'sandbox_topup', [[books.funding, -5000], [books.available, 5000]]);
    // 100 debits of 100 on a balance of 5000, over 50 connections at once: exactly 50 pass
    const results = await Promise.allSettled(Array.from({ length: 100 }, () =>
      post(acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]])));
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(results.length - refused.length).toBe(50);
    for (const r of refused) expect(r.reason).toMatchObject({ code: '23514', constraint_name: 'ledger_books_balance_non_negative' });
    expect(await balance(books.available)).toBe(0);
    expect(await balance(books.withdrawals_in_flight)).toBe(5000);
    // every line states the running balance: in id order each balance_after is the previous plus amount
    const lines = await sql`SELECT id, amount, balance_after FROM ledger_lines WHERE book_id = ${books.available} ORDER BY id`;
    let running = 0;
    for (const l of lines) { running += Number(l.amount); expect(Number(l.balance_after)).toBe(running); }
    const [sum] = await sql`SELECT sum(l.amount) AS s FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id WHERE e.account_id = ${acc}`;
    expect(Number(sum.s)).toBe(0);
  });

  it('judges the lines of one statement in order: two lines of one book state the running balance', async () => {
    const { acc, books } = await account();
    const entry = async (lines: [string, number, number][]) => sql.begin(async (tx) => {
      const e = id('le');
      await tx`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES (${e}, ${acc}, 'sandbox_topup', now())`;
      await tx.unsafe(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ${lines.map((_, i) => `($1, $${i * 3 + 2}, $${i * 3 + 3}, $${i * 3 + 4}, now())`).join(', ')}`,
        [e, ...lines.flat()]);
    });
    await entry([[books.funding, -150, -150], [books.available, 100, 100], [books.available, 50, 150]]);
    expect(await balance(books.available)).toBe(150);
    // both stated from the balance before the statement: the second is not the running balance
    await expect(entry([[books.funding, -20, -170], [books.available, 10, 160], [books.available, 10, 160]])).rejects.toMatchObject({ code: '40001' });
    expect(await balance(books.available)).toBe(150);
  });

  it('posts through ledger_post with the same judgments: unknown book, the floor, any number of lines', async () => {
    const { acc, books } = await account();
    const post1 = (lines: [string, number][], kind = 'sandbox_topup') => sql`SELECT ledger_post(${id('le')}, ${acc}, ${kind}, NULL, NULL, now(),
      ${JSON.stringify(lines.map(([book, amount]) => ({ book, amount })))}::text::jsonb)`;
    await post1([[books.funding, -300], [books.available, 300]]);
    await expect(post1([[books.available, -1], [id('lb'), 1]], 'withdrawal_requested')).rejects.toMatchObject({ code: '23503' });
    await expect(post1([[books.available, -301], [books.withdrawals_in_flight, 301]], 'withdrawal_requested'))
      .rejects.toMatchObject({ code: '23514', constraint_name: 'ledger_books_balance_non_negative' });
    await post1([[books.available, -100], [books.withdrawals_in_flight, 60], [books.blocked, 40]], 'withdrawal_requested');
    expect(await balance(books.available)).toBe(200);
    expect(await balance(books.withdrawals_in_flight)).toBe(60);
    expect(await balance(books.blocked)).toBe(40);
  });

  it('checks refunds and disputes against the charge', async () => {
    const { acc } = await account();
    const cus = id('cus');
    await sql`INSERT INTO customers (id, account_id, name, email, document, created_at) VALUES (${cus}, ${acc}, 'João', 'j@x.com', '52998224725', now())`;
    const txn = id('txn');
    await sql`INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, created_at, updated_at)
      VALUES (${txn}, ${acc}, ${txn}, 'CARD', 'PENDING', 1000, ${cus}, '[]', now(), now())`;
    const refund = (amount: number) => sql`INSERT INTO refunds (id, account_id, transaction_id, amount, status, due_at, created_at, updated_at)
      VALUES (${id('rf')}, ${acc}, ${txn}, ${amount}, 'PENDING', now(), now(), now())`;
    await expect(refund(100)).rejects.toThrow(/not APPROVED/);
    await sql`UPDATE transactions SET status = 'APPROVED' WHERE id = ${txn}`;
    await refund(400);
    await expect(refund(700)).rejects.toThrow(/transactions_refunded_bounds/);
    const dispute = (amount: number) => sql`INSERT INTO disputes (id, account_id, transaction_id, status, amount, created_at, updated_at)
      VALUES (${id('dp')}, ${acc}, ${txn}, 'OPEN', ${amount}, now(), now())`;
    await expect(dispute(700)).rejects.toThrow(/exceeds the transaction total minus its refunds/);
    await dispute(600);
    await expect(refund(1)).rejects.toThrow(/open or lost dispute/);
    const [r] = await sql`SELECT refunded_amount FROM transactions WHERE id = ${txn}`;
    expect(Number(r.refunded_amount)).toBe(400);
  });

  it('reads a point in time back through drizzle as the ISO string SQLite stores, money as a number', async () => {
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { eq } = await import('drizzle-orm');
    const pgSchema = await import('../../db/pg/schema');
    // a session in another time zone changes nothing the domain sees
    const local = postgres(server.url, { max: 1, onnotice: () => {}, connection: { TimeZone: 'America/Sao_Paulo' } });
    const db = drizzle(local, { schema: pgSchema });
    const acc = id('acc');
    await db.insert(pgSchema.accounts).values({ id: acc, name: 'Loja', code: acc, tokenHash: acc, apiKey: acc, postbackSecretEnc: 'x', createdAt: '2026-11-23T05:24:44.120Z', updatedAt: '2026-11-23T05:24:44.999Z' });
    expect((await local`SHOW TimeZone`)[0].TimeZone).toBe('America/Sao_Paulo');
    const [row] = await db.select().from(pgSchema.accounts).where(eq(pgSchema.accounts.id, acc));
    expect(row.createdAt).toBe('2026-11-23T05:24:44.120Z');
    expect(row.updatedAt).toBe('2026-11-23T05:24:44.999Z');
    await db.insert(pgSchema.ledgerBooks).values({ id: id('lb'), accountId: acc, kind: 'available', updatedAt: '2026-11-23T05:24:44.120Z' });
    const [book] = await db.select().from(pgSchema.ledgerBooks).where(eq(pgSchema.ledgerBooks.accountId, acc));
    expect(book.balance).toBe(0);
    expect(typeof book.lastLineId).toBe('number');
    await local.end();
  });
});
