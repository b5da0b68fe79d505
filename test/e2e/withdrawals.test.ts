import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, idempotencyKeys, ledgerBooks, ledgerEntries, ledgerLines, withdrawalBatches, withdrawals } from '../../db/schema';
import { first } from '../../db/query';
import { auditLedger } from '../../server/domain/ledger';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { participantByIspb } from '../../server/domain/pix/participants';
import { api, removeDir, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';
import { accountInServer, readServerDb } from '../support/withdrawals';

/** POST /withdraw/pix and GET /withdraw over HTTP against the real server process. */
let srv: RunningServer;
let dbView: ReturnType<typeof readServerDb>;

beforeAll(async () => {
  srv = await startServer({ env: { PIX_MAX_BATCH_CENTS: '100000', SANDBOX_SETTLEMENT_DELAY_MS: '50' } });
  dbView = readServerDb(srv.databasePath);
});
afterAll(async () => {
  dbView?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

const body = (o: Record<string, unknown> = {}) => ({
  amount: 250_000,
  key: 'fulano@example.com',
  key_type: 'EMAIL',
  description: 'Saque',
  details: { name: 'Fulano de Tal', document: '529.982.247-25' },
  ...o,
});

const withdraw = (token: string, b: unknown, headers: Record<string, string> = {}) => api(srv.url, '/withdraw/pix', { token, body: b, headers });
const balance = async (token: string) => (await api(srv.url, '/balance', { token })).json.available as number;
const settled = (token: string, identifier: string) => waitFor(async () => {
  const r = await api(srv.url, `/withdraw?identifier=${identifier}`, { token });
  return r.json.receipt.every((x: { status: string }) => x.status !== 'PENDING') && r.json.status !== 'REQUESTED' ? r.json : null;
}, { what: `withdrawal of ${identifier} to settle` });
const countRows = async (accountId: string) => ({
  withdrawals: (await first(dbView.db.handle.select({ n: sql<number>`count(*)` }).from(withdrawals).where(eq(withdrawals.accountId, accountId))))!.n,
  events: (await first(dbView.db.handle.select({ n: sql<number>`count(*)` }).from(events).where(eq(events.accountId, accountId))))!.n,
});

const eventsOf = (resourceId: string) => dbView.db.handle.select().from(events).where(eq(events.resourceId, resourceId)).orderBy(asc(events.seq));
/** yyyyMMddHHmm in UTC, as end-to-end ids carry it. */
const utcMinute = (iso: string) => iso.slice(0, 16).replace(/[-T:]/g, '');

/** What the account's available book lost to withdrawal requests. */
const debitedAtRequest = async (accountId: string) => -(await first(dbView.db.handle.select({ s: sql<number>`coalesce(sum(${ledgerLines.amount}), 0)` })
  .from(ledgerLines).innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId)).innerJoin(ledgerBooks, eq(ledgerBooks.id, ledgerLines.bookId))
  .where(and(eq(ledgerEntries.kind, 'withdrawal_requested'), eq(ledgerBooks.accountId, accountId), eq(ledgerBooks.kind, 'available')))))!.s;

/** Everything a request of this account could have left behind. */
const storedFor = async (accountId: string) => {
  const n = async (table: typeof withdrawalBatches | typeof idempotencyKeys) =>
    (await first(dbView.db.handle.select({ n: sql<number>`count(*)` }).from(table).where(eq(table.accountId, accountId))))!.n;
  return {
    ...(await countRows(accountId)),
    batches: await n(withdrawalBatches),
    idempotency: await n(idempotencyKeys),
    ledger: (await dbView.db.handle.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId))).map((e) => e.kind),
  };
};

