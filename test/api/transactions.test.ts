import { first } from '../../db/query';
import { TRPCError } from '@trpc/server';
import { asc, eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customers, disputes, events, idempotencyKeys, ledgerBooks, ledgerEntries, transactions } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { auditLedger, transfer } from '../../server/domain/ledger';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { verifyDigitableLine } from '../../server/domain/transactions/invoice';
import { merchantPixKey } from '../../server/domain/transactions/pix-charge';
import { toDomainError } from '../../server/errors';
import { expiryTick } from '../../server/jobs/expiry';
import { appRouter } from '../../server/routers';
import { onPostgres } from '../../db/dialect';
import { createCallerFactory } from '../../server/trpc';
import { parseWithPixUtils, readBrCode } from '../support/brcode-reader';
import { refuseEvents } from '../support/refuse-events';
import { makeAccount, makeTestServices, serverServices, type TestServices } from '../support/services';
import { card, REFUSED_CARD, txBody } from '../support/transactions';
import type { LedgerEntryKind } from '../../contract/ledger';

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z')); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

const factory = createCallerFactory(appRouter);
function withCtx(accountId: string, headers: Record<string, string> = {}) {
  const ctx = createContextInner({ services: s, auth: { kind: 'bearer', accountId }, headers, transport: 'trpc' });
  return { c: factory(ctx), ctx };
}
const as = (accountId: string, headers: Record<string, string> = {}) => withCtx(accountId, headers).c;

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e, 'expected the call to fail').toBeInstanceOf(TRPCError);
  return toDomainError(e);
}

async function counts() {
  const n = async (t: any) => (await first(s.db.read.handle.select({ n: sql<number>`count(*)` }).from(t)))!.n;
  return { transactions: await n(transactions), customers: await n(customers), events: await n(events), entries: await n(ledgerEntries), keys: await n(idempotencyKeys) };
}

async function eventsOf(resourceId: string) {
  return (await s.db.read.handle.select().from(events).where(eq(events.resourceId, resourceId)).orderBy(asc(events.seq)))
    .map((e) => ({ type: e.type, category: e.category, data: JSON.parse(e.payload) }));
}

async function balance(accountId: string) {
  const { available, blocked } = await as(accountId).account.balance();
  return { available, blocked };
}

const CREATION_KEYS = ['id', 'status', 'total', 'method', 'qrcode', 'invoice', 'currency', 'identifier', 'external_ref', 'customer', 'created_at', 'updated_at'];
const VIEW_KEYS = ['id', 'status', 'total', 'method', 'currency', 'endtoend', 'postback', 'items', 'customer', 'external_ref', 'metadata', 'created_at', 'updated_at', 'refunded_amount', 'refunds'];

