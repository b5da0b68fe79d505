import { first } from '../../db/query';
import { TRPCError } from '@trpc/server';
import { asc, eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disputes, events, idempotencyKeys, ledgerBooks, ledgerEntries, refunds, transactions } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { auditLedger } from '../../server/domain/ledger';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import { runRefundPass } from '../../server/domain/transactions/refunds';
import { toDomainError } from '../../server/errors';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';
import { REFUSED_CARD, card, txBody } from '../support/transactions';

const DELAY = 2_000;
let s: TestServices;
let clock: ManualClock;
const rail = sandboxRail(DELAY);
beforeEach(async () => {
  clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
  s = await makeTestServices({ clock, config: { sandboxSettlementDelayMs: DELAY } });
});
afterEach(async () => { await s.cleanup(); });

const factory = createCallerFactory(appRouter);
const as = (accountId: string, headers: Record<string, string> = {}) =>
  factory(createContextInner({ services: s, auth: { kind: 'bearer', accountId }, headers, transport: 'trpc' }));

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e, 'expected the call to fail').toBeInstanceOf(TRPCError);
  return toDomainError(e);
}

async function balance(accountId: string) {
  const { available, blocked } = await as(accountId).account.balance();
  return { available, blocked };
}

async function eventTypes(resourceId: string) {
  return (await s.db.read.handle.select().from(events).where(eq(events.resourceId, resourceId)).orderBy(asc(events.seq))).map((e) => e.type);
}

/** Everything a refund could have written, to show that a refused one wrote nothing. */
async function snapshot() {
  const n = async (t: any) => (await first(s.db.read.handle.select({ n: sql<number>`count(*)` }).from(t)))!.n;
  return {
    refunds: await n(refunds), entries: await n(ledgerEntries), events: await n(events), keys: await n(idempotencyKeys),
    books: await s.db.read.handle.select({ id: ledgerBooks.id, balance: ledgerBooks.balance }).from(ledgerBooks).orderBy(ledgerBooks.id),
    transactions: await s.db.read.handle.select().from(transactions).orderBy(transactions.id),
  };
}

async function settle() {
  clock.advance(DELAY);
  return runRefundPass(s, rail);
}