describe('POST /withdraw/pix → settlement → GET /withdraw', () => {
  it('answers 201 with exactly the creation envelope, debits at once and settles to PAID', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1_000_000 });
    const res = await withdraw(acc.accessToken, body({ external_ref: 'order-1' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(Object.keys(res.json)).toEqual(['statusCode', 'message', 'data', 'timestamp']);
    const ts = res.json.timestamp;
    expect(new Date(ts).toISOString()).toBe(ts);
    expect(res.json).toEqual({
      statusCode: 201, message: 'WITHDRAW_REQUEST', timestamp: ts,
      data: [100_000, 100_000, 50_000].map((amount) => ({ amount, event: 'WITHDRAWAL', identifier: expect.stringMatching(/^wdb_/), status: 'PENDING', timestamp: ts })),
    });
    for (const d of res.json.data) expect(Object.keys(d)).toEqual(['amount', 'event', 'identifier', 'status', 'timestamp']);
    expect(await balance(acc.accessToken)).toBe(750_000);

    const done = await settled(acc.accessToken, res.json.data[0].identifier);
    const holder = (await api(srv.url, '/pix/keys?key=fulano%40example.com&key_type=EMAIL', { token: acc.accessToken })).json;
    expect(Object.keys(done)).toEqual(['id', 'status', 'amount', 'operation', 'receipt', 'created_at', 'updated_at']);
    expect(done).toMatchObject({
      status: 'PAID', amount: 250_000,
      operation: { amount: 250_000, key: 'fulano@example.com', key_type: 'EMAIL', description: 'Saque', details: { name: 'Fulano de Tal', document: '52998224725' }, postback: null, external_ref: 'order-1' },
    });
    expect(done.receipt.map((r: { identifier: string }) => r.identifier)).toEqual(res.json.data.map((d: { identifier: string }) => d.identifier));
    for (const r of done.receipt) {
      expect(Object.keys(r)).toEqual(['status', 'endtoend', 'identifier', 'amount', 'receiver_name', 'receiver_bank', 'receiver_bank_ispb', 'failure_code', 'failure_reason']);
      expect(r.status).toBe('PAID');
      expect(r.endtoend).toHaveLength(32);
      expect(isValidEndToEndId(r.endtoend)).toBe(true);
      // E + a directory ISPB + the UTC minute of the payment (between the request and the last update)
      expect(participantByIspb(r.endtoend.slice(1, 9))).toBeDefined();
      expect(r.endtoend.slice(9, 21) >= utcMinute(ts) && r.endtoend.slice(9, 21) <= utcMinute(done.updated_at)).toBe(true);
      expect(participantByIspb(r.receiver_bank_ispb)?.shortName).toBe(r.receiver_bank);
      // the holder the rail's directory reports, not the typed details.name
      expect([r.receiver_name, r.receiver_bank, r.receiver_bank_ispb]).toEqual([holder.holder.name, holder.bank.name, holder.bank.ispb]);
      expect([r.failure_code, r.failure_reason]).toEqual([null, null]);
    }
    expect(done.receipt.map((r: { amount: number }) => r.amount)).toEqual([100_000, 100_000, 50_000]);
    expect(await balance(acc.accessToken)).toBe(750_000);

    // the same withdrawal by its id, any batch identifier, its external_ref, or id + external_ref
    for (const q of [`identifier=${done.id}`, `identifier=${res.json.data[2].identifier}`, 'external_ref=order-1', `identifier=${done.id}&external_ref=order-1`]) {
      const r = await api(srv.url, `/withdraw?${q}`, { token: acc.accessToken });
      expect(r.status, q).toBe(200);
      expect(r.json).toEqual(done);
    }
    const evs = await eventsOf(done.id);
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
    // each event's data is the withdrawal as GET showed it at that moment: REQUESTED with every batch
    // pending at creation, and the very bytes of GET once paid
    expect(JSON.parse(evs[0].payload)).toEqual({
      ...done, status: 'REQUESTED', updated_at: ts,
      receipt: done.receipt.map((r: { identifier: string; amount: number }) => ({ status: 'PENDING', endtoend: null, identifier: r.identifier, amount: r.amount, receiver_name: null, receiver_bank: null, receiver_bank_ispb: null, failure_code: null, failure_reason: null })),
    });
    expect(JSON.parse(evs[1].payload)).toMatchObject({ status: 'PARTIALLY_PAID', receipt: expect.arrayContaining([expect.objectContaining({ status: 'PENDING' })]) });
    expect(evs[2].payload).toBe((await api(srv.url, `/withdraw?identifier=${done.id}`, { token: acc.accessToken })).text);
    expect(evs.map((e) => e.createdAt)).toEqual([ts, JSON.parse(evs[1].payload).updated_at, done.updated_at]);
  });

  it('fails every batch of fail@sandbox.test: ERROR, and the money is back on the balance', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 300_000 });
    const res = await withdraw(acc.accessToken, body({ key: 'fail@sandbox.test' }));
    expect(res.status).toBe(201);
    // debited when accepted (read from the ledger: the 50 ms settlement may already have refunded it)
    expect(await debitedAtRequest(acc.account_id)).toBe(250_000);
    const done = await settled(acc.accessToken, res.json.data[0].identifier);
    expect(done.status).toBe('ERROR');
    expect(done.receipt).toEqual(res.json.data.map((d: { identifier: string; amount: number }) => ({
      status: 'ERROR', endtoend: null, identifier: d.identifier, amount: d.amount, receiver_name: null, receiver_bank: null, receiver_bank_ispb: null,
      failure_code: 'REJECTED', failure_reason: 'The receiving institution refused the payment (sandbox key fail@sandbox.test).',
    })));
    expect(await balance(acc.accessToken)).toBe(300_000);
    const evs = await eventsOf(done.id);
    expect(evs.map((e) => e.type)).toEqual(['withdraw.requested', 'withdraw.error']);
    expect(evs[1].payload).toBe((await api(srv.url, `/withdraw?identifier=${done.id}`, { token: acc.accessToken })).text);
  });

  it('pays only the first batch of partial@sandbox.test: PARTIALLY_PAID, the rest back on the balance', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 300_000 });
    const res = await withdraw(acc.accessToken, body({ key: 'partial@sandbox.test' }));
    expect(res.status).toBe(201);
    const done = await settled(acc.accessToken, res.json.data[1].identifier);
    expect(done.status).toBe('PARTIALLY_PAID');
    expect(done.receipt.map((r: { status: string }) => r.status)).toEqual(['PAID', 'ERROR', 'ERROR']);
    expect(done.receipt[0].endtoend).toHaveLength(32);
    expect(await balance(acc.accessToken)).toBe(300_000 - 100_000);
    // partially_paid when the first batch is paid, and again when the last one settles
    const evs = await eventsOf(done.id);
    // (on PostgreSQL the batches' outcomes may apply in any order: when the failures come first, the
    // paid batch settles the withdrawal at once and there is one partially_paid)
    expect(evs.map((e) => e.type)).toEqual(evs.length === 3
      ? ['withdraw.requested', 'withdraw.partially_paid', 'withdraw.partially_paid']
      : ['withdraw.requested', 'withdraw.partially_paid']);
    expect(evs[evs.length - 1].payload).toBe((await api(srv.url, `/withdraw?identifier=${done.id}`, { token: acc.accessToken })).text);
  });

  it('answers WITHDRAW_FAIL (422) when the balance does not cover it, storing nothing', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1000 });
    const res = await withdraw(acc.accessToken, body({ amount: 1001 }), { 'idempotency-key': 'fail-1' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json)).toEqual(['statusCode', 'message', 'data', 'error', 'timestamp']);
    expect(res.json).toEqual({ statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS', detail: expect.any(String) }, timestamp: expect.any(String) });
    expect(await balance(acc.accessToken)).toBe(1000);
    expect(await storedFor(acc.account_id)).toEqual({ withdrawals: 0, batches: 0, events: 0, idempotency: 0, ledger: ['sandbox_topup'] });
    // exactly the balance is fine
    expect((await withdraw(acc.accessToken, body({ amount: 1000 }))).status).toBe(201);
  });
});

