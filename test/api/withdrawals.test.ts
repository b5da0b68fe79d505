import { first } from '../../db/query';
import { TRPCError } from '@trpc/server';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { events, idempotencyKeys, ledgerBooks, ledgerEntries, withdrawalBatches, withdrawals } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import type { Config } from '../../server/config';
import { createContextInner } from '../../server/context';
import type { DomainError } from '../../server/errors';
import { auditLedger, merchantBalance, systemBalances, systemShardOf } from '../../server/domain/ledger';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { participantByIspb } from '../../server/domain/pix/participants';
import { railFor, type PixRail } from '../../server/domain/rails';
import { applyPaymentOutcome, duePaymentOrders, runSettlementPass } from '../../server/domain/withdrawals/settle';
import { withdrawalView } from '../../server/domain/withdrawals/view';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { refuseEvents } from '../support/refuse-events';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

const DELAY = 1_000;
let s: TestServices;
let clock: ManualClock;
let rail: PixRail;

async function setup(config: Partial<Config> = {}) {
  clock = new ManualClock(new Date('2026-02-10T13:00:00.000Z'));
  s = await makeTestServices({ clock, config: { sandboxSettlementDelayMs: DELAY, pixMaxBatchCents: 100_000, webhookAllowPrivateUrls: false, ...config } });
  rail = railFor(s.config)!;
}
beforeEach(() => setup());
afterEach(async () => { await s.cleanup(); });

const createCaller = createCallerFactory(appRouter);
/** A caller with request headers (idempotency-key), as the bearer middleware would have resolved it. */
function callerWith(accountId: string, headers: Record<string, string> = {}) {
  const ctx = createContextInner({ services: s, auth: { kind: 'bearer', accountId }, headers, transport: 'trpc' });
  return { api: createCaller(ctx), ctx };
}

const request = (o: Record<string, unknown> = {}) => ({
  amount: 250_000,
  key: 'fulano@example.com',
  key_type: 'EMAIL' as const,
  description: 'payout',
  details: { name: 'Fulano de Tal', document: '529.982.247-25' },
  ...o,
});

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(TRPCError);
  const t = e as TRPCError;
  return { code: t.code, domain: t.cause as DomainError, message: t.message };
}

const balanceOf = async (accountId: string) => merchantBalance(s.db.read, accountId);
const eventsOf = (resourceId: string) => (s.db.read.handle.select().from(events).where(eq(events.resourceId, resourceId)).orderBy(asc(events.seq)));
const count = async (table: typeof withdrawals | typeof withdrawalBatches | typeof events) =>
  (await first(s.db.read.handle.select({ n: sql<number>`count(*)` }).from(table)))!.n;

async function settleAll() {
  clock.advance(DELAY);
  while ((await runSettlementPass(s, rail)) > 0) { /* until nothing is due */ }
}

