import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/**
 * The ledger's guarantees on PostgreSQL are the database's own (db/pg/sql/triggers.sql): tested here
 * through plain SQL on a migrated throwaway cluster, including many connections at once.
 */

let server: ThrowawayPostgres;
let pool: pg.Pool;
const id = (p: string) => `${p}_${randomBytes(6).toString('hex')}`;
const CEILING = 10_000_000_000_000;

async function account() {
  const acc = id('acc');
  await pool.query(`INSERT INTO accounts (id, name, code, token_hash, api_key, postback_secret_enc, created_at, updated_at)
    VALUES ($1, 'Loja', $1, $1, $1, 'x', now(), now())`, [acc]);
  const books: Record<string, string> = {};
  for (const kind of ['available', 'blocked', 'withdrawals_in_flight']) {
    books[kind] = id('lb');
    await pool.query(`INSERT INTO ledger_books (id, account_id, kind, updated_at) VALUES ($1, $2, $3, now())`, [books[kind], acc, kind]);
  }
  books.funding = id('lb');
  await pool.query(`INSERT INTO ledger_books (id, account_id, kind, allow_negative, updated_at) VALUES ($1, NULL, 'sandbox_funding', 1, now())`, [books.funding]);
  return { acc, books };
}

/**
 * One entry in one transaction, the way the PostgreSQL writer is meant to post it: the entry's books
 * locked first in id order (so two entries on the same books queue instead of deadlocking), then each
 * line states the balance it leaves, debits first.
 */