describe('GET /withdraw errors', () => {
  it('400 without identifier or external_ref, 404 when unknown, disagreeing, or another account\'s', async () => {
    const a = await accountInServer(srv.url, srv.databasePath, { balance: 10_000 });
    const b = await accountInServer(srv.url, srv.databasePath, { balance: 10_000 });
    const created = await withdraw(a.accessToken, body({ amount: 500, external_ref: 'shared-ref' }));
    const other = await withdraw(a.accessToken, body({ amount: 600, external_ref: 'other-ref' }));
    const view = (await api(srv.url, '/withdraw?external_ref=shared-ref', { token: a.accessToken })).json;

    const none = await api(srv.url, '/withdraw', { token: a.accessToken });
    expect(none.status).toBe(400);
    expect(Object.keys(none.json).sort()).toEqual(['error', 'issues', 'message', 'statusCode', 'timestamp']);
    expect(none.json.message[0]).toMatch(/^identifier: /);

    for (const q of ['identifier=wd_unknown', 'identifier=wdb_unknown', 'external_ref=nope', `identifier=${other.json.data[0].identifier}&external_ref=shared-ref`]) {
      const r = await api(srv.url, `/withdraw?${q}`, { token: a.accessToken });
      expect(r.status, q).toBe(404);
      expect(r.json).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'withdrawal not found' });
    }
    // b uses the same external_ref for its own withdrawal: each account sees only its own
    await withdraw(b.accessToken, body({ amount: 700, external_ref: 'shared-ref' }));
    expect((await api(srv.url, '/withdraw?external_ref=shared-ref', { token: b.accessToken })).json.amount).toBe(700);
    for (const q of [`identifier=${view.id}`, `identifier=${created.json.data[0].identifier}`, 'external_ref=other-ref']) {
      const r = await api(srv.url, `/withdraw?${q}`, { token: b.accessToken });
      expect(r.status, q).toBe(404);
      expect(r.json.message).toBe('withdrawal not found');
    }
    expect((await api(srv.url, `/withdraw?identifier=${view.id}`)).status).toBe(401);
    expect((await api(srv.url, `/withdraw?identifier=${view.id}&extra=1`, { token: a.accessToken })).status).toBe(400);
  });
});