describe('withdrawals.create', () => {
  it('splits, debits and records everything in one go, answering the creation envelope', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const res = await callerFor(s, acc.account_id).withdrawals.create(request());
    const at = clock.now().toISOString();
    expect(res).toEqual({
      statusCode: 201, message: 'WITHDRAW_REQUEST', timestamp: at,
      data: [100_000, 100_000, 50_000].map((amount) => ({ amount, event: 'WITHDRAWAL', identifier: expect.stringMatching(/^wdb_[0-9a-z]{20}$/), status: 'PENDING', timestamp: at })),
    });
    expect(new Set(res.data.map((b) => b.identifier)).size).toBe(3);
    expect(await balanceOf(acc.account_id)).toEqual({ available: 750_000, blocked: 0, inFlight: 250_000 });

    const view = await callerFor(s, acc.account_id).withdrawals.get({ identifier: res.data[0].identifier });
    expect(view).toEqual({
      id: expect.stringMatching(/^wd_[0-9a-z]{20}$/), status: 'REQUESTED', amount: 250_000,
      operation: {
        amount: 250_000, key: 'fulano@example.com', key_type: 'EMAIL', description: 'payout',
        details: { name: 'Fulano de Tal', document: '52998224725' }, postback: null, external_ref: null,
      },
      receipt: res.data.map((b) => ({ status: 'PENDING', endtoend: null, identifier: b.identifier, amount: b.amount, receiver_name: null, receiver_bank: null, receiver_bank_ispb: null, failure_code: null, failure_reason: null })),
      created_at: at, updated_at: at,
    });
    const evs = await eventsOf(view.id);
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested']);
    expect(JSON.parse(evs[0].payload)).toEqual(view);
    // the create job builds this payload from what it wrote: byte for byte the GET's view
    expect(evs[0].payload).toBe(JSON.stringify(view));
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('answers WITHDRAW_FAIL when the balance does not cover it, storing and debiting nothing', async () => {
    const acc = await makeAccount(s, { balance: 249_999 });
    const f = await failure(callerWith(acc.account_id, { 'idempotency-key': 'k-1' }).api.withdrawals.create(request({ external_ref: 'ref-1' })));
    expect(f.code).toBe('UNPROCESSABLE_CONTENT');
    expect(f.domain.code).toBe('INSUFFICIENT_FUNDS');
    expect(f.domain.extra.restBody).toEqual({ statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS', detail: f.domain.detail } });
    expect(await balanceOf(acc.account_id)).toEqual({ available: 249_999, blocked: 0, inFlight: 0 });
    expect([await count(withdrawals), await count(withdrawalBatches), await count(events)]).toEqual([0, 0, 0]);
    // the failure was not stored: the same key and external_ref work once the money is there
    await s.db.write((tx) => import('../../server/domain/ledger').then((l) => l.sandboxTopUp(tx, acc.account_id, 1, clock.now())));
    const ok = await callerWith(acc.account_id, { 'idempotency-key': 'k-1' }).api.withdrawals.create(request({ external_ref: 'ref-1' }));
    expect(ok.statusCode).toBe(201);
    expect((await balanceOf(acc.account_id)).available).toBe(0);
  });

  it('normalises the key and the document', async () => {
    const acc = await makeAccount(s, { balance: 1_000 });
    const api = callerFor(s, acc.account_id);
    const cases = [
      { key: '  Fulano@Example.COM ', key_type: 'EMAIL', want: 'fulano@example.com' },
      { key: '529.982.247-25', key_type: 'CPF', want: '52998224725' },
      { key: '12.ABC.345/01DE-35', key_type: 'CNPJ', want: '12ABC34501DE35' },
      { key: '+55 (11) 98765-4321', key_type: 'PHONE', want: '+5511987654321' },
      { key: '123E4567-E89B-12D3-A456-426614174000', key_type: 'EVP', want: '123e4567-e89b-12d3-a456-426614174000' },
    ] as const;
    for (const c of cases) {
      const res = await api.withdrawals.create(request({ amount: 1, key: c.key, key_type: c.key_type, details: { name: 'X', document: '12.abc.345/01de-35' } }));
      const view = await api.withdrawals.get({ identifier: res.data[0].identifier });
      expect(view.operation.key).toBe(c.want);
      expect(view.operation.details.document).toBe('12ABC34501DE35');
    }
  });

  it('refuses a key that does not fit its type, a bad document and a private postback, naming the field', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ key: '123.456.789-00', key_type: 'CPF' }, 'key', /CPF \(check digits do not match\)/],
      [{ key: '111.111.111-11', key_type: 'CPF' }, 'key', /all digits are the same/],
      [{ key: '12ABC34501DE36', key_type: 'CNPJ' }, 'key', /not a valid CNPJ/],
      [{ key: `${'a'.repeat(71)}@ex.com`, key_type: 'EMAIL' }, 'key', /at most 77 characters/],
      [{ key: '11987654321', key_type: 'PHONE' }, 'key', /\+55/],
      [{ key: 'not-a-uuid', key_type: 'EVP' }, 'key', /UUID/],
      [{ key: 'fulano@example.com', key_type: 'CPF' }, 'key', /CPF/],
      [{ details: { name: 'X', document: '123' } }, 'details.document', /valid CPF .* or CNPJ/],
      [{ postback: 'http://127.0.0.1:8080/hook' }, 'postback', /private/],
      [{ postback: 'http://[::ffff:10.0.0.1]/hook' }, 'postback', /private/],
      [{ postback: 'ftp://example.com/x' }, 'postback', /http or https/],
      [{ amount: '250' }, 'amount', /integer number of cents/],
      [{ amount: 100_000 * 1000 + 1 }, 'amount', /1000 batches/],
    ];
    for (const [o, path, message] of cases) {
      const e = await api.withdrawals.create(request(o) as never).then(() => null, (err) => err);
      expect(e, JSON.stringify(o)).toBeInstanceOf(TRPCError);
      const f = { code: e.code, domain: e.cause as DomainError };
      expect(f.code, JSON.stringify(o)).toBe('BAD_REQUEST');
      const issue = f.domain.extra.issues?.find((i) => i.path === path);
      expect(issue?.message, JSON.stringify(o)).toMatch(message);
    }
    expect(await count(withdrawals)).toBe(0);
    expect((await balanceOf(acc.account_id)).available).toBe(1_000_000);
  });

  it('accepts a public postback', async () => {
    const acc = await makeAccount(s, { balance: 1_000 });
    const res = await callerFor(s, acc.account_id).withdrawals.create(request({ amount: 10, postback: 'https://93.184.215.14/hooks?x=1' }));
    const view = await callerFor(s, acc.account_id).withdrawals.get({ identifier: res.data[0].identifier });
    expect(view.operation.postback).toBe('https://93.184.215.14/hooks?x=1');
  });
});