describe('POST /transaction/{id}/refund (transactions.refund)', () => {
  it('refunds part of a CARD charge: debits available at once, answers the query shape, settles PAID after the delay', async () => {
    const acc = await makeAccount(s, { balance: 1_000 });
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    clock.advance(1_000);
    const view = await c.transactions.refund({ id: t.id, amount: 1_000, reason: 'produto devolvido' });
    expect(view).toEqual({
      ...(await c.transactions.get({ id: t.id })),
      status: 'APPROVED', total: 2500, refunded_amount: 1_000,
      refunds: [{ id: expect.stringMatching(/^rf_[0-9a-z]{20}$/), amount: 1_000, status: 'PENDING', endtoend: null, created_at: '2026-03-10T12:00:01.000Z' }],
      updated_at: '2026-03-10T12:00:01.000Z',
    });
    expect(await balance(acc.account_id)).toEqual({ available: 2_500, blocked: 0 });
    expect(await eventTypes(t.id)).toEqual(['transaction.created', 'transaction.approved', 'transaction.refunded']);

    // not due yet, then due: paid, through the rail, like a withdrawal batch
    expect(await runRefundPass(s, rail)).toBe(0);
    expect(await settle()).toBe(1);
    const after = await c.transactions.get({ id: t.id });
    expect(after).toMatchObject({ status: 'APPROVED', refunded_amount: 1_000, refunds: [{ id: view.refunds[0].id, status: 'PAID', endtoend: null }] });
    expect(await eventTypes(t.id)).toEqual(['transaction.created', 'transaction.approved', 'transaction.refunded', 'transaction.refund_paid']);
    expect(await balance(acc.account_id)).toEqual({ available: 2_500, blocked: 0 });
    const books = await s.db.read.handle.select().from(ledgerBooks);
    expect(books.find((b) => b.accountId === acc.account_id && b.kind === 'refunds_in_flight')!.balance).toBe(0);
    expect(books.find((b) => b.kind === 'refunds_out')!.balance).toBe(1_000);
    expect(await settle()).toBe(0); // settled once
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('refunds the whole remainder without amount; a paid PIX refund gets a D… end-to-end id of 32 characters', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('PIX'));
    const paid = await c.sandbox.pay({ id: t.id });
    await c.transactions.refund({ id: t.id, amount: 500 });
    const rest = await c.transactions.refund({ id: t.id });
    expect(rest.refunded_amount).toBe(2_500);
    expect(rest.refunds.map((r) => r.amount)).toEqual([500, 2_000]);
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    expect((await failure(c.transactions.refund({ id: t.id }))).code).toBe('INVALID_STATE'); // nothing left
    expect(await settle()).toBe(2);
    const done = await c.transactions.get({ id: t.id });
    for (const r of done.refunds) {
      expect(r.status).toBe('PAID');
      expect(r.endtoend).toHaveLength(32);
      expect(r.endtoend).toMatch(/^D\d{8}202603101200[A-Za-z0-9]{11}$/);
      expect(isValidEndToEndId(r.endtoend!, 'D')).toBe(true);
      // returned to the payer's institution: the ISPB of the charge's own id
      expect(r.endtoend!.slice(1, 9)).toBe(paid.endtoend!.slice(1, 9));
    }
    expect(done.endtoend).toBe(paid.endtoend);
    expect(new Set(done.refunds.map((r) => r.endtoend)).size).toBe(2);
  });

  it('refunds an INVOICE too', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('INVOICE'));
    await c.sandbox.pay({ id: t.id });
    expect((await c.transactions.refund({ id: t.id })).refunded_amount).toBe(2_500);
    await settle();
    expect((await c.transactions.get({ id: t.id })).refunds[0]).toMatchObject({ status: 'PAID', endtoend: null });
  });

  it('a refund the rail fails returns its money (refund_failed) and no longer counts as refunded', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD', { customer: { ...txBody().customer, email: 'fail@sandbox.test' } }));
    await c.transactions.refund({ id: t.id, amount: 2_000 });
    expect(await balance(acc.account_id)).toEqual({ available: 500, blocked: 0 });
    expect(await settle()).toBe(1);
    const after = await c.transactions.get({ id: t.id });
    expect(after).toMatchObject({ refunded_amount: 0, refunds: [{ amount: 2_000, status: 'ERROR', endtoend: null }] });
    expect(await balance(acc.account_id)).toEqual({ available: 2_500, blocked: 0 });
    expect(await eventTypes(t.id)).toEqual(['transaction.created', 'transaction.approved', 'transaction.refunded', 'transaction.refund_failed']);
    // the whole total is refundable again
    expect((await c.transactions.refund({ id: t.id })).refunded_amount).toBe(2_500);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('an event carries the transaction with its refunds', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    const view = await c.transactions.refund({ id: t.id, amount: 100 });
    const e = await first(s.db.read.handle.select().from(events).where(eq(events.type, 'transaction.refunded')));
    expect(e!.category).toBe('transaction');
    expect(JSON.parse(e!.payload)).toEqual(view);
  });
});