describe('idempotency-key and external_ref over HTTP', () => {
  it('replays the same bytes with idempotent-replayed, 422 for another body, 409 for a reused external_ref', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1_000_000 });
    const first = await withdraw(acc.accessToken, body({ external_ref: 'ext-1' }), { 'idempotency-key': 'idem-1' });
    expect(first.status).toBe(201);
    const again = await withdraw(acc.accessToken, body({ external_ref: 'ext-1' }), { 'idempotency-key': 'idem-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    // REST and tRPC share the key space: the same key over tRPC replays the answer REST stored
    const viaTrpc = await api(srv.url, '/api/trpc/withdrawals.create', { token: acc.accessToken, body: body({ external_ref: 'ext-1' }), headers: { 'idempotency-key': 'idem-1' } });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(viaTrpc.json.result.data)).toBe(first.text);

    const changed = await withdraw(acc.accessToken, body({ external_ref: 'ext-1', amount: 1 }), { 'idempotency-key': 'idem-1' });
    expect(changed.status).toBe(422);
    expect(changed.json).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity' });

    const dup = await withdraw(acc.accessToken, body({ external_ref: 'ext-1' }));
    expect(dup.status).toBe(409);
    expect(Object.keys(dup.json).sort()).toEqual(['error', 'message', 'statusCode', 'timestamp']);
    expect(dup.json.message).toMatch(/^external_ref: /);

    const longKey = await withdraw(acc.accessToken, body(), { 'idempotency-key': 'x'.repeat(256) });
    expect(longKey.status).toBe(400);
    expect(await balance(acc.accessToken)).toBe(750_000);
    expect((await countRows(acc.account_id)).withdrawals).toBe(1);
  });
});