describe('idempotency and external_ref', () => {
  it('replays the stored answer for the same key and body, refuses another body, and debits once', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const first = callerWith(acc.account_id, { 'idempotency-key': 'abc' });
    const a = await first.api.withdrawals.create(request());
    expect(first.ctx.resHeaders.get('idempotent-replayed')).toBeNull();
    clock.advance(5_000);
    const again = callerWith(acc.account_id, { 'idempotency-key': 'abc' });
    const b = await again.api.withdrawals.create(request());
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(again.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    const f = await failure(callerWith(acc.account_id, { 'idempotency-key': 'abc' }).api.withdrawals.create(request({ amount: 1 })));
    expect([f.code, f.domain.code]).toEqual(['UNPROCESSABLE_CONTENT', 'IDEMPOTENCY_KEY_REUSED']);
    expect(await count(withdrawals)).toBe(1);
    expect((await balanceOf(acc.account_id)).available).toBe(750_000);
    // another account's identical key is its own
    const other = await makeAccount(s, { balance: 250_000 });
    const c = await callerWith(other.account_id, { 'idempotency-key': 'abc' }).api.withdrawals.create(request());
    expect(c.data[0].identifier).not.toBe(a.data[0].identifier);
  });

  it('keeps external_ref unique per account, except for an idempotent replay', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const a = await callerWith(acc.account_id, { 'idempotency-key': 'k' }).api.withdrawals.create(request({ external_ref: 'order-1' }));
    const replay = await callerWith(acc.account_id, { 'idempotency-key': 'k' }).api.withdrawals.create(request({ external_ref: 'order-1' }));
    expect(replay).toEqual(a);
    const f = await failure(callerFor(s, acc.account_id).withdrawals.create(request({ external_ref: 'order-1' })));
    expect([f.code, f.domain.code]).toEqual(['CONFLICT', 'DUPLICATE_EXTERNAL_REF']);
    const other = await makeAccount(s, { balance: 1_000_000 });
    expect((await callerFor(s, other.account_id).withdrawals.create(request({ external_ref: 'order-1' }))).statusCode).toBe(201);
    expect((await balanceOf(acc.account_id)).available).toBe(750_000);
  });

  it('refuses an over-long idempotency key', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const f = await failure(callerWith(acc.account_id, { 'idempotency-key': 'k'.repeat(256) }).api.withdrawals.create(request()));
    expect(f.code).toBe('BAD_REQUEST');
    expect(await count(withdrawals)).toBe(0);
  });
});