describe('refunds: bad input changes nothing', () => {
  it('refuses zero, negative, fractional and string amounts and a long reason with 400', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    const before = await snapshot();
    for (const amount of [0, -100, 12.5, '250', true, null, 1e20] as any[]) {
      const e = await failure(c.transactions.refund({ id: t.id, amount }));
      expect([e.code, e.extra.issues?.[0]?.path], String(amount)).toEqual(['VALIDATION', 'amount']);
    }
    const long = await failure(c.transactions.refund({ id: t.id, reason: 'x'.repeat(141) }));
    expect([long.code, long.extra.issues?.[0]?.path]).toEqual(['VALIDATION', 'reason']);
    expect((await failure(c.transactions.refund({ id: t.id, extra: 1 } as any))).code).toBe('VALIDATION');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses more than is refundable, PENDING and REFUSED charges with 422, another account\'s with 404', async () => {
    const acc = await makeAccount(s, { balance: 100_000 });
    const other = await makeAccount(s, { balance: 100_000 });
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    await c.transactions.refund({ id: t.id, amount: 2_000 });
    const pending = await c.transactions.create(txBody('PIX'));
    const refused = await c.transactions.create(txBody('CARD', { card: card({ number: REFUSED_CARD }) }));
    const before = await snapshot();
    const more = await failure(c.transactions.refund({ id: t.id, amount: 501 }));
    expect([more.code, more.status, more.extra.issues?.[0]?.path]).toEqual(['UNPROCESSABLE', 422, 'amount']);
    expect(more.detail).toMatch(/at most 500 cents/);
    expect((await failure(c.transactions.refund({ id: pending.id }))).code).toBe('INVALID_STATE');
    expect((await failure(c.transactions.refund({ id: refused.id, amount: 1 }))).code).toBe('INVALID_STATE');
    expect((await failure(as(other.account_id).transactions.refund({ id: t.id, amount: 1 }))).code).toBe('NOT_FOUND');
    expect((await failure(c.transactions.refund({ id: 'txn_nope', amount: 1 }))).code).toBe('NOT_FOUND');
    expect(await snapshot()).toEqual(before);
  });

  it('a balance that does not cover the refund is a 422 INSUFFICIENT_FUNDS and changes nothing', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    await c.withdrawals.create({ amount: 2_000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: '52998224725' } });
    const before = await snapshot();
    const e = await failure(c.transactions.refund({ id: t.id }));
    expect([e.code, e.status]).toEqual(['INSUFFICIENT_FUNDS', 422]);
    expect(await snapshot()).toEqual(before);
    expect((await c.transactions.refund({ id: t.id, amount: 500 })).refunded_amount).toBe(500);
  });

  it('idempotency-key: same body → the stored answer once more; another body → 422; another charge → 422', async () => {
    const acc = await makeAccount(s);
    const t = await as(acc.account_id).transactions.create(txBody('CARD'));
    const t2 = await as(acc.account_id).transactions.create(txBody('CARD'));
    const keyed = as(acc.account_id, { 'idempotency-key': 'refund-1' });
    const first = await keyed.transactions.refund({ id: t.id, amount: 700 });
    clock.advance(5_000);
    const again = await keyed.transactions.refund({ id: t.id, amount: 700 });
    expect(again).toEqual(first);
    expect((await as(acc.account_id).transactions.get({ id: t.id })).refunds).toHaveLength(1);
    const before = await snapshot();
    expect((await failure(keyed.transactions.refund({ id: t.id, amount: 800 }))).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await failure(keyed.transactions.refund({ id: t.id }))).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await failure(keyed.transactions.refund({ id: t2.id, amount: 700 }))).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await snapshot()).toEqual(before);
  });
});

