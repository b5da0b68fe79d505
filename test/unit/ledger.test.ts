import { onPostgres } from '../../db/dialect';
import { rawExec } from '../../db/query';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditLedger, merchantBalance, sandboxTopUp, transfer } from '../../server/domain/ledger';
import { DomainError, toDomainError } from '../../server/errors';
import { readFileSync } from 'node:fs';
import { BALANCE_CEILING_CENTS, BALANCE_CEILING_ENTRY_KINDS } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import { runSettlementPass } from '../../server/domain/withdrawals/settle';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';
import { txBody } from '../support/transactions';
import type { LedgerEntryKind } from '../../contract/ledger';

// a kind outside the vocabulary: the ledger's rules hold whatever the entry is called
const TEST_KIND = 'test' as LedgerEntryKind;

let s: TestServices;

/** The driver's message, under drizzle's "Failed to run the query" wrapper. */
async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => null, (e: Error) => e);
  if (!err) throw new Error('expected the write to fail');
  return `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`;
}
beforeEach(async () => { s = await makeTestServices(); });
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
          accountId: a, kind: TEST_KIND, amount, at: now(),
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
      accountId: a, kind: TEST_KIND, amount: 100, at: s.clock.now(),
      from: { account: a, book: 'available' }, to: { account: a, book: 'withdrawals_in_flight' },
    }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect(results.filter((r) => r.status === 'rejected' && (r.reason as DomainError).code === 'INSUFFICIENT_FUNDS')).toHaveLength(50);
    expect(await merchantBalance(s.db.read, a)).toEqual({ available: 0, blocked: 0, inFlight: 5_000 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('is append-only: lines and entries cannot be updated or deleted', async () => {
    await makeAccount(s, { balance: 100 });
    expect(await failure(s.db.write((tx) => rawExec(tx, sql`UPDATE ledger_lines SET amount = amount + 1`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => rawExec(tx, sql`DELETE FROM ledger_lines`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => rawExec(tx, sql`UPDATE ledger_entries SET kind = 'x'`)))).toMatch(/append-only/);
    expect(await failure(s.db.write((tx) => rawExec(tx, sql`DELETE FROM ledger_entries`)))).toMatch(/append-only/);
  });

  it('refuses an unbalanced entry and a balance written directly instead of through a line', async () => {
    const { account_id: a } = await makeAccount(s, { balance: 100 });
    for (const book of ['available', 'blocked']) {
      for (const balance of [-1, 1_000]) {
        expect(await failure(s.db.write((tx) => rawExec(tx, sql`UPDATE ledger_books SET balance = ${balance} WHERE account_id = ${a} AND kind = ${book}`))))
          .toMatch(/moves only with a new ledger line/);
      }
    }
    expect(await failure(s.db.write((tx) => rawExec(tx, sql`UPDATE ledger_books SET balance = -1, last_line_id = last_line_id + 1000 WHERE account_id = ${a} AND kind = 'available'`))))
      .toMatch(/moves only with a new ledger line/);
    const { postEntry } = await import('../../server/domain/ledger');
    await expect(s.db.write((tx) => postEntry(tx, { accountId: a, kind: 'x' as LedgerEntryKind, at: s.clock.now(), lines: [{ book: { account: a, book: 'available' }, amount: 5 }, { book: { system: 'pix_in' }, amount: -4 }] }))).rejects.toThrow(/unbalanced/);
    expect((await merchantBalance(s.db.read, a)).available).toBe(100);
  });

  it('lets available go below zero through a dispute hold and no other way; credits cover the shortfall first', async () => {
    const { account_id: a } = await makeAccount(s, { balance: 1_000 });
    const at = () => s.clock.now();
    const move = (kind: LedgerEntryKind, amount: number, from: Parameters<typeof transfer>[1]['from'], to: Parameters<typeof transfer>[1]['to']) =>
      s.db.write((tx) => transfer(tx, { accountId: a, kind, amount, at: at(), from, to }));
    const available = { account: a, book: 'available' } as const;
    // a hold larger than what is available: recorded, available goes negative
    await move('dispute_hold', 3_000, available, { account: a, book: 'blocked' });
    expect(await merchantBalance(s.db.read, a)).toEqual({ available: -2_000, blocked: 3_000, inFlight: 0 });
    // any other debit is refused while available is negative, even one cent, by the database itself
    for (const kind of ['withdrawal_requested', 'refund_requested', TEST_KIND] as const) {
      await expect(move(kind, 1, available, { account: a, book: 'withdrawals_in_flight' })).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    }
    expect(await failure(s.db.write(async (tx) => {
      // a well-formed line (running balance, date) so that only the dispute rule can refuse it
      await rawExec(tx, sql`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES ('le_raw', ${a}, 'raw', '2099-01-01')`);
      await rawExec(tx, sql`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) SELECT 'le_raw', id, -1, balance - 1, '2099-01-01' FROM ledger_books WHERE account_id = ${a} AND kind = 'available'`);
    }))).toMatch(/only a dispute hold/);
    // blocked and in-flight never go negative, whatever the entry
    await expect(move('dispute_hold', 5_000, { account: a, book: 'blocked' }, available)).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    // a credit is applied to the shortfall first: 1500 in leaves −500, then a debit of 1 is still refused
    await s.db.write((tx) => sandboxTopUp(tx, a, 1_500, at()));
    expect((await merchantBalance(s.db.read, a)).available).toBe(-500);
    await expect(move('withdrawal_requested', 1, available, { account: a, book: 'withdrawals_in_flight' })).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    await s.db.write((tx) => sandboxTopUp(tx, a, 600, at()));
    await move('withdrawal_requested', 100, available, { account: a, book: 'withdrawals_in_flight' });
    expect(await merchantBalance(s.db.read, a)).toEqual({ available: 0, blocked: 3_000, inFlight: 100 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('refuses a movement that would take a merchant book above the ceiling, changing nothing', async () => {
    const { account_id: a } = await makeAccount(s);
    const at = () => s.clock.now();
    for (let i = 0; i < 99; i++) await s.db.write((tx) => sandboxTopUp(tx, a, 100_000_000_000, at()));
    await s.db.write((tx) => sandboxTopUp(tx, a, 99_999_999_999, at()));
    expect((await merchantBalance(s.db.read, a)).available).toBe(BALANCE_CEILING_CENTS - 1);
    await expect(s.db.write((tx) => sandboxTopUp(tx, a, 2, at()))).rejects.toMatchObject({ code: 'UNPROCESSABLE', status: 422 });
    await s.db.write((tx) => sandboxTopUp(tx, a, 1, at()));
    expect((await merchantBalance(s.db.read, a)).available).toBe(BALANCE_CEILING_CENTS);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('never refuses returns, releases or holds near the ceiling: only money arriving from outside is capped', async () => {
    const svc = await makeTestServices({ clock: new ManualClock(new Date('2026-03-10T12:00:00.000Z')), config: { sandboxSettlementDelayMs: 1_000 } });
    try {
      const { account_id: a } = await makeAccount(svc);
      const c = callerFor(svc, a);
      const at = () => svc.clock.now();
      const charge = await c.transactions.create(txBody('CARD')); // 2 500 in available
      // a withdrawal the rail will fail, in flight while available is topped up to the ceiling
      await c.withdrawals.create({ amount: 2_000, key: 'fail@sandbox.test', key_type: 'EMAIL', details: { name: 'Beltrano', document: '11.222.333/0001-81' } });
      const fill = async () => {
        let left = BALANCE_CEILING_CENTS - (await merchantBalance(svc.db.read, a)).available;
        while (left > 0) { const n = Math.min(left, 100_000_000_000); await svc.db.write((tx) => sandboxTopUp(tx, a, n, at())); left -= n; }
      };
      await fill();
      // a top-up and a charge approval crossing it are still refused, changing nothing
      await expect(svc.db.write((tx) => sandboxTopUp(tx, a, 1, at()))).rejects.toMatchObject({ code: 'UNPROCESSABLE', status: 422 });
      expect(toDomainError(await c.transactions.create(txBody('CARD')).then(() => null, (e) => e)).status).toBe(422);
      expect((await merchantBalance(svc.db.read, a)).available).toBe(BALANCE_CEILING_CENTS);

      // the failed batch comes back across the ceiling: settlement does not get stuck
      (svc.clock as ManualClock).advance(1_000);
      expect(await runSettlementPass(svc, sandboxRail(1_000))).toBe(1);
      expect(await merchantBalance(svc.db.read, a)).toEqual({ available: BALANCE_CEILING_CENTS + 2_000, blocked: 0, inFlight: 0 });
      // a dispute is always recorded: the hold leaves available, then a win releases it back above the ceiling
      const d = await c.sandbox.openDispute({ id: charge.id });
      await svc.db.write((tx) => sandboxTopUp(tx, a, 500, at())); // back under the ceiling after the hold: allowed
      const before = (await merchantBalance(svc.db.read, a)).available;
      await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' });
      expect((await merchantBalance(svc.db.read, a)).available).toBe(before + 2_500);
      // a dispute hold into `blocked` across the ceiling is recorded too: fill blocked, then dispute a new charge
      for (let i = 0; i < 100; i++) {
        await svc.db.write((tx) => transfer(tx, { accountId: a, kind: 'dispute_hold', amount: 100_000_000_000, at: at(), from: { account: a, book: 'available' }, to: { account: a, book: 'blocked' } }));
      }
      const second = await c.transactions.create(txBody('CARD'));
      await c.sandbox.openDispute({ id: second.id });
      expect((await merchantBalance(svc.db.read, a)).blocked).toBe(BALANCE_CEILING_CENTS + 2_500);
      expect(await auditLedger(svc.db.read)).toEqual({ total: 0, mismatched: [] });
    } finally { await svc.cleanup(); }
  }, 120_000);

  it('the triggers of both engines name the same ceiling and entry kinds as the contract', () => {
    for (const file of ['../../db/sql/triggers.sql', '../../db/pg/sql/triggers.sql']) {
      const sql = readFileSync(new URL(file, import.meta.url), 'utf8');
      // every ceiling the file compares with is the contract's (PostgreSQL's statement-level trigger compares in three places)
      const ceilings = [...sql.matchAll(/balance(?:_after)? > (\d+)/g)].map((m) => Number(m[1]));
      expect(ceilings.length).toBeGreaterThan(0);
      expect(new Set(ceilings)).toEqual(new Set([BALANCE_CEILING_CENTS]));
      expect(sql).toContain(`IN (${BALANCE_CEILING_ENTRY_KINDS.map((k) => `'${k}'`).join(', ')})`);
      // the other kinds the triggers spell out (the overdraft exception, the one-credit index)
      const named: LedgerEntryKind[] = ['dispute_hold', 'transaction_credit'];
      for (const kind of named) expect(sql).toContain(`'${kind}'`);
    }
  });

  // SQLite's query plan (the PostgreSQL run skips it)
  it.skipIf(onPostgres)('reads a balance from the book row, whatever the number of entries', async () => {
    const { account_id: a } = await makeAccount(s);
    await s.db.write(async (tx) => { for (let i = 0; i < 2000; i++) await sandboxTopUp(tx, a, 1, s.clock.now()); });
    expect((await merchantBalance(s.db.read, a)).available).toBe(2000);
    const plan = s.db.read.handle.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN SELECT kind, balance FROM ledger_books WHERE account_id = ${a}`);
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