describe('settlement', () => {
  it('pays every batch after the delay, with receipts from the rail\'s directory (not the typed name), moving the money to pix_out', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create(request());
    expect(await runSettlementPass(s, rail)).toBe(0); // not due yet
    clock.advance(DELAY - 1);
    expect(await runSettlementPass(s, rail)).toBe(0);
    clock.advance(1);
    expect(await runSettlementPass(s, rail)).toBe(3);
    const view = await api.withdrawals.get({ identifier: res.data[2].identifier });
    expect(view.status).toBe('PAID');
    expect(view.updated_at).toBe(clock.now().toISOString());
    // what the lookup says of the key is what the receipts say, whatever details.name was typed
    const entry = await api.pix.lookupKey({ key: 'fulano@example.com', key_type: 'EMAIL' });
    expect(entry.holder.name).not.toBe('Fulano de Tal');
    expect(view.receipt.map((r) => r.amount)).toEqual([100_000, 100_000, 50_000]);
    for (const r of view.receipt) {
      expect(r.status).toBe('PAID');
      expect(r.endtoend).toHaveLength(32);
      expect(isValidEndToEndId(r.endtoend!)).toBe(true);
      expect(participantByIspb(r.receiver_bank_ispb!)?.shortName).toBe(r.receiver_bank);
      expect([r.receiver_name, r.receiver_bank, r.receiver_bank_ispb]).toEqual([entry.holder.name, entry.bank.name, entry.bank.ispb]);
      expect([r.failure_code, r.failure_reason]).toEqual([null, null]);
    }
    expect(await balanceOf(acc.account_id)).toEqual({ available: 750_000, blocked: 0, inFlight: 0 });
    // pix_out, summed over its shards: the paid money went to the one shard this merchant posts to
    expect((await systemBalances(s.db.read)).pix_out).toBe(250_000);
    const pixOut = await s.db.read.handle.select().from(ledgerBooks).where(eq(ledgerBooks.kind, 'pix_out'));
    expect(pixOut.map((b) => [b.shard, b.balance])).toEqual([[systemShardOf(acc.account_id), 250_000]]);
    // the first of three batches paid is a status change (REQUESTED → PARTIALLY_PAID), the last another
    const evs = await eventsOf(view.id);
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
    expect(JSON.parse(evs[2].payload)).toEqual(view);
    expect(JSON.parse(evs[1].payload)).toMatchObject({ status: 'PARTIALLY_PAID', receipt: [{ status: 'PAID' }, { status: 'PENDING' }, { status: 'PENDING' }] });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('fails every batch of fail@sandbox.test and returns the money', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create(request({ key: 'fail@sandbox.test' }));
    await settleAll();
    const view = await api.withdrawals.get({ identifier: res.data[0].identifier });
    expect(view.status).toBe('ERROR');
    expect(view.receipt.map((r) => [r.status, r.endtoend, r.receiver_bank])).toEqual([['ERROR', null, null], ['ERROR', null, null], ['ERROR', null, null]]);
    expect(view.receipt.map((r) => [r.amount, r.failure_code, r.failure_reason])).toEqual([100_000, 100_000, 50_000].map((amount) =>
      [amount, 'REJECTED', 'The receiving institution refused the payment (sandbox key fail@sandbox.test).']));
    // the reason is stored with the batch, not recomputed on read
    const stored = await s.db.read.handle.select({ reason: withdrawalBatches.failureReason }).from(withdrawalBatches).where(eq(withdrawalBatches.withdrawalId, view.id));
    expect(stored.map((r) => r.reason)).toEqual(view.receipt.map((r) => r.failure_reason));
    expect(await balanceOf(acc.account_id)).toEqual({ available: 1_000_000, blocked: 0, inFlight: 0 });
    expect((await eventsOf(view.id)).map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.error']);
  });

  it('pays only the first batch of partial@sandbox.test and returns the rest', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create(request({ key: 'partial@sandbox.test' }));
    await settleAll();
    const view = await api.withdrawals.get({ identifier: res.data[0].identifier });
    expect(view.status).toBe('PARTIALLY_PAID');
    expect(view.receipt.map((r) => r.status)).toEqual(['PAID', 'ERROR', 'ERROR']);
    expect(view.receipt.map((r) => r.failure_reason === null)).toEqual([true, false, false]);
    expect(view.receipt[1].failure_reason).toMatch(/^The receiving institution refused this batch; only the first batch is paid/);
    expect(await balanceOf(acc.account_id)).toEqual({ available: 900_000, blocked: 0, inFlight: 0 });
    const evs = await eventsOf(view.id);
    // partially_paid when the first batch is paid, and again when the withdrawal is settled
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.partially_paid']);
    expect(JSON.parse(evs[2].payload)).toEqual(view);
  });

  it('applies an outcome once, however many times it is applied (double run)', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    await callerFor(s, acc.account_id).withdrawals.create(request({ amount: 1_000 }));
    clock.advance(DELAY);
    const [order] = await duePaymentOrders(s.db.read, clock.now());
    const outcome = await rail.pay(order, clock.now());
    const results = await Promise.all([1, 2, 3].map(() => applyPaymentOutcome(s, order, outcome)));
    expect(results.filter(Boolean)).toHaveLength(1);
    // two passes racing over the same due rows settle each batch once as well
    await callerFor(s, acc.account_id).withdrawals.create(request({ amount: 300_000 }));
    clock.advance(DELAY);
    await Promise.all([runSettlementPass(s, rail), runSettlementPass(s, rail)]);
    const paid = await first(s.db.read.handle.select({ n: sql<number>`count(*)` }).from(ledgerEntries).where(eq(ledgerEntries.kind, 'withdrawal_paid')));
    expect(paid!.n).toBe(1 + 3);
    expect(await balanceOf(acc.account_id)).toEqual({ available: 699_000, blocked: 0, inFlight: 0 });
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('keeps a batch pending and due later when the rail call fails or says "not yet"', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const res = await callerFor(s, acc.account_id).withdrawals.create(request({ amount: 1_000 }));
    clock.advance(DELAY);
    const flaky: PixRail = { ...rail, name: 'flaky', firstAttemptAt: (d) => d, pay: async () => { throw new Error('connect ETIMEDOUT'); } };
    const log = console.error;
    console.error = () => {};
    try {
      expect(await runSettlementPass(s, flaky)).toBe(1);
    } finally {
      console.error = log;
    }
    expect(await runSettlementPass(s, rail)).toBe(0); // rescheduled, not due now
    const slow: PixRail = { ...rail, name: 'slow', firstAttemptAt: (d) => d, pay: async (_o, now) => ({ status: 'PENDING', retryAt: new Date(now.getTime() + 5_000) }) };
    clock.advance(30_000);
    expect(await runSettlementPass(s, slow)).toBe(1);
    expect(await runSettlementPass(s, rail)).toBe(0);
    clock.advance(5_000);
    expect(await runSettlementPass(s, rail)).toBe(1);
    expect((await callerFor(s, acc.account_id).withdrawals.get({ identifier: res.data[0].identifier })).status).toBe('PAID');
  });
});