describe('refunds and disputes (docs/decisions.md "Refunds")', () => {
  it('a dispute holds the total minus refunds; refunds are refused while it is open; after a win the rest is refundable', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    await c.transactions.refund({ id: t.id, amount: 1_000 });
    const d = await c.sandbox.openDispute({ id: t.id });
    expect(d.amount).toBe(1_500);
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 1_500 });
    const before = await snapshot();
    const open = await failure(c.transactions.refund({ id: t.id, amount: 1 }));
    expect([open.code, open.status]).toEqual(['INVALID_STATE', 422]);
    expect(open.detail).toMatch(/open dispute/);
    expect(await snapshot()).toEqual(before);
    await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' });
    expect((await failure(c.transactions.refund({ id: t.id, amount: 1_501 }))).code).toBe('UNPROCESSABLE');
    expect((await c.transactions.refund({ id: t.id })).refunded_amount).toBe(2_500);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('after a lost dispute nothing can be refunded; a fully refunded charge cannot be disputed', async () => {
    const acc = await makeAccount(s, { balance: 10_000 });
    const c = as(acc.account_id);
    const lost = await c.transactions.create(txBody('CARD'));
    const d = await c.sandbox.openDispute({ id: lost.id });
    await c.sandbox.resolveDispute({ id: d.id, outcome: 'lost' });
    expect((await failure(c.transactions.refund({ id: lost.id, amount: 1 }))).detail).toMatch(/lost its dispute/);
    const full = await c.transactions.create(txBody('CARD'));
    await c.transactions.refund({ id: full.id });
    expect((await failure(c.sandbox.openDispute({ id: full.id }))).code).toBe('INVALID_STATE');
    expect(await s.db.read.handle.select().from(disputes).where(eq(disputes.transactionId, full.id))).toEqual([]);
  });

  it('the database itself refuses refunds beyond the total, during a dispute, or of another account, and a hold beyond what refunds left', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    const iso = clock.now().toISOString();
    const row = (over: Partial<typeof refunds.$inferInsert>) => ({ id: `rf_test${Math.random().toString(36).slice(2)}`, accountId: acc.account_id, transactionId: t.id, amount: 100, status: 'PENDING' as const, dueAt: iso, createdAt: iso, updatedAt: iso, ...over });
    const refused = (p: Promise<unknown>) => p.then(() => 'written', (e: Error) => String(e.message + ' ' + (e.cause as Error)?.message));
    expect(await refused(s.db.write((tx) => (tx.handle.insert(refunds).values(row({ amount: 2_501 })))))).toMatch(/transactions_refunded_bounds/);
    expect(await refused(s.db.write((tx) => (tx.handle.insert(refunds).values(row({ accountId: other.account_id })))))).toMatch(/not APPROVED/);
    expect(await refused(s.db.write((tx) => (tx.handle.insert(refunds).values(row({ status: 'PAID' })))))).toMatch(/starts PENDING/);
    await s.db.write((tx) => (tx.handle.insert(refunds).values(row({ amount: 2_000 }))));
    expect(await refused(s.db.write((tx) => (tx.handle.insert(disputes).values({ id: 'dsp_test', accountId: acc.account_id, transactionId: t.id, status: 'OPEN', amount: 501, createdAt: iso, updatedAt: iso }))))).toMatch(/dispute hold exceeds/);
    await s.db.write((tx) => (tx.handle.insert(disputes).values({ id: 'dsp_test', accountId: acc.account_id, transactionId: t.id, status: 'OPEN', amount: 500, createdAt: iso, updatedAt: iso })));
    expect(await refused(s.db.write((tx) => (tx.handle.insert(refunds).values(row({ amount: 1 })))))).toMatch(/open or lost dispute/);
    expect(await refused(s.db.write((tx) => (tx.handle.delete(refunds))))).toMatch(/refunds are history|refunds is append-only/); // SQLite's and PostgreSQL's words for it
  });
});

describe('refunds under concurrency', () => {
  it('20 parallel refunds of 10 % each plus a parallel dispute: refunds + hold never exceed the total, and the books balance', async () => {
    const acc = await makeAccount(s, { balance: 5_000 });
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD', { amount: 100_000, items: [{ title: 'TV', unitPrice: 100_000, quantity: 1 }] }));
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      calls.push(c.transactions.refund({ id: t.id, amount: 10_000 }));
      if (i === 6) calls.push(c.sandbox.openDispute({ id: t.id }));
    }
    const results = await Promise.allSettled(calls);
    const dispute = results[7];
    // The dispute comes 8th, but on PostgreSQL the jobs really run at once and it may take the charge's
    // lock after the refunds have taken everything: then it is refused (nothing left to dispute) and holds 0.
    // Either way refunds + hold are the total.
    let hold = 0;
    if (dispute.status === 'fulfilled') hold = (dispute.value as { amount: number }).amount;
    else expect(toDomainError(dispute.reason)).toMatchObject({ code: 'INVALID_STATE', message: expect.stringMatching(/fully refunded/) });
    const refundResults = results.filter((_, i) => i !== 7);
    const ok = refundResults.filter((r) => r.status === 'fulfilled').length;
    for (const r of refundResults) if (r.status === 'rejected') expect(toDomainError(r.reason).code).toBe('INVALID_STATE');
    const view = await c.transactions.get({ id: t.id });
    expect(view.refunded_amount).toBe(ok * 10_000);
    expect(view.refunds).toHaveLength(ok);
    expect(view.refunded_amount + hold).toBe(100_000);
    expect(await balance(acc.account_id)).toEqual({ available: 5_000, blocked: hold });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });
});