describe('POST /transaction (transactions.create)', () => {
  it('creates a PENDING PIX with a BR Code that reads back', async () => {
    const acc = await makeAccount(s, { name: 'Padaria Pão Quentinho da Vila Madalena' });
    const c = as(acc.account_id);
    const created = await c.transactions.create(txBody('PIX', { externalRef: 'order-1', postback: 'https://93.184.215.14/hook' }));
    expect(Object.keys(created)).toEqual(CREATION_KEYS);
    expect(created).toMatchObject({
      status: 'PENDING', total: 2500, method: 'PIX', invoice: null, currency: 'BRL', external_ref: 'order-1',
      customer: { name: 'Maria Silva', email: 'maria@example.com', phone: '+55 11 91234-5678', document: '52998224725' },
    });
    expect(created.id).toMatch(/^txn_[a-z0-9]{20}$/);
    expect(created.identifier).toBe(created.id.replace('_', ''));
    expect(created.customer.id).toMatch(/^cus_/);
    expect(Object.keys(created.customer)).toEqual(['id', 'name', 'email', 'phone', 'document']);
    expect(created.created_at).toBe('2026-03-10T12:00:00.000Z');
    expect(created.updated_at).toBe(created.created_at);

    const br = readBrCode(created.qrcode!);
    expect(br.crcOk).toBe(true);
    expect(br).toMatchObject({ format: '01', initiation: '12', gui: 'br.gov.bcb.pix', mcc: '0000', currency: '986', amount: '25.00', country: 'BR', txid: created.identifier });
    expect(br.key).toBe(merchantPixKey(acc.account_id));
    expect(br.name).toBe('Padaria Pao Quentinho da');
    expect(br.city).toBe('SAO PAULO');
    // and the same read by pix-utils, a parser that is not ours
    expect(parseWithPixUtils(created.qrcode!)).toMatchObject({
      pixKey: merchantPixKey(acc.account_id), transactionAmount: 25, merchantName: 'Padaria Pao Quentinho da', merchantCity: 'SAO PAULO', txid: created.identifier,
    });

    const row = await first(s.db.read.handle.select().from(transactions).where(eq(transactions.id, created.id)));
    expect(row!.expiresAt).toBe('2026-03-10T13:00:00.000Z');
    expect(await eventsOf(created.id)).toEqual([{ type: 'transaction.created', category: 'transaction', data: await c.transactions.get({ id: created.id }) }]);
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    expect(await c.transactions.paymentDetails({ transactionId: created.id })).toMatchObject({ qrcode: created.qrcode, expires_at: row!.expiresAt, card: null, invoice: null });
  });

  it('approves a valid CARD at once and credits it through the ledger', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const created = await c.transactions.create(txBody('CARD'));
    expect(created).toMatchObject({ status: 'APPROVED', method: 'CARD', qrcode: null, invoice: null, total: 2500 });
    expect(await balance(acc.account_id)).toEqual({ available: 2500, blocked: 0 });
    const evs = await eventsOf(created.id);
    expect(evs.map((e) => [e.type, e.data.status])).toEqual([['transaction.created', 'PENDING'], ['transaction.approved', 'APPROVED']]);
    expect(await c.transactions.paymentDetails({ transactionId: created.id })).toMatchObject({ card: { brand: 'VISA', last4: '1111', holder_name: 'Maria Silva', installments: 3 }, refused_reason: null });
    const entries = await s.db.read.handle.select().from(ledgerEntries).where(eq(ledgerEntries.resourceId, created.id));
    expect(entries.map((e) => e.kind)).toEqual(['transaction_credit']);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('refuses the sandbox decline numbers and credits nothing', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const created = await c.transactions.create(txBody('CARD', { card: card({ number: REFUSED_CARD }), installments: undefined }));
    expect(created.status).toBe('REFUSED');
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    expect((await eventsOf(created.id)).map((e) => e.type)).toEqual(['transaction.created', 'transaction.refused']);
    expect(await c.transactions.paymentDetails({ transactionId: created.id })).toMatchObject({ card: { last4: '0002', installments: 1 }, refused_reason: 'card_declined' });
  });

  it('creates a PENDING INVOICE with an invoice id, due date and a digitable line that checks', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const created = await c.transactions.create(txBody('INVOICE', { customer: { ...txBody().customer, document: '11.222.333/0001-81', phone: undefined } }));
    expect(created).toMatchObject({ status: 'PENDING', method: 'INVOICE', qrcode: null });
    expect(created.invoice).toMatch(/^inv_[a-z0-9]{20}$/);
    expect(created.customer).toMatchObject({ document: '11222333000181', phone: null });
    const details = await c.transactions.paymentDetails({ transactionId: created.id });
    expect(details.invoice).toMatchObject({ id: created.invoice, due_date: '2026-03-13' });
    expect(verifyDigitableLine(details.invoice!.digitable_line)).toBe(true);
    expect(details.invoice!.digitable_line.slice(-10)).toBe('0000002500');
  });
});