describe('one write job per change', () => {
  /** Makes the event insert fail for the given types, as a full disk or a bug would. */
  let repair: (() => Promise<void>) | null = null;
  const breakEvents = async (types: string[]) => { repair = await refuseEvents(s.db, types, 'test: events are down'); };
  const repairEvents = () => repair!();
  const entriesOf = async (accountId: string) => (await s.db.read.handle.select({ kind: ledgerEntries.kind }).from(ledgerEntries)
    .where(eq(ledgerEntries.accountId, accountId))).map((e) => e.kind);
  const idempotencyRows = async () => (await first(s.db.read.handle.select({ n: sql<number>`count(*)` }).from(idempotencyKeys)))!.n;

  it('stores nothing of a request whose withdraw.requested event cannot be written: no debit, no rows, no idempotent answer', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    await breakEvents(['withdraw.requested']);
    const f = await failure(callerWith(acc.account_id, { 'idempotency-key': 'atomic' }).api.withdrawals.create(request({ external_ref: 'atomic' })));
    expect(f.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await balanceOf(acc.account_id)).toEqual({ available: 1_000_000, blocked: 0, inFlight: 0 });
    expect(await entriesOf(acc.account_id)).toEqual(['sandbox_topup']);
    expect([await count(withdrawals), await count(withdrawalBatches), await count(events), await idempotencyRows()]).toEqual([0, 0, 0, 0]);
    await repairEvents();
    // the same key and external_ref then run for real, once
    const ok = await callerWith(acc.account_id, { 'idempotency-key': 'atomic' }).api.withdrawals.create(request({ external_ref: 'atomic' }));
    expect(ok.statusCode).toBe(201);
    expect([await count(withdrawals), await count(withdrawalBatches), await count(events), await idempotencyRows()]).toEqual([1, 3, 1, 1]);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('keeps a batch PENDING, its money in flight, when the event of its outcome cannot be written; the next pass settles it', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create(request({ amount: 1_000 }));
    const requested = await api.withdrawals.get({ identifier: res.data[0].identifier });
    await breakEvents(['withdraw.paid', 'withdraw.partially_paid', 'withdraw.error']);
    clock.advance(DELAY);
    const log = console.error;
    console.error = () => {};
    try {
      expect(await runSettlementPass(s, rail)).toBe(0);
    } finally {
      console.error = log;
    }
    // the batch status, the withdrawal status and the ledger entry were rolled back with the event
    expect(await api.withdrawals.get({ identifier: res.data[0].identifier })).toEqual(requested);
    expect(await balanceOf(acc.account_id)).toEqual({ available: 999_000, blocked: 0, inFlight: 1_000 });
    expect(await entriesOf(acc.account_id)).toEqual(['sandbox_topup', 'withdrawal_requested']);
    await repairEvents();
    // the failed pass still holds its claim on the batch: it is due again once the lease runs out
    expect(await runSettlementPass(s, rail)).toBe(0);
    clock.advance(s.config.jobLeaseMs);
    expect(await runSettlementPass(s, rail)).toBe(1);
    const paid = await api.withdrawals.get({ identifier: res.data[0].identifier });
    expect(paid.status).toBe('PAID');
    expect(await balanceOf(acc.account_id)).toEqual({ available: 999_000, blocked: 0, inFlight: 0 });
    const evs = await eventsOf(paid.id);
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.paid']);
    expect(JSON.parse(evs[1].payload)).toEqual(paid);
  });
});