describe('refunds that fail after a dispute opened (docs/decisions.md "Refunds": refunds + hold = total, whatever the order)', () => {
  const failingCharge = (c: ReturnType<typeof as>) => c.transactions.create(txBody('CARD', {
    amount: 100_000, items: [{ title: 'TV', unitPrice: 100_000, quantity: 1 }], customer: { ...txBody().customer, email: 'fail@sandbox.test' },
  }));
  const entryKinds = async (resourceId: string) =>
    (await s.db.read.handle.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.resourceId, resourceId))).map((e) => e.kind);

  it('pending refunds, a dispute in the middle, then the refunds fail: their amounts join the hold, nothing reaches available', async () => {
    const acc = await makeAccount(s, { balance: 5_000 });
    const c = as(acc.account_id);
    const t = await failingCharge(c);
    // four refunds, the dispute, six more: in that order (on PostgreSQL concurrent jobs could otherwise
    // let all ten refunds in before the dispute, leaving nothing to dispute)
    const refund = () => c.transactions.refund({ id: t.id, amount: 10_000 });
    const results: PromiseSettledResult<unknown>[] = [];
    results.push(...await Promise.allSettled(Array.from({ length: 4 }, refund)));
    results.push(...await Promise.allSettled([c.sandbox.openDispute({ id: t.id })]));
    results.push(...await Promise.allSettled(Array.from({ length: 6 }, refund)));
    expect(results[4].status).toBe('fulfilled');
    const opened = (results[4] as PromiseFulfilledResult<{ id: string; amount: number }>).value;
    const pending = (await c.transactions.get({ id: t.id })).refunded_amount;
    expect(pending).toBeGreaterThan(0);
    expect(opened.amount + pending).toBe(100_000);
    const availableBefore = (await balance(acc.account_id)).available;

    expect(await settle()).toBeGreaterThan(0); // every pending refund fails on the rail
    const view = await c.transactions.get({ id: t.id });
    expect(view.refunded_amount).toBe(0);
    expect(view.refunds.every((r) => r.status === 'ERROR')).toBe(true);
    const d = (await first(s.db.read.handle.select().from(disputes).where(eq(disputes.id, opened.id))))!;
    // hold + paid refunds == total; the failed refunds' money did not become withdrawable
    expect(d.amount).toBe(100_000);
    expect(await balance(acc.account_id)).toEqual({ available: availableBefore, blocked: 100_000 });
    expect(await entryKinds(view.refunds[0].id)).toEqual(['refund_requested', 'refund_failed_held']);
    expect(await eventTypes(t.id)).toContain('transaction.refund_failed');
    // the statement of `available` is untouched by the held returns and still chains exactly
    const statement = await c.account.statement({ limit: 200 });
    expect(statement.data.map((m) => m.type)).not.toContain('refund_returned');
    expect(statement.data[0].balance_after).toBe(availableBefore);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });

    // a win releases the whole grown hold back to available
    await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' });
    expect(await balance(acc.account_id)).toEqual({ available: availableBefore + 100_000, blocked: 0 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('a refund failing after the dispute was lost goes to the chargeback, which grows to the total', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await failingCharge(c);
    const r = await c.transactions.refund({ id: t.id, amount: 40_000 });
    const d = await c.sandbox.openDispute({ id: t.id });
    expect(d.amount).toBe(60_000);
    await c.sandbox.resolveDispute({ id: d.id, outcome: 'lost' });
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    expect(await settle()).toBe(1);
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    expect((await first(s.db.read.handle.select().from(disputes).where(eq(disputes.id, d.id))))!.amount).toBe(100_000);
    expect(await entryKinds(r.refunds[0].id)).toEqual(['refund_requested', 'refund_failed_chargeback']);
    const chargebacks = await first(s.db.read.handle.select({ balance: ledgerBooks.balance }).from(ledgerBooks).where(eq(ledgerBooks.kind, 'chargebacks')));
    expect(chargebacks?.balance).toBe(100_000);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('the database refuses a dispute amount that shrinks or exceeds total minus refunds', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    const d = await c.sandbox.openDispute({ id: t.id });
    const refused = (p: Promise<unknown>) => p.then(() => 'written', (e: Error) => String(e.message + ' ' + (e.cause as Error)?.message));
    expect(await refused(s.db.write((tx) => (tx.handle.update(disputes).set({ amount: 2_501 }).where(eq(disputes.id, d.id)))))).toMatch(/dispute hold exceeds/);
    expect(await refused(s.db.write((tx) => (tx.handle.update(disputes).set({ amount: 2_000 }).where(eq(disputes.id, d.id)))))).toMatch(/dispute hold exceeds/);
  });
});