async function post(c: pg.PoolClient | pg.Pool, acc: string, kind: string, lines: [string, number][], o: { resourceId?: string; lockFirst?: boolean } = {}) {
  const client = 'release' in c ? c : await c.connect();
  try {
    await client.query('BEGIN');
    if (o.lockFirst !== false) await client.query(`SELECT id FROM ledger_books WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [lines.map(([b]) => b)]);
    const entry = id('le');
    await client.query(`INSERT INTO ledger_entries (id, account_id, kind, resource_id, created_at) VALUES ($1, $2, $3, $4, now())`, [entry, acc, kind, o.resourceId ?? null]);
    for (const [book, amount] of [...lines].sort((a, b) => a[1] - b[1])) {
      await client.query(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
        VALUES ($1, $2, $3, (SELECT balance FROM ledger_books WHERE id = $2) + $3, greatest(now(), (SELECT updated_at FROM ledger_books WHERE id = $2)))`, [entry, book, amount]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    if (!('release' in c)) client.release();
  }
}

async function balance(book: string): Promise<number> {
  const r = await pool.query(`SELECT balance, (SELECT coalesce(sum(amount), 0) FROM ledger_lines WHERE book_id = $1) AS lines FROM ledger_books WHERE id = $1`, [book]);
  expect(Number(r.rows[0].balance)).toBe(Number(r.rows[0].lines));
  return Number(r.rows[0].balance);
}

const refusedBy = (name: string) => expect.objectContaining({ message: expect.stringContaining(name) });

beforeAll(async () => {
  server = await startTestPostgres({ migrated: true });
  pool = new pg.Pool({ connectionString: server.url, max: 60 });
  // the cluster's shutdown at the end terminates idle connections (57P01); that is not a test failure
  pool.on('error', () => {});
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

describe('PostgreSQL ledger triggers', () => {
  it('keeps entries, lines and events append-only', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    await expect(pool.query(`UPDATE ledger_entries SET kind = 'x' WHERE account_id = $1`, [acc])).rejects.toThrow(/append-only/);
    await expect(pool.query(`DELETE FROM ledger_entries WHERE account_id = $1`, [acc])).rejects.toThrow(/append-only/);
    await expect(pool.query(`UPDATE ledger_lines SET amount = 1 WHERE book_id = $1`, [books.available])).rejects.toThrow(/append-only/);
    await expect(pool.query(`DELETE FROM ledger_lines WHERE book_id = $1`, [books.available])).rejects.toThrow(/append-only/);
    await expect(pool.query(`TRUNCATE ledger_lines CASCADE`)).rejects.toThrow(/append-only/);
    await pool.query(`INSERT INTO events (id, account_id, type, category, resource_id, payload, created_at) VALUES ($1, $2, 'withdraw.requested', 'withdraw', 'wd_1', '{}', now())`, [id('evt'), acc]);
    await expect(pool.query(`DELETE FROM events WHERE account_id = $1`, [acc])).rejects.toThrow(/append-only/);
    expect(await balance(books.available)).toBe(500);
  });

  it('moves a balance only with a new line of its book', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    await expect(pool.query(`UPDATE ledger_books SET balance = 1000000 WHERE id = $1`, [books.available])).rejects.toThrow(/moves only with a new ledger line/);
    await expect(pool.query(`UPDATE ledger_books SET last_line_id = last_line_id + 1000 WHERE id = $1`, [books.available])).rejects.toThrow(/moves only with a new ledger line/);
    expect(await balance(books.available)).toBe(500);
  });

  it('refuses a debit beyond the available balance, and changes nothing', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -500], [books.available, 500]]);
    const err = await post(pool, acc, 'withdrawal_requested', [[books.available, -501], [books.withdrawals_in_flight, 501]]).catch((e) => e);
    expect(err).toMatchObject({ code: '23514', constraint: 'ledger_books_balance_non_negative' });
    expect(await balance(books.available)).toBe(500);
    expect(await balance(books.withdrawals_in_flight)).toBe(0);
    // books other than available never go below zero, not even through a dispute hold
    await expect(post(pool, acc, 'dispute_released', [[books.blocked, -1], [books.available, 1]])).rejects.toThrow(/ledger_books_balance_non_negative/);
  });

  it('lets a dispute hold alone take available below zero; credits then cover the shortfall and debits wait for them', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -100], [books.available, 100]]);
    await post(pool, acc, 'dispute_hold', [[books.available, -300], [books.blocked, 300]]);
    expect(await balance(books.available)).toBe(-200);
    await expect(post(pool, acc, 'withdrawal_requested', [[books.available, -1], [books.withdrawals_in_flight, 1]])).rejects.toThrow(/only a dispute hold/);
    await post(pool, acc, 'sandbox_topup', [[books.funding, -250], [books.available, 250]]);
    expect(await balance(books.available)).toBe(50);
    await post(pool, acc, 'withdrawal_requested', [[books.available, -50], [books.withdrawals_in_flight, 50]]);
    expect(await balance(books.available)).toBe(0);
  });

  it('refuses money arriving across the ceiling, while the merchant\'s own money moving back always passes', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -10], [books.available, 10]]);
    await post(pool, acc, 'withdrawal_requested', [[books.available, -10], [books.withdrawals_in_flight, 10]]);
    const c = await pool.connect();
    try {
      for (let i = 0; i < CEILING / 100_000_000_000; i++) await post(c, acc, 'sandbox_topup', [[books.funding, -100_000_000_000], [books.available, 100_000_000_000]]);
    } finally { c.release(); }
    expect(await balance(books.available)).toBe(CEILING);
    const err = await post(pool, acc, 'sandbox_topup', [[books.funding, -1], [books.available, 1]]).catch((e) => e);
    expect(err).toMatchObject({ code: '23514', constraint: 'ledger_books_balance_ceiling' });
    await expect(post(pool, acc, 'transaction_credit', [[books.funding, -1], [books.available, 1]], { resourceId: id('txn') })).rejects.toThrow(/ceiling/);
    await post(pool, acc, 'withdrawal_returned', [[books.withdrawals_in_flight, -10], [books.available, 10]]);
    expect(await balance(books.available)).toBe(CEILING + 10);
  });

  it('credits a transaction once', async () => {
    const { acc, books } = await account();
    const txn = id('txn');
    await post(pool, acc, 'transaction_credit', [[books.funding, -100], [books.available, 100]], { resourceId: txn });
    const err = await post(pool, acc, 'transaction_credit', [[books.funding, -100], [books.available, 100]], { resourceId: txn }).catch((e) => e);
    expect(err).toMatchObject({ code: '23505', constraint: 'ledger_entries_one_credit_uq' });
    expect(await balance(books.available)).toBe(100);
  });

  it('answers a line computed from a balance that moved meanwhile with a serialization failure (the writer retries), never a wrong balance', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -1000], [books.available, 1000]]);
    const a = await pool.connect();
    const b = await pool.connect();
    try {
      // A holds the book; B's line is computed from the balance before A's commit, then waits for the lock
      await a.query('BEGIN');
      await a.query(`SELECT 1 FROM ledger_books WHERE id = $1 FOR UPDATE`, [books.available]);
      const late = post(b, acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]], { lockFirst: false }).catch((e) => e);
      // wait until B is really blocked on A's lock
      for (;;) {
        const r = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO ledger_lines%'`);
        if (r.rows[0].n > 0) break;
        await new Promise((r2) => setImmediate(r2));
      }
      const entry = id('le');
      await a.query(`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES ($1, $2, 'withdrawal_requested', now())`, [entry, acc]);
      await a.query(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ($1, $2, -300, 700, now()), ($1, $3, 300, 300, now())`, [entry, books.available, books.withdrawals_in_flight]);
      await a.query('COMMIT');
      expect(await late).toMatchObject({ code: '40001' });
    } finally {
      a.release();
      b.release();
    }
    expect(await balance(books.available)).toBe(700);
    // the retry reads afresh and succeeds
    await post(pool, acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]], { lockFirst: false });
    expect(await balance(books.available)).toBe(600);
  });

  it('never takes a balance below the floor with many connections debiting it at once', async () => {
    const { acc, books } = await account();
    await post(pool, acc, 'sandbox_topup', [[books.funding, -5000], [books.available, 5000]]);
    // 100 debits of 100 on a balance of 5000, over 50 connections at once: exactly 50 pass
    const results = await Promise.allSettled(Array.from({ length: 100 }, () =>
      post(pool, acc, 'withdrawal_requested', [[books.available, -100], [books.withdrawals_in_flight, 100]])));
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(results.length - refused.length).toBe(50);
    for (const r of refused) expect(r.reason).toMatchObject({ code: '23514', constraint: 'ledger_books_balance_non_negative' });
    expect(await balance(books.available)).toBe(0);
    expect(await balance(books.withdrawals_in_flight)).toBe(5000);
    // every line states the running balance: in id order each balance_after is the previous plus amount
    const lines = (await pool.query(`SELECT id, amount, balance_after FROM ledger_lines WHERE book_id = $1 ORDER BY id`, [books.available])).rows;
    let running = 0;
    for (const l of lines) { running += Number(l.amount); expect(Number(l.balance_after)).toBe(running); }
    const sum = await pool.query(`SELECT sum(l.amount)::bigint AS s FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id WHERE e.account_id = $1`, [acc]);
    expect(Number(sum.rows[0].s)).toBe(0);
  });

  it('checks refunds and disputes against the charge', async () => {
    const { acc } = await account();
    const cus = id('cus');
    await pool.query(`INSERT INTO customers (id, account_id, name, email, document, created_at) VALUES ($1, $2, 'João', 'j@x.com', '52998224725', now())`, [cus, acc]);
    const txn = id('txn');
    await pool.query(`INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, created_at, updated_at)
      VALUES ($1, $2, $1, 'CARD', 'PENDING', 1000, $3, '[]', now(), now())`, [txn, acc, cus]);
    const refund = (amount: number) => pool.query(`INSERT INTO refunds (id, account_id, transaction_id, amount, status, due_at, created_at, updated_at)
      VALUES ($1, $2, $3, $4, 'PENDING', now(), now(), now())`, [id('rf'), acc, txn, amount]);
    await expect(refund(100)).rejects.toThrow(/not APPROVED/);
    await pool.query(`UPDATE transactions SET status = 'APPROVED' WHERE id = $1`, [txn]);
    await refund(400);
    await expect(refund(700)).rejects.toThrow(/transactions_refunded_bounds/);
    const dispute = (amount: number) => pool.query(`INSERT INTO disputes (id, account_id, transaction_id, status, amount, created_at, updated_at)
      VALUES ($1, $2, $3, 'OPEN', $4, now(), now())`, [id('dp'), acc, txn, amount]);
    await expect(dispute(700)).rejects.toThrow(/exceeds the transaction total minus its refunds/);
    await dispute(600);
    await expect(refund(1)).rejects.toThrow(/open or lost dispute/);
    const r = await pool.query(`SELECT refunded_amount FROM transactions WHERE id = $1`, [txn]);
    expect(Number(r.rows[0].refunded_amount)).toBe(400);
  });
});