describe('bad input: a 400 naming the field, nothing stored', () => {
  const customer = txBody().customer;
  const cases: [string, Record<string, unknown>, string][] = [
    ['amount ≠ items total', txBody('PIX', { amount: 2499 }), 'amount'],
    ['amount missing', txBody('PIX', { amount: undefined }), 'amount'],
    ['amount as a string', txBody('PIX', { amount: '2500' }), 'amount'],
    ['amount with cents fraction', txBody('PIX', { amount: 12.5 }), 'amount'],
    ['amount beyond safe integers', txBody('PIX', { amount: 1e20 }), 'amount'],
    ['empty items', txBody('PIX', { items: [] }), 'items'],
    ['item quantity as a string', txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: '1' }] }), 'items.0.quantity'],
    ['item tangible as a string', txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: 1, tangible: 'true' }] }), 'items.0.tangible'],
    ['invalid CPF', txBody('PIX', { customer: { ...customer, document: '123.456.789-00' } }), 'customer.document'],
    ['invalid CNPJ', txBody('PIX', { customer: { ...customer, document: '11.222.333/0001-80' } }), 'customer.document'],
    ['customer email missing', txBody('PIX', { customer: { ...customer, email: undefined } }), 'customer.email'],
    ['customer email malformed', txBody('PIX', { customer: { ...customer, email: 'nope' } }), 'customer.email'],
    ['customer name missing', txBody('PIX', { customer: { ...customer, name: undefined } }), 'customer.name'],
    ['unknown method', txBody('PIX', { method: 'BOLETO' }), 'method'],
    ['invalid card number', txBody('CARD', { card: card({ number: '4111111111111112' }) }), 'card.number'],
    ['expired card', txBody('CARD', { card: card({ expiration_year: '2025', expiration_month: '01' }) }), 'card.expiration_year'],
    ['CVV of the wrong length', txBody('CARD', { card: card({ number: '378282246310005', cvv: '123' }) }), 'card.cvv'],
    ['card holder missing', txBody('CARD', { card: card({ holder_name: undefined }) }), 'card.holder_name'],
    ['CARD without card', txBody('CARD', { card: undefined }), 'card'],
    ['installments 13', txBody('CARD', { installments: 13 }), 'installments'],
    ['installments 0', txBody('CARD', { installments: 0 }), 'installments'],
    ['installments on a PIX', txBody('PIX', { installments: 2 }), 'installments'],
    ['PIX with a card', txBody('PIX', { card: card() }), 'card'],
    ['INVOICE with a card', txBody('INVOICE', { card: card() }), 'card'],
    ['unknown top-level field', txBody('PIX', { discount: 10 }), 'discount'],
    ['unknown customer field', txBody('PIX', { customer: { ...customer, age: 30 } }), 'customer.age'],
    ['unknown card field', txBody('CARD', { card: { ...card(), pin: '1234' } }), 'card.pin'],
    ['externalRef too long', txBody('PIX', { externalRef: 'x'.repeat(256) }), 'externalRef'],
    ['postback not http(s)', txBody('PIX', { postback: 'ftp://example.com/x' }), 'postback'],
    ['postback to a private address', txBody('PIX', { postback: 'http://127.0.0.1:8080/hook' }), 'postback'],
  ];

  it.each(cases)('%s', async (_name, body, path) => {
    const acc = await makeAccount(s);
    const before = await counts();
    const err = await failure(as(acc.account_id, { 'idempotency-key': 'bad-1' }).transactions.create(body as never));
    expect(err.code).toBe('VALIDATION');
    expect(err.status).toBe(400);
    expect(err.extra.issues?.map((i) => i.path)).toContain(path);
    // no message may echo the card
    const sent = (body as { card?: { number?: string; cvv?: string } }).card;
    if (sent?.number) expect(err.detail).not.toContain(sent.number);
    if (sent?.cvv) expect(err.detail).not.toContain(sent.cvv);
    expect(await counts()).toEqual(before);
  });
});