describe('withdrawals.get', () => {
  it('finds by id, batch identifier or external_ref; both must agree; neither is a 400; others are 404', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const a = await api.withdrawals.create(request({ external_ref: 'ref-a' }));
    const b = await api.withdrawals.create(request({ amount: 5, external_ref: 'ref-b' }));
    const view = await api.withdrawals.get({ external_ref: 'ref-a' });
    expect(view.receipt.map((r) => r.identifier)).toEqual(a.data.map((d) => d.identifier));
    expect(await api.withdrawals.get({ identifier: view.id })).toEqual(view);
    for (const d of a.data) expect(await api.withdrawals.get({ identifier: d.identifier })).toEqual(view);
    expect(await api.withdrawals.get({ identifier: a.data[1].identifier, external_ref: 'ref-a' })).toEqual(view);
    expect((await failure(api.withdrawals.get({ identifier: b.data[0].identifier, external_ref: 'ref-a' }))).code).toBe('NOT_FOUND');
    expect((await failure(api.withdrawals.get({ identifier: 'wd_nope' }))).code).toBe('NOT_FOUND');
    expect((await failure(api.withdrawals.get({ external_ref: 'nope' }))).code).toBe('NOT_FOUND');
    const neither = await failure(api.withdrawals.get({}));
    expect(neither.code).toBe('BAD_REQUEST');

    const other = callerFor(s, (await makeAccount(s)).account_id);
    for (const q of [{ identifier: view.id }, { identifier: a.data[0].identifier }, { external_ref: 'ref-a' }]) {
      const f = await failure(other.withdrawals.get(q));
      expect(f.code).toBe('NOT_FOUND');
      expect(f.message).toBe('withdrawal not found');
    }
    const viewAt = await withdrawalView(s.db.read, acc.account_id, view.id);
    expect(viewAt).toEqual(view);
    expect(await withdrawalView(s.db.read, 'acc_other', view.id)).toBeNull();
  });
});

