import { rawExec } from '../../db/query';
import { TRPCError } from '@trpc/server';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import { STATEMENT_KINDS } from '../../server/domain/statement';
import { runRefundPass } from '../../server/domain/transactions/refunds';
import { runSettlementPass } from '../../server/domain/withdrawals/settle';
import { toDomainError } from '../../server/errors';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';
import { txBody } from '../support/transactions';

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z')); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e, 'expected the call to fail').toBeInstanceOf(TRPCError);
  return toDomainError(e);
}

type Movement = Awaited<ReturnType<ReturnType<typeof callerFor>['account']['statement']>>['data'][number];

/** Every movement of the account, newest first, following next_cursor. */
async function wholeStatement(accountId: string, q: { from?: string; to?: string; limit?: number } = {}) {
  const all: Movement[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await callerFor(s, accountId).account.statement({ ...q, cursor });
    all.push(...page.data);
    if (!page.next_cursor) return all;
    cursor = page.next_cursor;
  }
}

/** Oldest to newest, each balance_after is the previous one plus its amount. */
function expectRunningBalance(newestFirst: Movement[], opening = 0) {
  let balance = opening;
  for (const m of [...newestFirst].reverse()) {
    balance += m.amount;
    expect(m.balance_after, `${m.id} ${m.type}`).toBe(balance);
  }
  return balance;
}

const withdrawal = (amount: number, key = 'fulano@example.com') => ({ amount, key, key_type: 'EMAIL' as const, details: { name: 'Fulano', document: '52998224725' } });