describe('idempotency and externalRef', () => {
  it('replays the stored answer for the same key and body, refuses another body', async () => {
    const acc = await makeAccount(s);
    const first = withCtx(acc.account_id, { 'idempotency-key': 'k-1' });
    const a = await first.c.transactions.create(txBody('CARD'));
    expect(first.ctx.resHeaders.get('idempotent-replayed')).toBeNull();
    clock.advance(5_000);
    const again = withCtx(acc.account_id, { 'idempotency-key': 'k-1' });
    const b = await again.c.transactions.create(txBody('CARD'));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(again.ctx.resHeaders.get('idempotent-replayed')).toBe('true');
    expect((await counts()).transactions).toBe(1);
    expect(await balance(acc.account_id)).toEqual({ available: 2500, blocked: 0 });

    const other = await failure(as(acc.account_id, { 'idempotency-key': 'k-1' }).transactions.create(txBody('CARD', { installments: 2 })));
    expect(other.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await failure(as(acc.account_id, { 'idempotency-key': 'x'.repeat(256) }).transactions.create(txBody()))).code).toBe('VALIDATION');
    // keys are per account
    const acc2 = await makeAccount(s);
    expect((await as(acc2.account_id, { 'idempotency-key': 'k-1' }).transactions.create(txBody('CARD'))).id).not.toBe(a.id);
  });

  it('keeps externalRef unique per account (409), and a replay is not a conflict', async () => {
    const acc = await makeAccount(s);
    const acc2 = await makeAccount(s);
    await as(acc.account_id, { 'idempotency-key': 'r-1' }).transactions.create(txBody('PIX', { externalRef: 'order-9' }));
    expect((await as(acc.account_id, { 'idempotency-key': 'r-1' }).transactions.create(txBody('PIX', { externalRef: 'order-9' }))).external_ref).toBe('order-9');
    const dup = await failure(as(acc.account_id).transactions.create(txBody('INVOICE', { externalRef: 'order-9' })));
    expect(dup.code).toBe('DUPLICATE_EXTERNAL_REF');
    expect(dup.status).toBe(409);
    expect((await as(acc2.account_id).transactions.create(txBody('PIX', { externalRef: 'order-9' }))).external_ref).toBe('order-9');
  });
});

describe('GET /transaction (transactions.get)', () => {
  it('finds a transaction by each key, all given must agree; other accounts see 404', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('PIX', { externalRef: 'ref-7', postback: 'https://93.184.215.14/p' }));
    const paid = await c.sandbox.pay({ id: t.id });
    const view = await c.transactions.get({ id: t.id });
    expect(Object.keys(view)).toEqual(VIEW_KEYS);
    expect(view).toEqual(paid);
    expect(view).toMatchObject({
      id: t.id, status: 'APPROVED', total: 2500, method: 'PIX', currency: 'BRL', postback: 'https://93.184.215.14/p', external_ref: 'ref-7', metadata: null,
      items: [{ unitPrice: 1000, quantity: 2, title: 'Caneca', tangible: true }, { unitPrice: 500, quantity: 1, title: 'Frete', tangible: false }],
      customer: t.customer,
    });
    expect(Object.keys(view.items[0])).toEqual(['unitPrice', 'quantity', 'title', 'tangible']);
    expect(isValidEndToEndId(view.endtoend!)).toBe(true);
    for (const q of [{ identifier: t.identifier }, { external_ref: 'ref-7' }, { endtoend: view.endtoend! }, { id: t.id, external_ref: 'ref-7', identifier: t.identifier }]) {
      expect(await c.transactions.get(q)).toEqual(view);
      expect((await failure(as(other.account_id).transactions.get(q))).code).toBe('NOT_FOUND');
    }
    expect((await failure(c.transactions.get({ id: t.id, external_ref: 'ref-8' }))).code).toBe('NOT_FOUND');
    expect((await failure(c.transactions.get({ id: 'txn_nope' }))).code).toBe('NOT_FOUND');
    expect((await failure(c.transactions.get({}))).code).toBe('VALIDATION');
    expect((await failure(c.transactions.get({ ref: 'x' } as never))).code).toBe('VALIDATION');
  });
});