describe('bad input: the documented 4xx envelope, nothing stored, balance untouched', () => {
  it('refuses each bad body', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1_000_000 });
    const t = acc.accessToken;
    // every case carries its own idempotency-key: a refused request must not leave an answer under it
    let n = 0;
    const key = () => ({ 'idempotency-key': `bad-${n++}` });
    const withdrawKeyed = (b: unknown) => withdraw(t, b, key());
    const json = { 'content-type': 'application/json' };
    const cases: [string, () => Promise<Awaited<ReturnType<typeof api>>>, number, string | null][] = [
      ['zero amount', () => withdrawKeyed(body({ amount: 0 })), 400, 'amount'],
      ['negative amount', () => withdrawKeyed(body({ amount: -100 })), 400, 'amount'],
      ['fractional amount', () => withdrawKeyed(body({ amount: 12.5 })), 400, 'amount'],
      ['string amount', () => withdrawKeyed(body({ amount: '250' })), 400, 'amount'],
      ['boolean amount', () => withdrawKeyed(body({ amount: true })), 400, 'amount'],
      ['null amount', () => withdrawKeyed(body({ amount: null })), 400, 'amount'],
      ['missing amount', () => withdrawKeyed({ ...body(), amount: undefined }), 400, 'amount'],
      ['1e20 amount', () => api(srv.url, '/withdraw/pix', { token: t, raw: JSON.stringify(body()).replace('250000', '1e20'), headers: { ...json, ...key() } }), 400, 'amount'],
      ['over-limit amount', () => withdrawKeyed(body({ amount: 100_000_000_001 })), 400, 'amount'],
      ['over the batch cap', () => withdrawKeyed(body({ amount: 100_000 * 1000 + 1 })), 400, 'amount'],
      ['unknown key_type', () => withdrawKeyed(body({ key_type: 'PIX' })), 400, 'key_type'],
      ['lower-case key_type', () => withdrawKeyed(body({ key_type: 'email' })), 400, 'key_type'],
      ['CPF key with bad check digits', () => withdrawKeyed(body({ key: '123.456.789-00', key_type: 'CPF' })), 400, 'key'],
      ['repeated-digit CPF key', () => withdrawKeyed(body({ key: '000.000.000-00', key_type: 'CPF' })), 400, 'key'],
      ['CNPJ key that is a CPF', () => withdrawKeyed(body({ key: '52998224725', key_type: 'CNPJ' })), 400, 'key'],
      ['EMAIL key that is not an address', () => withdrawKeyed(body({ key: 'fulano@', key_type: 'EMAIL' })), 400, 'key'],
      ['EMAIL key over 77 characters', () => withdrawKeyed(body({ key: `${'a'.repeat(71)}@ex.com` })), 400, 'key'],
      ['PHONE key without +55', () => withdrawKeyed(body({ key: '(11) 98765-4321', key_type: 'PHONE' })), 400, 'key'],
      ['EVP key that is not a UUID', () => withdrawKeyed(body({ key: '1234', key_type: 'EVP' })), 400, 'key'],
      ['empty key', () => withdrawKeyed(body({ key: '' })), 400, 'key'],
      ['missing details', () => withdrawKeyed({ ...body(), details: undefined }), 400, 'details'],
      ['details not an object', () => withdrawKeyed(body({ details: 'Fulano' })), 400, 'details'],
      ['details without name', () => withdrawKeyed(body({ details: { document: '52998224725' } })), 400, 'details.name'],
      ['invalid details.document', () => withdrawKeyed(body({ details: { name: 'F', document: '529.982.247-26' } })), 400, 'details.document'],
      ['unknown field in details', () => withdrawKeyed(body({ details: { name: 'F', document: '52998224725', bank: '001' } })), 400, 'details.bank'],
      ['description over 140', () => withdrawKeyed(body({ description: 'd'.repeat(141) })), 400, 'description'],
      ['name over 140', () => withdrawKeyed(body({ details: { name: 'n'.repeat(141), document: '52998224725' } })), 400, 'details.name'],
      ['external_ref over 255', () => withdrawKeyed(body({ external_ref: 'r'.repeat(256) })), 400, 'external_ref'],
      ['postback not http(s)', () => withdrawKeyed(body({ postback: 'javascript:alert(1)' })), 400, 'postback'],
      ['postback over 2048', () => withdrawKeyed(body({ postback: `https://example.com/${'p'.repeat(2040)}` })), 400, 'postback'],
      ['unknown field', () => withdrawKeyed(body({ callback: 'x' })), 400, 'callback'],
      ['missing key', () => withdrawKeyed({ ...body(), key: undefined }), 400, 'key'],
      ['missing key_type', () => withdrawKeyed({ ...body(), key_type: undefined }), 400, 'key_type'],
      ['key over 255', () => withdrawKeyed(body({ key: 'k'.repeat(256), key_type: 'EVP' })), 400, 'key'],
      ['key not a string', () => withdrawKeyed(body({ key: 52998224725, key_type: 'CPF' })), 400, 'key'],
      ['null details', () => withdrawKeyed(body({ details: null })), 400, 'details'],
      ['details without document', () => withdrawKeyed(body({ details: { name: 'F' } })), 400, 'details.document'],
      ['details.document over 32', () => withdrawKeyed(body({ details: { name: 'F', document: '5'.repeat(33) } })), 400, 'details.document'],
      ['description not a string', () => withdrawKeyed(body({ description: 5 })), 400, 'description'],
      ['empty external_ref', () => withdrawKeyed(body({ external_ref: '' })), 400, 'external_ref'],
      ['amount as an object', () => withdrawKeyed(body({ amount: { value: 250 } })), 400, 'amount'],
      ['JSON null', () => api(srv.url, '/withdraw/pix', { token: t, raw: 'null', headers: { ...json, ...key() } }), 400, null],
      ['empty body', () => api(srv.url, '/withdraw/pix', { token: t, method: 'POST', raw: '', headers: { ...json, ...key() } }), 400, 'amount'],
      ['malformed JSON', () => api(srv.url, '/withdraw/pix', { token: t, raw: '{"amount": 1,', headers: { ...json, ...key() } }), 400, null],
      ['JSON array', () => api(srv.url, '/withdraw/pix', { token: t, raw: '[1,2]', headers: { ...json, ...key() } }), 400, null],
      ['nested deeper than 32', () => withdrawKeyed(body({ description: JSON.parse('['.repeat(40) + ']'.repeat(40)) })), 400, null],
      ['body over 64 KiB', () => withdrawKeyed(body({ description: 'd'.repeat(70 * 1024) })), 413, null],
      ['not JSON', () => api(srv.url, '/withdraw/pix', { token: t, raw: 'amount=1', headers: { 'content-type': 'application/x-www-form-urlencoded', ...key() } }), 415, null],
      ['text/plain JSON', () => api(srv.url, '/withdraw/pix', { token: t, raw: JSON.stringify(body()), headers: { 'content-type': 'text/plain', ...key() } }), 415, null],
    ];
    for (const [what, send, status, field] of cases) {
      const res = await send();
      expect(res.status, what).toBe(status);
      expect(res.json, what).not.toBeNull();
      expect(res.json.statusCode, what).toBe(status);
      expect(typeof res.json.error, what).toBe('string');
      expect(new Date(res.json.timestamp).toISOString(), what).toBe(res.json.timestamp);
      if (status === 400) {
        expect(Array.isArray(res.json.message), what).toBe(true);
        expect(Object.keys(res.json).sort(), what).toEqual(['error', 'issues', 'message', 'statusCode', 'timestamp']);
        if (field) {
          expect(res.json.issues.map((i: { path: string }) => i.path), what).toContain(field);
          expect(res.json.message.some((m: string) => m.startsWith(`${field}: `)), what).toBe(true);
        }
      } else {
        expect(Object.keys(res.json).sort(), what).toEqual(['error', 'message', 'statusCode', 'timestamp']);
      }
    }
    expect(await balance(t)).toBe(1_000_000);
    expect(await storedFor(acc.account_id)).toEqual({ withdrawals: 0, batches: 0, events: 0, idempotency: 0, ledger: ['sandbox_topup'] });
    // and the keys are free: a valid body under one of them runs for real, not as a replay
    const ok = await withdraw(t, body(), { 'idempotency-key': 'bad-0' });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await balance(t)).toBe(750_000);
  });

  it('names the rule for a key that does not fit its type', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1000 });
    const res = await withdraw(acc.accessToken, body({ key: '111.111.111-11', key_type: 'CPF' }));
    expect(res.json.message).toEqual(['key: not a valid CPF (all digits are the same)']);
  });

  it('keeps "250" a 400 on tRPC over HTTP too, after REST has used the schema', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 1000 });
    expect((await withdraw(acc.accessToken, body({ amount: '250' }))).status).toBe(400);
    const res = await api(srv.url, '/api/trpc/withdrawals.create', { token: acc.accessToken, body: body({ amount: '250' }) });
    expect(res.status).toBe(400);
    expect(res.json.error.data.domainCode).toBe('VALIDATION');
    const ok = await api(srv.url, '/api/trpc/withdrawals.create', { token: acc.accessToken, body: body({ amount: 250 }) });
    expect(ok.status).toBe(200);
    expect(ok.json.result.data).toMatchObject({ statusCode: 201, message: 'WITHDRAW_REQUEST' });
    expect(await balance(acc.accessToken)).toBe(750);
  });
});

describe('the OpenAPI document', () => {
  it('documents POST /withdraw/pix as 201 with the idempotency-key header, and GET /withdraw', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    const post = doc.paths['/withdraw/pix'].post;
    expect(Object.keys(post.responses)).toContain('201');
    expect(Object.keys(post.responses)).not.toContain('200');
    expect(post.parameters.map((p: { name: string }) => p.name)).toContain('idempotency-key');
    expect(doc.paths['/withdraw'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['external_ref', 'identifier']);
  });

});

describe('the ledger', () => {
  it('is balanced after all of the above', async () => {
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });
});