describe('withdrawals.list', () => {
  it('pages newest first with a cursor and filters by status and date', async () => {
    const acc = await makeAccount(s, { balance: 10_000_000 });
    const api = callerFor(s, acc.account_id);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const key = i % 3 === 0 ? 'fail@sandbox.test' : 'fulano@example.com';
      const r = await api.withdrawals.create(request({ amount: 1000 + i, key, external_ref: `r${i}` }));
      ids.push((await api.withdrawals.get({ identifier: r.data[0].identifier })).id);
      if (i === 3) clock.advance(24 * 3600_000); // the last three are a day later
      else clock.advance(1000);
    }
    await settleAll();

    const p1 = await api.withdrawals.list({ limit: 3 });
    expect(p1.items.map((i) => i.id)).toEqual([ids[6], ids[5], ids[4]]);
    expect(p1.items[0]).toEqual(await api.withdrawals.get({ identifier: ids[6] }));
    const p2 = await api.withdrawals.list({ limit: 3, cursor: p1.next_cursor });
    expect(p2.items.map((i) => i.id)).toEqual([ids[3], ids[2], ids[1]]);
    const p3 = await api.withdrawals.list({ limit: 3, cursor: p2.next_cursor });
    expect(p3).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    expect((await api.withdrawals.list({})).items).toHaveLength(7);

    const failed = await api.withdrawals.list({ status: 'ERROR' });
    expect(failed.items.map((i) => i.id)).toEqual([ids[6], ids[3], ids[0]]);
    const failedPaged = await api.withdrawals.list({ status: 'ERROR', limit: 2 });
    expect((await api.withdrawals.list({ status: 'ERROR', limit: 2, cursor: failedPaged.next_cursor })).items.map((i) => i.id)).toEqual([ids[0]]);

    const day1 = '2026-02-10';
    expect((await api.withdrawals.list({ to: day1 })).items.map((i) => i.id)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect((await api.withdrawals.list({ from: '2026-02-11' })).items.map((i) => i.id)).toEqual([ids[6], ids[5], ids[4]]);
    const created2 = (await api.withdrawals.get({ identifier: ids[2] })).created_at;
    expect((await api.withdrawals.list({ from: created2, to: '2026-02-10T23:59:59Z', status: 'PAID' })).items.map((i) => i.id)).toEqual([ids[2]]);

    // another account sees none of them
    expect((await callerFor(s, (await makeAccount(s)).account_id).withdrawals.list({})).items).toEqual([]);
  });

  it('refuses a forged cursor, a bad limit, status or date, and unknown fields', async () => {
    const acc = await makeAccount(s);
    const api = callerFor(s, acc.account_id);
    for (const input of [{ cursor: 'garbage' }, { limit: 0 }, { limit: 101 }, { limit: '5' }, { status: 'PENDING' }, { from: 'yesterday' }, { to: '2026-13-01' }, { foo: 1 }]) {
      expect((await failure(api.withdrawals.list(input as never))).code, JSON.stringify(input)).toBe('BAD_REQUEST');
    }
  });
});

describe('events', () => {
  it('record what GET returned at that moment, in the job of the change', async () => {
    const acc = await makeAccount(s, { balance: 1_000_000 });
    const api = callerFor(s, acc.account_id);
    const res = await api.withdrawals.create(request({ amount: 150_000, external_ref: 'evt' }));
    const requested = await api.withdrawals.get({ external_ref: 'evt' });
    clock.advance(DELAY);
    await runSettlementPass(s, rail, 1);
    const partial = await api.withdrawals.get({ external_ref: 'evt' });
    clock.advance(1);
    await runSettlementPass(s, rail, 1);
    const paid = await api.withdrawals.get({ external_ref: 'evt' });
    const evs = await eventsOf(requested.id);
    expect(evs.map((e) => [e.type, e.category, e.accountId])).toEqual([
      ['withdraw.requested', 'withdraw', acc.account_id], ['withdraw.partially_paid', 'withdraw', acc.account_id], ['withdraw.paid', 'withdraw', acc.account_id],
    ]);
    expect(evs.map((e) => JSON.parse(e.payload))).toEqual([requested, partial, paid]);
    expect(evs.map((e) => e.createdAt)).toEqual([requested.updated_at, partial.updated_at, paid.updated_at]);
    expect(res.data).toHaveLength(2);
    const rows = await s.db.read.handle.select().from(withdrawals).where(and(eq(withdrawals.accountId, acc.account_id)));
    expect(rows).toHaveLength(1);
  });
});

describe('with the sandbox off and no real rail', () => {
  it('accepts withdrawals but pays nothing: batches wait PENDING with the money in flight', async () => {
    await s.cleanup();
    await setup({ sandbox: false });
    expect(railFor(s.config)).toBeNull();
    const { account_id } = await makeAccount(s, { balance: 5_000 });
    const created = await callerFor(s, account_id).withdrawals.create({
      amount: 1_000, key: 'maria@example.com', key_type: 'EMAIL', details: { name: 'Maria', document: '52998224725' },
    });
    expect(created.data[0].status).toBe('PENDING');
    const got = await callerFor(s, account_id).withdrawals.get({ identifier: created.data[0].identifier });
    expect(got.status).toBe('REQUESTED');
    expect(await callerFor(s, account_id).account.balance()).toMatchObject({ available: 4_000 });
  });
});