describe('transactions.list', () => {
  it('pages newest first on (created_at, id) with filters, in one query per page', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s);
    const c = as(acc.account_id);
    const made: { id: string; method: string; created_at: string }[] = [];
    for (let i = 0; i < 25; i++) {
      // every third pair share a timestamp, so the id breaks ties
      if (i % 3) clock.advance(1000);
      const method = (['PIX', 'CARD', 'INVOICE'] as const)[i % 3];
      made.push(await c.transactions.create(txBody(method)));
    }
    await as(other.account_id).transactions.create(txBody());
    const expected = [...made].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1)).map((t) => t.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof c.transactions.list>> = await c.transactions.list({ limit: 10, cursor });
      expect(page.items.length).toBeLessThanOrEqual(10);
      for (const item of page.items) expect(Object.keys(item)).toEqual(VIEW_KEYS);
      seen.push(...page.items.map((t) => t.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);

    const cards = await c.transactions.list({ method: 'CARD', limit: 100 });
    expect(cards.items.map((t) => t.id)).toEqual(expected.filter((id) => made.find((m) => m.id === id)!.method === 'CARD'));
    expect((await c.transactions.list({ status: 'APPROVED', limit: 100 })).items.length).toBe(cards.items.length);
    expect((await c.transactions.list({ status: 'PENDING', method: 'CARD' })).items).toEqual([]);
    const from = made[10].created_at;
    const to = made[20].created_at;
    const window = await c.transactions.list({ from, to: to.replace('Z', '+00:00'), limit: 100 });
    expect(window.items.every((t) => t.created_at >= from && t.created_at < to)).toBe(true);
    expect(window.items.length).toBe(made.filter((t) => t.created_at >= from && t.created_at < to).length);
    expect((await c.transactions.list({})).items.length).toBe(20);

    // no N+1: a page (and a GET) is one statement on the read connection, however many rows (counted
    // on better-sqlite3's prepare; the queries are the same drizzle code on PostgreSQL)
    if (!onPostgres) {
      const conn = (s.db.read.handle as unknown as { session: { client: { prepare: (q: string) => unknown } } }).session.client;
      const prepare = conn.prepare.bind(conn);
      const statements: string[] = [];
      conn.prepare = (q: string) => { statements.push(q); return prepare(q); };
      try {
        expect((await c.transactions.list({ limit: 25 })).items.length).toBe(25);
        await c.transactions.get({ id: made[0].id });
      } finally {
        conn.prepare = prepare;
      }
      // plus, for APPROVED rows, one query for the refunds of the whole page (or of the one transaction)
      const views = statements.filter((q) => !/from "refunds"/i.test(q));
      expect(views.length).toBe(2);
      expect(views[0]).toMatch(/inner join "customers"/i);
      expect(statements.length - views.length).toBeLessThanOrEqual(2);
    }

    expect((await failure(c.transactions.list({ cursor: 'garbage' }))).code).toBe('VALIDATION');
    expect((await failure(c.transactions.list({ limit: 101 }))).code).toBe('VALIDATION');
    expect((await failure(c.transactions.list({ limit: 0 }))).code).toBe('VALIDATION');
    expect((await failure(c.transactions.list({ limit: '10' as never }))).code).toBe('VALIDATION');
    expect((await failure(c.transactions.list({ from: 'yesterday' }))).code).toBe('VALIDATION');
    expect((await as(other.account_id).transactions.list({})).items.length).toBe(1);
  });
});

describe('sandbox payment', () => {
  it('approves a PIX once, with an end-to-end id, and answers a second pay unchanged', async () => {
    const acc = await makeAccount(s, { balance: 100 });
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('PIX'));
    clock.advance(60_000);
    const paid = await c.sandbox.pay({ id: t.id });
    expect(paid).toMatchObject({ id: t.id, status: 'APPROVED', updated_at: '2026-03-10T12:01:00.000Z' });
    expect(paid.endtoend).toMatch(/^E\d{8}202603101201[A-Za-z0-9]{11}$/);
    expect(await balance(acc.account_id)).toEqual({ available: 2600, blocked: 0 });
    clock.advance(60_000);
    expect(await c.sandbox.pay({ id: t.id })).toEqual(paid);
    expect(await balance(acc.account_id)).toEqual({ available: 2600, blocked: 0 });
    const evs = await eventsOf(t.id);
    expect(evs.map((e) => e.type)).toEqual(['transaction.created', 'transaction.approved']);
    expect(evs[1].data).toEqual(paid);
  });

  it('credits once under 50 concurrent pays', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('PIX'));
    const answers = await Promise.all(Array.from({ length: 50 }, () => c.sandbox.pay({ id: t.id })));
    expect(new Set(answers.map((a) => a.endtoend)).size).toBe(1);
    expect(await balance(acc.account_id)).toEqual({ available: 2500, blocked: 0 });
    expect((await s.db.read.handle.select().from(ledgerEntries).where(eq(ledgerEntries.resourceId, t.id))).length).toBe(1);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('pays an INVOICE without an end-to-end id; refuses CARD, refused, unknown and foreign ones', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s);
    const c = as(acc.account_id);
    const inv = await c.transactions.create(txBody('INVOICE'));
    expect((await failure(as(other.account_id).sandbox.pay({ id: inv.id }))).code).toBe('NOT_FOUND');
    expect(await c.sandbox.pay({ id: inv.id })).toMatchObject({ status: 'APPROVED', endtoend: null });
    expect(await balance(acc.account_id)).toEqual({ available: 2500, blocked: 0 });
    const cardTx = await c.transactions.create(txBody('CARD'));
    expect((await failure(c.sandbox.pay({ id: cardTx.id }))).code).toBe('INVALID_STATE');
    expect((await failure(c.sandbox.pay({ id: 'txn_missing' }))).code).toBe('NOT_FOUND');
  });

  it('is 404 everywhere when the sandbox is off', async () => {
    const off = await makeTestServices({ config: { sandbox: false } });
    try {
      const acc = await makeAccount(off);
      const c = factory(createContextInner({ services: off, auth: { kind: 'bearer', accountId: acc.account_id } }));
      const t = await c.transactions.create(txBody('PIX'));
      for (const p of [c.sandbox.pay({ id: t.id }), c.sandbox.openDispute({ id: t.id }), c.sandbox.resolveDispute({ id: 'dsp_x', outcome: 'won' })]) {
        expect((await failure(p)).code).toBe('NOT_FOUND');
      }
    } finally {
      await off.cleanup();
    }
  });
});