describe('GET /balance/statement (account.statement)', () => {
  it('lists every kind of movement of the available book, newest first, signed, with the balance after each', async () => {
    const acc = await makeAccount(s, { balance: 10_000 });
    const c = callerFor(s, acc.account_id);
    const tick = () => clock.advance(1_000);
    tick(); const card = await c.transactions.create(txBody('CARD'));
    tick(); const w = await c.withdrawals.create(withdrawal(3_000, 'fail@sandbox.test'));
    tick(); await runSettlementPass(s, sandboxRail(0));
    tick(); const refunded = await c.transactions.refund({ id: card.id, amount: 500 });
    tick(); const d = await c.sandbox.openDispute({ id: card.id });
    tick(); await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' });
    const failing = await c.transactions.create(txBody('CARD', { customer: { ...txBody().customer, email: 'fail@sandbox.test' } }));
    tick(); await c.transactions.refund({ id: failing.id, amount: 100 });
    tick(); await runRefundPass(s, sandboxRail(0));

    const page = await c.account.statement({});
    expect(page.timestamp).toBe(clock.now().toISOString());
    expect(page.next_cursor).toBeNull();
    const rows = page.data.map((m) => [m.type, m.amount, m.balance_after, m.resource.type]);
    expect(rows).toEqual([
      ['refund_returned', 100, 12_000, 'refund'],
      ['refund_requested', -100, 11_900, 'refund'],
      ['charge_approved', 2_500, 12_000, 'transaction'],
      ['dispute_released', 2_000, 9_500, 'dispute'],
      ['dispute_hold', -2_000, 7_500, 'dispute'],
      ['refund_requested', -500, 9_500, 'refund'],
      ['withdrawal_returned', 3_000, 10_000, 'withdrawal_batch'],
      ['withdrawal_requested', -3_000, 7_000, 'withdrawal'],
      ['charge_approved', 2_500, 10_000, 'transaction'],
      ['topup', 10_000, 7_500, 'topup'],
    ].map(([type, amount, , resource], i, all) => [type, amount, all.slice(i).reduce((n, r) => n + (r[1] as number), 0), resource]));
    expect(expectRunningBalance(page.data)).toBe((await c.account.balance()).available);
    // every kind of entry that touches available has a statement type (a missing one would be a 500)
    expect(new Set(page.data.map((m) => m.type)).size).toBe(8);
    expect(STATEMENT_KINDS).toHaveLength(8);
    const byType = (t: string) => page.data.find((m) => m.type === t)!;
    expect(byType('charge_approved').resource.id).toBe(failing.id);
    expect(byType('withdrawal_requested').resource.id).toBe(w.data.length ? (await c.withdrawals.get({ identifier: w.data[0].identifier })).id : '');
    expect(byType('withdrawal_returned').resource.id).toBe(w.data[0].identifier);
    expect(page.data.filter((m) => m.type === 'refund_requested').map((m) => m.resource.id)).toContain(refunded.refunds[0].id);
    expect(byType('dispute_hold').resource.id).toBe(d.id);
    expect(byType('topup').resource.id).toMatch(/^lje_/);
    for (const m of page.data) {
      expect(m.id).toMatch(/^lnl_\d+$/);
      expect(typeof m.description).toBe('string');
    }
    // ordered by (created_at, id), newest first
    const keys = page.data.map((m) => `${m.created_at}|${m.id.slice(4).padStart(12, '0')}`);
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it('pages by keyset with limit 1–200 (default 50) and filters by date', async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    for (let i = 0; i < 120; i++) {
      clock.advance(60_000);
      await c.account.sandboxTopUp({ amount: 100 + i });
    }
    expect((await c.account.statement({})).data).toHaveLength(50);
    const all = await wholeStatement(acc.account_id, { limit: 7 });
    expect(all).toHaveLength(120);
    expect(new Set(all.map((m) => m.id)).size).toBe(120);
    expect(all.map((m) => m.amount)).toEqual(Array.from({ length: 120 }, (_, i) => 219 - i));
    expectRunningBalance(all);
    expect((await c.account.statement({ limit: 200 })).data).toEqual(all);
    // the REST shape of limit ("50") works over tRPC too
    expect((await c.account.statement({ limit: '3' as never })).data).toHaveLength(3);

    const from = '2026-03-10T12:30:00.000Z';
    const to = '2026-03-10T13:00:00-00:00';
    const ranged = await wholeStatement(acc.account_id, { from, to, limit: 4 });
    expect(ranged.map((m) => m.created_at)).toEqual(all.map((m) => m.created_at).filter((t) => t >= from && t < '2026-03-10T13:00:00.000Z'));
    expect(ranged).toHaveLength(30);
    // a bare `to` date covers that day
    expect(await wholeStatement(acc.account_id, { from: '2026-03-10', to: '2026-03-10' })).toEqual(all);
    expect(await wholeStatement(acc.account_id, { to: '2026-03-09' })).toEqual([]);
    // the widest range the dates allow: the day after 9999-12-31 has a five-digit year in ISO form
    expect(await wholeStatement(acc.account_id, { from: '0001-01-01', to: '9999-12-31' })).toEqual(all);
    expect(await wholeStatement(acc.account_id, { from: '0000-01-01T00:00:00+01:00', to: '9999-12-31T23:00:00-05:00' })).toEqual(all);
    expect(await wholeStatement(acc.account_id, { from: '9999-12-31T23:00:00-05:00' })).toEqual([]);
  });

  it('refuses a from after to, unparseable dates, bad limits and foreign cursors with 400', async () => {
    const acc = await makeAccount(s, { balance: 100 });
    const c = callerFor(s, acc.account_id);
    await c.transactions.create(txBody('CARD'));
    await c.transactions.create(txBody('CARD'));
    const txCursor = (await c.transactions.list({ limit: 1 })).next_cursor!;
    expect(txCursor).toBeTruthy();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: '2026-03-11', to: '2026-03-10T00:00:00Z' }, 'from'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-45' }, 'to'],
      [{ from: '2026-03-10T12:00:00' }, 'from'], // no time zone
      [{ limit: 0 }, 'limit'],
      [{ limit: 201 }, 'limit'],
      [{ limit: 1.5 }, 'limit'],
      [{ limit: '1e2' }, 'limit'],
      [{ cursor: 'garbage' }, 'cursor'],
      [{ cursor: txCursor }, 'cursor'],
      [{ cursor: Buffer.from('2026-03-10T12:00:00.000Z|lnl_12x').toString('base64url') }, 'cursor'],
      [{ other: 1 }, 'other'],
    ];
    for (const [q, path] of cases) {
      const e = await failure(c.account.statement(q as never));
      expect([e.code, e.extra.issues?.[0]?.path], JSON.stringify(q)).toEqual(['VALIDATION', path]);
    }
  });

  it('shows only the caller\'s own movements', async () => {
    const a = await makeAccount(s, { balance: 100 });
    const b = await makeAccount(s, { balance: 200 });
    expect((await callerFor(s, a.account_id).account.statement({})).data.map((m) => m.amount)).toEqual([100]);
    const bPage = await callerFor(s, b.account_id).account.statement({ limit: 1 });
    expect(bPage.data.map((m) => m.amount)).toEqual([200]);
    expect((await failure(callerFor(s, null).account.statement({}))).code).toBe('UNAUTHORIZED');
  });

  it('balance_after stays exact under concurrent money movements', async () => {
    const acc = await makeAccount(s, { balance: 50_000 });
    const c = callerFor(s, acc.account_id);
    const charges = await Promise.all(Array.from({ length: 10 }, () => c.transactions.create(txBody('CARD'))));
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      if (i % 3 === 0) calls.push(c.account.sandboxTopUp({ amount: 1_000 + i }));
      else if (i % 3 === 1) calls.push(c.withdrawals.create(withdrawal(7_000 + i, i % 2 ? 'fail@sandbox.test' : 'fulano@example.com')));
      else calls.push(c.transactions.refund({ id: charges[i % 10].id, amount: 300 }));
    }
    await Promise.allSettled(calls);
    await runSettlementPass(s, sandboxRail(0), 100);
    const all = await wholeStatement(acc.account_id, { limit: 13 });
    expect(all.length).toBeGreaterThan(60);
    expect(expectRunningBalance(all)).toBe((await c.account.balance()).available);
  });

  // the messages of an error and its causes (on PostgreSQL the trigger's refusal is a serialization
  // failure, retried by the writer and then reported as contention with the last refusal as its cause)
  const causes = (e: unknown) => {
    const out: string[] = [];
    for (let x = e as { message?: string; cause?: unknown } | undefined, i = 0; x && i < 6; x = x.cause as typeof x, i++) out.push(String(x.message ?? x));
    return out.join(' / ');
  };
  it('the database refuses a ledger line whose balance_after is not the running balance', async () => {
    const acc = await makeAccount(s, { balance: 100 });
    const err = await s.db.write((tx) => rawExec(tx, sql`
      INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      SELECT entry_id, book_id, 1, balance_after, '2030-01-01T00:00:00.000Z' FROM ledger_lines LIMIT 1`)).then(() => null, causes);
    expect(err).toMatch(/balance_after must be the book balance plus its amount/);
    const back = await s.db.write((tx) => rawExec(tx, sql`
      INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      SELECT l.entry_id, l.book_id, 1, b.balance + 1, '2020-01-01T00:00:00.000Z' FROM ledger_lines l JOIN ledger_books b ON b.id = l.book_id LIMIT 1`)).then(() => null, causes);
    expect(back).toMatch(/dated before the book's previous line/);
    expect((await callerFor(s, acc.account_id).account.statement({})).data).toHaveLength(1);
  });
});
