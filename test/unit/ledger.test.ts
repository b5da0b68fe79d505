import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLedger, merchantBalance, sandboxTopUp, transfer } from '../../server/domain/ledger';
import { DomainError } from '../../server/errors';
import { makeAccount, makeTestServices } from '../support/services';

let s: ReturnType<typeof makeTestServices>;

/** The driver's message, under drizzle's "Failed to run the query" wrapper. */
async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: Error) => e);
  if (!err) throw new Error('expected the write to fail');
  return `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`;
}
beforeEach(() => { s = makeTestServices(); });
afterEach(async () => { await s.cleanup(); });

describe('ledger', () => {
  it('keeps each book’s running balance equal to the sum of its lines, and all lines sum to zero', async () => {
    const { account_id: a } = await makeAccount(s, { balance: 10_000 });
    const { account_id: b } = await makeAccount(s);
    const now = () => s.clock.now();
    // a random walk of movements, some of which must be refused
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const amount = 1 + ((i * 7919) % 900);
      try {
        await s.db.write((tx) => transfer(tx, {
          accountId: a, kind: 'test', amount, at: now(),
          from: i % 3 === 0 ? { system: 'sandbox_funding' } : { account: a, book: 'available' },
          to: i % 3 === 0 ? { account: a, book: 'available' } : { account: a, book: i % 2 ? 'blocked' : 'withdrawals_in_flight' },
        }));
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        expect((err as DomainError).code).toBe('INSUFFICIENT_FUNDS');
        refused += 1;
      }
      if (i % 50 === 0) await s.db.write((tx) => sandboxTopUp(tx, b, amount, now()));
    }
    expect(refused).toBeGreaterThan(0);
    const audit = await auditLedger(s.db.read);
    expect(audit).toEqual({ total: 0, mismatched: [] });
    const bal = await merchantBalance(s.db.read, a);
    expect(bal.available).toBeGreaterThanOrEqual(0);
  });

  it('never overdraws under concurrency: 100 concurrent debits against funds for 50', async () => {
    const { account_id: a } = await makeAccount(s, { balance: 5_000 });
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => s.db.write((tx) => transfer(tx, {
      accountId: a, kind: 'test', amount: 100, at: s.clock.now(),
      from: { account: a, book: 'available' }, to: { account: a, book: 'withdrawals_in_flight' },
    }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect(results.filter((r) => r.status === 'rejected' && (r.reason as DomainError).code === 'INSUFFICIENT_FUNDS')).toHaveLength(50);
    expect(await merchantBalance(s.db.read, a)).toEqual({ available: 0, blocked: 0, inFlight: 5_000 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('is append-only: lines and entries cannot be updated or deleted', async () => {
    await makeAccount(s, { balance: 100 });
    expect(await failure(s.db.write((tx) => tx.run(sql`UPDATE ledger_lines SET amount = amount + 1`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => tx.run(sql`DELETE FROM ledger_lines`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => tx.run(sql`UPDATE ledger_entries SET kind = 'x'`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => tx.run(sql`DELETE FROM ledger_entries`)))).toMatch(/append-only/);
  });

  it('refuses an unbalanced entry and a direct overdraft of a merchant book', async () => {
    const { account_id: a } = await makeAccount(s, { balance: 100 });
    expect(await failure(s.db.write((tx) => tx.run(sql`UPDATE ledger_books SET balance = -1 WHERE account_id = ${a} AND kind = 'available'`)))).toMatch(/CHECK/);
    const { postEntry } = await import('../../server/domain/ledger');
    await expect(s.db.write((tx) => postEntry(tx, { accountId: a, kind: 'x', at: s.clock.now(), lines: [{ book: { account: a, book: 'available' }, amount: 5 }, { book: { system: 'pix_in' }, amount: -4 }] }))).rejects.toThrow(/unbalanced/);
    expect((await merchantBalance(s.db.read, a)).available).toBe(100);
  });

  it('reads a balance from the book row, whatever the number of entries', async () => {
    const { account_id: a } = await makeAccount(s);
    await s.db.write(async (tx) => { for (let i = 0; i < 2000; i++) await sandboxTopUp(tx, a, 1, s.clock.now()); });
    expect((await merchantBalance(s.db.read, a)).available).toBe(2000);
    const plan = s.db.read.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN SELECT kind, balance FROM ledger_books WHERE account_id = ${a}`);
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX ledger_books_account_kind_uq/);
  });
});

describe('identifiers', () => {
  it('are time-ordered (new rows append to the right edge of id indexes), prefixed and unique', async () => {
    const { newId } = await import('../../server/domain/ids');
    const a = newId('withdrawal', Date.parse('2026-01-01T00:00:00Z'));
    const b = newId('withdrawal', Date.parse('2026-01-01T00:00:00.001Z'));
    expect(a < b).toBe(true);
    expect(a).toMatch(/^wd_[0-9a-z]{20}$/);
    const many = new Set(Array.from({ length: 50_000 }, () => newId('event')));
    expect(many.size).toBe(50_000);
  });
});
