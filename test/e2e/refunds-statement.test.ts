import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../server/domain/accounts';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { createPaymentsClient } from '../../server/client';
import { peek } from '../support/peek';
import { serverServices, waitFor } from '../support/services';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { systemClock } from '../../server/clock';

let srv: RunningServer;
let token: string;
let otherToken: string;

beforeAll(async () => {
  srv = await startServer();
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  // a second account beside the running server, on the same database
  const side = serverServices(srv.databasePath);
  const other = await createAccount({ db: side.db, masterKey: side.masterKey, clock: systemClock }, { name: 'Other Merchant', balance: 100_000 });
  await side.db.close();
  otherToken = await accessToken(srv.url, other.code, other.token);
});
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

/** What a refused refund must not have changed. */
const books = () => peek(srv.databasePath, async (db) => ({
  refunds: await db.count('refunds'),
  entries: await db.count('ledger_entries'),
  events: await db.count('events'),
  refunded: await db.all('SELECT id, refunded_amount FROM transactions ORDER BY id'),
}));
/** Refunds settle in the background; a snapshot taken while one is PENDING would move under the test. */
const settled = () => waitFor(() => peek(srv.databasePath, async (db) => (await db.get<{ n: number }>("SELECT count(*) AS n FROM refunds WHERE status = 'PENDING'"))!.n === 0), { what: 'refunds to settle' });
const audit = () => peek(srv.databasePath, async (db) => ({
  total: (await db.get<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM ledger_lines'))!.s,
  mismatched: (await db.get<{ n: number }>('SELECT count(*) AS n FROM ledger_books b WHERE b.balance <> coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0)'))!.n,
}));

const card = (amount = 2_500) => api(srv.url, '/transaction', { token, body: txBody('CARD', { amount, items: [{ title: 'x', unitPrice: amount, quantity: 1 }] }) }).then((r) => r.json);
const refund = (id: string, body: unknown, o: { key?: string; t?: string } = {}) =>
  api(srv.url, `/transaction/${id}/refund`, { token: o.t ?? token, method: 'POST', body, headers: o.key ? { 'idempotency-key': o.key } : {} });

describe('POST /transaction/{id}/refund over HTTP', () => {
  it('answers 201 with the transaction in its query shape; the rail pays it (PIX: a D… end-to-end id)', async () => {
    const t = (await api(srv.url, '/transaction', { token, body: txBody('PIX') })).json;
    await api(srv.url, `/sandbox/transactions/${t.id}/pay`, { token, method: 'POST' });
    const res = await refund(t.id, { amount: 1_000, reason: 'cliente desistiu' });
    expect(res.status).toBe(201);
    const query = (await api(srv.url, `/transaction?id=${t.id}`, { token })).json;
    expect(res.json).toMatchObject({ id: t.id, status: 'APPROVED', refunded_amount: 1_000, refunds: [{ amount: 1_000, status: 'PENDING', endtoend: null }] });
    expect(Object.keys(res.json)).toEqual(Object.keys(query));
    const paid = await waitFor(async () => {
      const v = (await api(srv.url, `/transaction?id=${t.id}`, { token })).json;
      return v.refunds[0].status === 'PAID' ? v : null;
    }, { what: 'the refund to be paid' });
    expect(paid.status).toBe('APPROVED');
    expect(isValidEndToEndId(paid.refunds[0].endtoend, 'D')).toBe(true);
    expect(paid.refunds[0].endtoend).toHaveLength(32);
    // an empty body refunds the rest
    const rest = await api(srv.url, `/transaction/${t.id}/refund`, { token, method: 'POST' });
    expect([rest.status, rest.json.refunded_amount]).toEqual([201, 2_500]);
  });

  it('idempotency-key: replays the stored answer byte for byte; another body is a 422', async () => {
    const t = await card();
    const first = await refund(t.id, { amount: 300 }, { key: `rf-${t.id}` });
    const again = await refund(t.id, { amount: 300 }, { key: `rf-${t.id}` });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.text).toBe(first.text);
    await settled();
    const before = await books();
    const other = await refund(t.id, { amount: 301 }, { key: `rf-${t.id}` });
    expect([other.status, other.json.statusCode]).toEqual([422, 422]);
    expect(await books()).toEqual(before);
  });

  it('bad input answers the documented 4xx and changes nothing', async () => {
    const t = await card();
    const pending = (await api(srv.url, '/transaction', { token, body: txBody('PIX') })).json;
    await settled();
    const before = await books();
    for (const amount of [0, -5, 12.5, '250', true, 1e20]) {
      const r = await refund(t.id, { amount });
      expect([r.status, r.json.statusCode, r.json.issues?.[0]?.path], String(amount)).toEqual([400, 400, 'amount']);
      expect(Array.isArray(r.json.message)).toBe(true);
    }
    expect((await refund(t.id, { reason: 'x'.repeat(141) })).status).toBe(400);
    expect((await refund(t.id, { foo: 1 })).status).toBe(400);
    expect((await api(srv.url, `/transaction/${t.id}/refund`, { token, method: 'POST', raw: '{"amount":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    const more = await refund(t.id, { amount: 2_501 });
    expect([more.status, more.json.error]).toEqual([422, 'Unprocessable Entity']);
    expect((await refund(pending.id, {})).status).toBe(422);
    expect((await refund(t.id, { amount: 1 }, { t: otherToken })).status).toBe(404);
    expect((await refund('txn_unknown', { amount: 1 })).status).toBe(404);
    expect((await api(srv.url, `/transaction/${t.id}/refund`, { method: 'POST', body: {} })).status).toBe(401);
    expect(await books()).toEqual(before);
  });

  it('20 parallel refunds of 10 % each plus a parallel dispute: refunds + hold = total, nothing beyond, books balance', async () => {
    const t = await card(100_000);
    const before = (await api(srv.url, '/balance', { token })).json;
    const calls = Array.from({ length: 20 }, () => refund(t.id, { amount: 10_000 }));
    calls.splice(10, 0, api(srv.url, `/sandbox/transactions/${t.id}/dispute`, { token, method: 'POST' }));
    const answers = await Promise.all(calls);
    const dispute = answers.splice(10, 1)[0];
    // on PostgreSQL the requests really run at once: the dispute may come after the refunds took
    // everything, and is then refused (422, nothing left to dispute) with no hold; refunds + hold = total either way
    expect([201, 422], dispute.text).toContain(dispute.status);
    const hold = dispute.status === 201 ? dispute.json.amount as number : 0;
    if (dispute.status === 422) expect(dispute.text).toMatch(/fully refunded/);
    const ok = answers.filter((a) => a.status === 201).length;
    expect(answers.every((a) => a.status === 201 || a.status === 422)).toBe(true);
    const view = (await api(srv.url, `/transaction?id=${t.id}`, { token })).json;
    expect(view.refunded_amount).toBe(ok * 10_000);
    expect(view.refunded_amount + hold).toBe(100_000);
    const after = (await api(srv.url, '/balance', { token })).json;
    expect(after.blocked - before.blocked).toBe(hold);
    expect(before.available - after.available).toBe(100_000);
    expect(await audit()).toEqual({ total: 0, mismatched: 0 });
  });
});

describe('GET /balance/statement over HTTP', () => {
  it('lists movements newest first with a running balance, pages with next_cursor, takes limit as a query string', async () => {
    const first = await api(srv.url, '/balance/statement?limit=5', { token });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json)).toEqual(['data', 'next_cursor', 'timestamp']);
    expect(first.json.data).toHaveLength(5);
    const all = [...first.json.data];
    let cursor = first.json.next_cursor;
    while (cursor) {
      const page = await api(srv.url, `/balance/statement?limit=200&cursor=${encodeURIComponent(cursor)}`, { token });
      all.push(...page.json.data);
      cursor = page.json.next_cursor;
    }
    let running = 0;
    for (const m of [...all].reverse()) {
      running += m.amount;
      expect(m.balance_after).toBe(running);
    }
    expect(running).toBe((await api(srv.url, '/balance', { token })).json.available);
    const types = new Set(all.map((m: { type: string }) => m.type));
    for (const t of ['topup', 'charge_approved', 'refund_requested', 'dispute_hold']) expect(types).toContain(t);
    expect((await api(srv.url, '/balance/statement', { token })).json.data).toHaveLength(Math.min(50, all.length));
    // the widest dates accepted (the day after 9999-12-31 is `+010000-01-01` in ISO form)
    const widest = await api(srv.url, '/balance/statement?from=0001-01-01&to=9999-12-31&limit=200', { token });
    expect(widest.status).toBe(200);
    expect(widest.json.data).toEqual(all.slice(0, 200));
  });

  it('answers 400 for from after to, unparseable dates, bad limits and foreign cursors; 401 without a token', async () => {
    const txCursor = Buffer.from('2026-01-01T00:00:00.000Z|txn_abc').toString('base64url');
    for (const q of ['from=2026-02-01&to=2026-01-01', 'from=not-a-date', 'to=2026-02-30T25:00:00Z', 'limit=0', 'limit=201', 'limit=abc', 'limit=2.5', `cursor=${txCursor}`, 'cursor=%%%', 'x=1']) {
      const r = await api(srv.url, `/balance/statement?${q}`, { token });
      expect([r.status, r.json?.statusCode], q).toEqual([400, 400]);
    }
    expect((await api(srv.url, '/balance/statement')).status).toBe(401);
  });

  it('streams the filtered range as CSV', async () => {
    const now = new Date();
    const from = new Date(now.getTime() - 3_600_000).toISOString();
    const res = await fetch(`${srv.url}/api/statement.csv?from=${encodeURIComponent(from)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="statement-from-/);
    const lines = (await res.text()).replace(/^\ufeff/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,created_at,type,amount_cents,balance_after_cents,resource_type,resource_id,description');
    const json = [];
    let cursor: string | null = null;
    do {
      const page: any = (await api(srv.url, `/balance/statement?limit=200&from=${encodeURIComponent(from)}${cursor ? `&cursor=${cursor}` : ''}`, { token })).json;
      json.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(lines.length - 1).toBe(json.length);
    expect(lines[1].split(',').slice(0, 5)).toEqual([json[0].id, json[0].created_at, json[0].type, String(json[0].amount), String(json[0].balance_after)]);
    expect((await fetch(`${srv.url}/api/statement.csv?from=nope`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(400);
    expect((await fetch(`${srv.url}/api/statement.csv`)).status).toBe(401);
  });

  it('the typed client reaches both through the AppRouter types (@trpc/client over /api/trpc)', async () => {
    const client = createPaymentsClient({ url: srv.url, accessToken: token });
    const t = await card(1_000);
    const view = await client.transactions.refund.mutate({ id: t.id, amount: 400, reason: 'via client' });
    expect([view.refunded_amount, view.refunds[0].amount, view.status]).toEqual([400, 400, 'APPROVED']);
    const page = await client.account.statement.query({ limit: 1 });
    expect(page.data[0]).toMatchObject({ type: 'refund_requested', amount: -400, resource: { type: 'refund', id: view.refunds[0].id } });
    // @ts-expect-error amount is integer cents, never a string; the server refuses it too
    await expect(client.transactions.refund.mutate({ id: t.id, amount: '250' })).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });

  it('is in the OpenAPI document, with the refund path answering 201', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    const refundOp = doc.paths['/transaction/{id}/refund'].post;
    expect(Object.keys(refundOp.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '404', '409', '422']));
    expect(refundOp.responses['200']).toBeUndefined();
    expect(refundOp.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['id', 'idempotency-key']));
    expect(refundOp.security).toEqual([{ bearer: [] }]);
    const statementOp = doc.paths['/balance/statement'].get;
    expect(statementOp.parameters.map((p: { name: string }) => p.name)).toEqual(['from', 'to', 'cursor', 'limit']);
    expect(statementOp.responses['200'].content['application/json'].schema).toBeTruthy();
  });
});