describe('disputes', () => {
  it('hold the amount, then release it when won', async () => {
    const acc = await makeAccount(s, { balance: 1000 });
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    expect(await balance(acc.account_id)).toEqual({ available: 3500, blocked: 0 });
    clock.advance(1000);
    const d = await c.sandbox.openDispute({ id: t.id });
    expect(d).toEqual({ id: expect.stringMatching(/^dsp_/), transaction_id: t.id, status: 'OPEN', amount: 2500, created_at: '2026-03-10T12:00:01.000Z', updated_at: '2026-03-10T12:00:01.000Z' });
    expect(await balance(acc.account_id)).toEqual({ available: 1000, blocked: 2500 });
    expect(await c.transactions.disputes({ transactionId: t.id })).toEqual([d]);
    expect((await failure(c.sandbox.openDispute({ id: t.id }))).code).toBe('CONFLICT');

    clock.advance(1000);
    const won = await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' });
    expect(won).toMatchObject({ id: d.id, status: 'WON', updated_at: '2026-03-10T12:00:02.000Z' });
    expect(await balance(acc.account_id)).toEqual({ available: 3500, blocked: 0 });
    expect(await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' })).toEqual(won);
    expect((await failure(c.sandbox.resolveDispute({ id: d.id, outcome: 'lost' }))).code).toBe('INVALID_STATE');
    expect(await balance(acc.account_id)).toEqual({ available: 3500, blocked: 0 });
    expect((await eventsOf(d.id)).map((e) => [e.type, e.category, e.data.status])).toEqual([['dispute.opened', 'dispute', 'OPEN'], ['dispute.won', 'dispute', 'WON']]);
    // the transaction itself keeps the spec's shape and status
    expect((await c.transactions.get({ id: t.id })).status).toBe('APPROVED');
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('keep the amount when lost (charged back)', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const t = await c.transactions.create(txBody('CARD'));
    const d = await c.sandbox.openDispute({ id: t.id });
    const lost = await c.sandbox.resolveDispute({ id: d.id, outcome: 'lost' });
    expect(lost.status).toBe('LOST');
    expect(await balance(acc.account_id)).toEqual({ available: 0, blocked: 0 });
    const chargebacks = await first(s.db.read.handle.select().from(ledgerBooks).where(eq(ledgerBooks.kind, 'chargebacks')));
    expect(chargebacks!.balance).toBe(2500);
    expect((await eventsOf(d.id)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.lost']);
    expect((await failure(c.sandbox.openDispute({ id: t.id }))).code).toBe('CONFLICT');
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('refuse what is not an approved card and other accounts, and open whatever the balance', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s);
    const c = as(acc.account_id);
    const pix = await c.transactions.create(txBody('PIX'));
    await c.sandbox.pay({ id: pix.id });
    expect((await failure(c.sandbox.openDispute({ id: pix.id }))).code).toBe('INVALID_STATE');
    const refused = await c.transactions.create(txBody('CARD', { card: card({ number: REFUSED_CARD }) }));
    expect((await failure(c.sandbox.openDispute({ id: refused.id }))).code).toBe('INVALID_STATE');
    const t = await c.transactions.create(txBody('CARD'));
    expect((await failure(as(other.account_id).sandbox.openDispute({ id: t.id }))).code).toBe('NOT_FOUND');

    // the money left (as a withdrawal would take it): 5000 in, 4000 out; the dispute of 2500 opens all the same
    await s.db.write((tx) => transfer(tx, { accountId: acc.account_id, kind: 'test_payout' as LedgerEntryKind, from: { account: acc.account_id, book: 'available' }, to: { system: 'pix_out' }, amount: 4000, at: clock.now() }));
    const d = await c.sandbox.openDispute({ id: t.id });
    expect(d).toMatchObject({ status: 'OPEN', amount: 2500 });
    expect((await c.transactions.disputes({ transactionId: t.id })).map((x) => x.id)).toEqual([d.id]);
    expect(await balance(acc.account_id)).toEqual({ available: -1500, blocked: 2500 });
    expect((await eventsOf(d.id)).map((e) => e.type)).toEqual(['dispute.opened']);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
    expect((await failure(as(other.account_id).transactions.disputes({ transactionId: t.id }))).code).toBe('NOT_FOUND');
    expect((await failure(as(other.account_id).sandbox.resolveDispute({ id: 'dsp_nope', outcome: 'lost' }))).code).toBe('NOT_FOUND');
  });
});

describe('Pix expiry', () => {
  it('moves a due PENDING PIX to REFUSED with transaction.expired, once, and only PIX', async () => {
    const acc = await makeAccount(s);
    const c = as(acc.account_id);
    const tick = expiryTick(s);
    const pix = await c.transactions.create(txBody('PIX'));
    const paidPix = await c.transactions.create(txBody('PIX'));
    const inv = await c.transactions.create(txBody('INVOICE'));
    await c.sandbox.pay({ id: paidPix.id });
    expect(await tick()).toBe(0);
    clock.advance(3600_000 - 1);
    expect(await tick()).toBe(0);
    clock.advance(1);
    // due but not yet swept: the payer is already refused
    expect((await failure(c.sandbox.pay({ id: pix.id }))).code).toBe('INVALID_STATE');
    expect(await tick()).toBe(1);
    expect(await tick()).toBe(0);
    const view = await c.transactions.get({ id: pix.id });
    expect(view).toMatchObject({ status: 'REFUSED', updated_at: '2026-03-10T13:00:00.000Z' });
    const evs = await eventsOf(pix.id);
    expect(evs.map((e) => e.type)).toEqual(['transaction.created', 'transaction.expired']);
    expect(evs[1].data).toEqual(view);
    expect((await c.transactions.paymentDetails({ transactionId: pix.id })).refused_reason).toBe('expired');
    expect((await failure(c.sandbox.pay({ id: pix.id }))).code).toBe('INVALID_STATE');
    expect((await c.transactions.get({ id: paidPix.id })).status).toBe('APPROVED');
    expect((await c.transactions.get({ id: inv.id })).status).toBe('PENDING');
    expect(await balance(acc.account_id)).toEqual({ available: 2500, blocked: 0 });
  });

  it('survives a restart: a new process finds the due rows', async () => {
    const acc = await makeAccount(s);
    const t = await as(acc.account_id).transactions.create(txBody('PIX'));
    await s.db.close();
    const later = new ManualClock(new Date('2026-03-10T14:00:00.000Z'));
    const again = serverServices(s.config.databasePath, { config: s.config, clock: later });
    try {
      expect(await expiryTick(again)()).toBe(1);
      const row = await first(again.db.read.handle.select().from(transactions).where(eq(transactions.id, t.id)));
      expect(row).toMatchObject({ status: 'REFUSED', refusedReason: 'expired' });
    } finally {
      await again.db.close();
    }
  });
});

describe('each state change and its event are one job', () => {
  /** Makes every insert of an event of `type` fail (the code under test is untouched). Returns the undo. */
  const failEventWrites = (type: string) => refuseEvents(s.db, [type], 'event write refused by the test');

  it('an event that cannot be written undoes the change it reports: no status, ledger, dispute or idempotency row is left', async () => {
    const acc = await makeAccount(s, { balance: 1000 });
    const c = as(acc.account_id);
    const snapshot = async () => ({
      counts: await counts(),
      balance: await balance(acc.account_id),
      transactions: await s.db.read.handle.select().from(transactions).orderBy(transactions.id),
      disputes: await s.db.read.handle.select().from(disputes).orderBy(disputes.id),
    });
    const refusedEvent = async (type: string, action: () => Promise<unknown>) => {
      const before = await snapshot();
      const undo = await failEventWrites(type);
      try {
        const err = await action().then(() => null, (e: unknown) => e);
        // the trigger refused it (not some other failure): its message is the error or one of its causes
        const chain: string[] = [];
        for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 6; e = e.cause as typeof e, i++) chain.push(String(e.message ?? e));
        expect(chain.join(' / ')).toContain('event write refused by the test');
      } finally {
        await undo();
      }
      expect(await snapshot(), type).toEqual(before);
    };

    // creation: the created event, and for a card the approval (with its credit) or the refusal
    await refusedEvent('transaction.created', () => c.transactions.create(txBody('PIX', { externalRef: 'atomic-1' })));
    await refusedEvent('transaction.approved', () => as(acc.account_id, { 'idempotency-key': 'atomic-k' }).transactions.create(txBody('CARD')));
    await refusedEvent('transaction.refused', () => c.transactions.create(txBody('CARD', { card: card({ number: REFUSED_CARD }) })));
    // nothing of the failed attempts remains: the key and the externalRef are still free
    const cardTx = await as(acc.account_id, { 'idempotency-key': 'atomic-k' }).transactions.create(txBody('CARD'));
    expect(cardTx.status).toBe('APPROVED');
    expect((await c.transactions.create(txBody('PIX', { externalRef: 'atomic-1' }))).external_ref).toBe('atomic-1');

    // sandbox payment: no APPROVED without transaction.approved, and no credit
    const pix = await c.transactions.create(txBody('PIX'));
    await refusedEvent('transaction.approved', () => c.sandbox.pay({ id: pix.id }));
    expect((await c.sandbox.pay({ id: pix.id })).status).toBe('APPROVED');

    // expiry: the job's pass fails whole and the charge stays PENDING until a pass succeeds
    clock.advance(3600_000);
    const tick = expiryTick(s);
    await refusedEvent('transaction.expired', () => tick());
    expect(await tick()).toBe(1);

    // disputes: no hold without dispute.opened, no release or chargeback without dispute.won|lost
    await refusedEvent('dispute.opened', () => c.sandbox.openDispute({ id: cardTx.id }));
    const d = await c.sandbox.openDispute({ id: cardTx.id });
    await refusedEvent('dispute.lost', () => c.sandbox.resolveDispute({ id: d.id, outcome: 'lost' }));
    await refusedEvent('dispute.won', () => c.sandbox.resolveDispute({ id: d.id, outcome: 'won' }));
    expect(await balance(acc.account_id)).toEqual({ available: 1000 + 2500, blocked: 2500 });
    expect((await c.sandbox.resolveDispute({ id: d.id, outcome: 'won' })).status).toBe('WON');
    expect(await balance(acc.account_id)).toEqual({ available: 1000 + 2500 + 2500, blocked: 0 });

    // every change that did happen has exactly its events
    const types = (await s.db.read.handle.select({ type: events.type }).from(events).where(eq(events.accountId, acc.account_id)).orderBy(asc(events.seq))).map((e) => e.type);
    expect(types).toEqual([
      'transaction.created', 'transaction.approved', // cardTx
      'transaction.created', // atomic-1
      'transaction.created', 'transaction.approved', // pix
      'transaction.expired', // atomic-1, due an hour later
      'dispute.opened', 'dispute.won',
    ]);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
  });
});
