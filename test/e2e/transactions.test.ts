import { onPostgres } from '../../db/dialect';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../server/domain/accounts';
import { auditLedger } from '../../server/domain/ledger';
import { merchantPixKey } from '../../server/domain/transactions/pix-charge';
import { parseWithPixUtils, readBrCode } from '../support/brcode-reader';
import { peek } from '../support/peek';
import { serverServices, waitFor } from '../support/services';
import { readServerDb } from '../support/withdrawals';
import { accessToken, api, logsCaughtUp, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { card, txBody } from '../support/transactions';
import { systemClock } from '../../server/clock';

let srv: RunningServer;
let off: RunningServer;
let token: string;
let offToken: string;

beforeAll(async () => {
  [srv, off] = await Promise.all([
    startServer(),
    // sandbox off and one-second Pix charges: the expiry job over HTTP
    startServer({ env: { SANDBOX: 'false', PIX_EXPIRES_SECONDS: '1' } }),
  ]);
  [token, offToken] = await Promise.all([accessToken(srv.url, srv.demo.code, srv.demo.token), accessToken(off.url, off.demo.code, off.demo.token)]);
});
afterAll(async () => {
  await Promise.all([srv?.stop(), off?.stop()]);
  for (const s of [srv, off]) if (s) removeDir(s.dir);
});

/** A read-only look at the server's database (committed data only). */
const counts = (path: string) => peek(path, async (db) => {
  const out: Record<string, number> = {};
  for (const t of ['transactions', 'customers', 'events', 'ledger_entries', 'idempotency_keys', 'disputes']) out[t] = await db.count(t);
  return out;
});

async function balance(url: string, t: string) {
  const b = (await api(url, '/balance', { token: t })).json;
  return { available: b.available as number, blocked: b.blocked as number };
}

describe('POST /transaction over HTTP', () => {
  it('answers 201 with exactly the creation response; replays with idempotent-replayed', async () => {
    const body = txBody('PIX', { externalRef: `e2e-${Date.now()}` });
    const res = await api(srv.url, '/transaction', { token, body, headers: { 'idempotency-key': 'e2e-pix-1' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(['id', 'status', 'total', 'method', 'qrcode', 'invoice', 'currency', 'identifier', 'external_ref', 'customer', 'created_at', 'updated_at']);
    expect(res.json).toMatchObject({ status: 'PENDING', total: 2500, method: 'PIX', invoice: null, currency: 'BRL', external_ref: body.externalRef });
    const br = readBrCode(res.json.qrcode);
    expect(br).toMatchObject({ crcOk: true, gui: 'br.gov.bcb.pix', amount: '25.00', txid: res.json.identifier, name: 'Demo Merchant' });
    // what a payer's app would read, by a parser that is not ours
    expect(parseWithPixUtils(res.json.qrcode)).toMatchObject({
      pixKey: merchantPixKey(srv.demo.accountId), transactionAmount: 25, merchantName: 'Demo Merchant', merchantCity: 'SAO PAULO', txid: res.json.identifier,
    });

    const again = await api(srv.url, '/transaction', { token, body, headers: { 'idempotency-key': 'e2e-pix-1' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(res.text);
    const reused = await api(srv.url, '/transaction', { token, body: { ...body, customer: { ...body.customer, name: 'Someone Else' } }, headers: { 'idempotency-key': 'e2e-pix-1' } });
    expect(reused.status).toBe(422);
    const dup = await api(srv.url, '/transaction', { token, body });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ statusCode: 409, error: 'Conflict' });
  });

  it('refuses bad input with the 400 envelope and stores nothing', async () => {
    const before = await counts(srv.databasePath);
    const bad: [Record<string, unknown>, string][] = [
      [txBody('PIX', { amount: '2500' }), 'amount'],
      [txBody('PIX', { amount: 2600 }), 'amount'],
      [txBody('PIX', { items: [] }), 'items'],
      [txBody('PIX', { items: [{ title: 'x', unitPrice: '2500', quantity: 1 }] }), 'items.0.unitPrice'],
      [txBody('PIX', { customer: { ...txBody().customer, document: '111.111.111-11' } }), 'customer.document'],
      [txBody('CARD', { card: card({ expiration_month: '01', expiration_year: '2020' }) }), 'card.expiration_year'],
      [txBody('CARD', { card: undefined }), 'card'],
      [txBody('CARD', { installments: 24 }), 'installments'],
      [txBody('CARD', { installments: '2' }), 'installments'],
      [txBody('PIX', { card: card() }), 'card'],
      [txBody('PIX', { coupon: 'X' }), 'coupon'],
      [txBody('PIX', { amount: 2500.5 }), 'amount'],
      [txBody('PIX', { customer: { ...txBody().customer, document: '11.222.333/0001-80' } }), 'customer.document'],
      [txBody('PIX', { customer: { ...txBody().customer, email: undefined } }), 'customer.email'],
      [txBody('CARD', { card: card({ number: '4111111111111112' }) }), 'card.number'],
      [txBody('CARD', { card: card({ number: '378282246310005', cvv: '123' }) }), 'card.cvv'],
      [txBody('CARD', { installments: 0 }), 'installments'],
      [txBody('INVOICE', { card: card() }), 'card'],
      [txBody('PIX', { installments: 2 }), 'installments'],
      [txBody('PIX', { customer: { ...txBody().customer, age: 30 } }), 'customer.age'],
      [txBody('CARD', { card: { ...card(), pin: '1234' } }), 'card.pin'],
    ];
    for (const [body, path] of bad) {
      const res = await api(srv.url, '/transaction', { token, body, headers: { 'idempotency-key': `bad-${path}` } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json).sort()).toEqual(['error', 'issues', 'message', 'statusCode', 'timestamp']);
      expect(res.json).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(Array.isArray(res.json.message)).toBe(true);
      expect(res.json.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect(await counts(srv.databasePath)).toEqual(before);
    // a refused request does not spend its idempotency-key: the same key with a good body creates
    const good = await api(srv.url, '/transaction', { token, body: txBody('PIX'), headers: { 'idempotency-key': 'bad-amount' } });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps strings out of numbers and booleans on tRPC over HTTP too, after REST has used the schema', async () => {
    // trpc-to-openapi coerces input numbers/booleans and mutates the shared schema on first REST use
    const stringly: [Record<string, unknown>, string][] = [
      [txBody('PIX', { amount: '2500' }), 'amount'],
      [txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: '1' }] }), 'items.0.quantity'],
      [txBody('PIX', { items: [{ title: 'x', unitPrice: 2500, quantity: 1, tangible: 'true' }] }), 'items.0.tangible'],
      [txBody('CARD', { installments: '2' }), 'installments'],
    ];
    const before = await counts(srv.databasePath);
    for (const [body, path] of stringly) {
      expect((await api(srv.url, '/transaction', { token, body })).status).toBe(400);
      const res = await api(srv.url, '/api/trpc/transactions.create', { token, body });
      expect(res.status, path).toBe(400);
      expect(res.json.error.data.domainCode).toBe('VALIDATION');
    }
    expect(await counts(srv.databasePath)).toEqual(before);
    const ok = await api(srv.url, '/api/trpc/transactions.create', { token, body: txBody('PIX') });
    expect(ok.status).toBe(200);
    expect(ok.json.result.data).toMatchObject({ status: 'PENDING', method: 'PIX', total: 2500 });
    const got = await api(srv.url, `/api/trpc/transactions.get?input=${encodeURIComponent(JSON.stringify({ id: ok.json.result.data.id }))}`, { token });
    expect(got.json.result.data).toEqual((await api(srv.url, `/transaction?id=${ok.json.result.data.id}`, { token })).json);
  });

  it('is documented: POST 201 with idempotency-key, the query parameters, and the sandbox paths', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    const post = doc.paths['/transaction'].post;
    expect(Object.keys(post.responses)).toContain('201');
    // 200 and 404 only for the query alias (no body + GET's query parameters), which the server answers
    expect(post.responses['200'].description).toMatch(/query alias/);
    expect(post.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort()).toEqual(['endtoend', 'external_ref', 'id', 'identifier']);
    expect(post.parameters.map((p: { name: string }) => p.name)).toContain('idempotency-key');
    expect(Object.keys(post.requestBody.content['application/json'].schema.properties).sort()).toEqual(['amount', 'card', 'customer', 'externalRef', 'installments', 'items', 'method', 'postback']);
    expect(doc.paths['/transaction'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['endtoend', 'external_ref', 'id', 'identifier']);
    expect(Object.keys(doc.paths['/sandbox/transactions/{id}/pay'].post.responses)).toContain('200');
    expect(Object.keys(doc.paths['/sandbox/transactions/{id}/dispute'].post.responses)).toContain('201');
    expect(Object.keys(doc.paths['/sandbox/disputes/{id}/{outcome}'].post.responses)).toContain('200');
  });
});

describe('GET /transaction over HTTP', () => {
  it('answers the spec shape by each key, through the POST alias too, and 404 to another account', async () => {
    const created = (await api(srv.url, '/transaction', { token, body: txBody('INVOICE', { externalRef: 'e2e-get' }) })).json;
    const byId = await api(srv.url, `/transaction?id=${created.id}`, { token });
    expect(byId.status).toBe(200);
    expect(Object.keys(byId.json)).toEqual(['id', 'status', 'total', 'method', 'currency', 'endtoend', 'postback', 'items', 'customer', 'external_ref', 'metadata', 'created_at', 'updated_at', 'refunded_amount', 'refunds']);
    expect(byId.json).toMatchObject({ id: created.id, status: 'PENDING', method: 'INVOICE', endtoend: null, postback: null, metadata: null, customer: created.customer });
    for (const q of [`identifier=${created.identifier}`, 'external_ref=e2e-get', `id=${created.id}&external_ref=e2e-get`]) {
      expect((await api(srv.url, `/transaction?${q}`, { token })).text).toBe(byId.text);
    }
    // the published example labels the query POST: no body (or {}) + a query parameter = the GET
    const alias = await api(srv.url, `/transaction?id=${created.id}`, { token, method: 'POST' });
    expect(alias.status).toBe(200);
    expect(alias.text).toBe(byId.text);
    const aliasEmpty = await api(srv.url, `/transaction?external_ref=e2e-get`, { token, body: {} });
    expect(aliasEmpty.status).toBe(200);
    expect(aliasEmpty.json).toEqual(byId.json);

    expect((await api(srv.url, '/transaction?id=txn_nope', { token })).status).toBe(404);
    expect((await api(srv.url, `/transaction?id=${created.id}&external_ref=other`, { token })).status).toBe(404);
    expect((await api(srv.url, '/transaction', { token })).status).toBe(400);
    expect((await api(srv.url, `/transaction?id=${created.id}&foo=1`, { token })).status).toBe(400);

    // a second account, created beside the running server on the same database file
    const side = serverServices(srv.databasePath);
    const other = await createAccount({ db: side.db, masterKey: side.masterKey, clock: systemClock }, { name: 'Other Merchant' });
    await side.db.close();
    const otherToken = await accessToken(srv.url, other.code, other.token);
    for (const q of [`id=${created.id}`, `identifier=${created.identifier}`, 'external_ref=e2e-get']) {
      const res = await api(srv.url, `/transaction?${q}`, { token: otherToken });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    expect((await api(srv.url, `/sandbox/transactions/${created.id}/pay`, { token: otherToken, method: 'POST' })).status).toBe(404);
    expect((await api(srv.url, `/transaction?id=${created.id}`, { token: otherToken, method: 'POST' })).status).toBe(404);
  });
});

describe('sandbox payment over HTTP', () => {
  it('credits once under 50 concurrent pays of one PIX', async () => {
    const before = await balance(srv.url, token);
    const t = (await api(srv.url, '/transaction', { token, body: txBody('PIX', { amount: 777, items: [{ title: 'x', unitPrice: 777, quantity: 1 }] }) })).json;
    const answers = await Promise.all(Array.from({ length: 50 }, () => api(srv.url, `/sandbox/transactions/${t.id}/pay`, { token, method: 'POST' })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((a) => a.json.endtoend)).size).toBe(1);
    expect(answers[0].json).toMatchObject({ id: t.id, status: 'APPROVED' });
    expect(await balance(srv.url, token)).toEqual({ available: before.available + 777, blocked: before.blocked });
    await peek(srv.databasePath, async (db) => {
      expect(((await db.get('SELECT count(*) AS n FROM ledger_entries WHERE resource_id = ?', t.id)) as { n: number }).n).toBe(1);
      expect((await db.all('SELECT type FROM events WHERE resource_id = ? ORDER BY seq', t.id))).toEqual([{ type: 'transaction.created' }, { type: 'transaction.approved' }]);
    });
    const reader = readServerDb(srv.databasePath);
    try {
      expect(await auditLedger(reader.db)).toEqual({ total: 0, mismatched: [] });
    } finally {
      reader.close();
    }
    const byE2e = await api(srv.url, `/transaction?endtoend=${answers[0].json.endtoend}`, { token });
    expect(byE2e.json).toEqual(answers[0].json);
  });

  it('holds, then releases or keeps, a disputed card amount', async () => {
    const start = await balance(srv.url, token);
    const t = (await api(srv.url, '/transaction', { token, body: txBody('CARD') })).json;
    expect(t.status).toBe('APPROVED');
    const opened = await api(srv.url, `/sandbox/transactions/${t.id}/dispute`, { token, method: 'POST' });
    expect(opened.status).toBe(201);
    expect(Object.keys(opened.json)).toEqual(['id', 'transaction_id', 'status', 'amount', 'created_at', 'updated_at']);
    expect(await balance(srv.url, token)).toEqual({ available: start.available, blocked: start.blocked + 2500 });
    expect((await api(srv.url, `/sandbox/transactions/${t.id}/dispute`, { token, method: 'POST' })).status).toBe(409);
    expect((await api(srv.url, `/sandbox/disputes/${opened.json.id}/maybe`, { token, method: 'POST' })).status).toBe(400);
    const lost = await api(srv.url, `/sandbox/disputes/${opened.json.id}/lost`, { token, method: 'POST' });
    expect(lost.status).toBe(200);
    expect(lost.json.status).toBe('LOST');
    expect(await balance(srv.url, token)).toEqual(start);

    const t2 = (await api(srv.url, '/transaction', { token, body: txBody('CARD') })).json;
    const d2 = (await api(srv.url, `/sandbox/transactions/${t2.id}/dispute`, { token, method: 'POST' })).json;
    expect((await api(srv.url, `/sandbox/disputes/${d2.id}/won`, { token, method: 'POST' })).json.status).toBe('WON');
    expect(await balance(srv.url, token)).toEqual({ available: start.available + 2500, blocked: start.blocked });
  });
});

describe('card data at rest', () => {
  it('keeps neither the full number nor the CVV anywhere in the database files', async () => {
    const cards = [
      { number: '5555555555554444', cvv: '739', key: 'card-key-1' },
      { number: '5555555555554444', cvv: '739', key: undefined },
      { number: '4000000000009995', cvv: '284', key: 'card-key-2' }, // declined
      { number: '378282246310005', cvv: '8316', key: 'card-key-3' }, // Amex, 4-digit CVV
    ];
    // each request carries a marker that IS stored (its externalRef), so the scan below is shown to
    // read the very bytes those requests wrote: it cannot pass by looking at the wrong files
    const markers: string[] = [];
    for (const c of cards) {
      const marker = `card-scan-${markers.length}-${Date.now()}`;
      markers.push(marker);
      const res = await api(srv.url, '/transaction', { token, body: txBody('CARD', { externalRef: marker, card: card({ number: c.number, cvv: c.cvv }) }), headers: c.key ? { 'idempotency-key': c.key } : {} });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain(c.number);
    }
    // a refused request carries a number that must not linger either
    const expired = await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: '4242424242424242', expiration_year: '2020' }) }), headers: { 'idempotency-key': 'card-key-4' } });
    expect(expired.status).toBe(400);
    expect(expired.text).not.toContain('4242424242424242');

    // 1. raw bytes of the database, its WAL and shared-memory index: no full number, and no stored
    //    (SQLite's files; PostgreSQL's pages are the server's, checked cell by cell below)
    if (!onPostgres) {
      //    request body ("cvv" as a JSON key would be in one)
      const files = ['', '-wal', '-shm'].map((s) => srv.databasePath + s).filter(existsSync);
      expect(files.length).toBeGreaterThanOrEqual(2);
      const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
      for (const marker of markers) expect(bytes.includes(Buffer.from(marker)), marker).toBe(true);
      expect(bytes.includes(Buffer.from('Maria Silva'))).toBe(true); // the holder name is kept
      for (const number of ['5555555555554444', '4000000000009995', '378282246310005', '4242424242424242']) {
        expect(bytes.includes(Buffer.from(number)), number).toBe(false);
        expect(bytes.includes(Buffer.from(number, 'utf16le')), number).toBe(false);
      }
      // (quoted: a bare "cvv" turns up by chance inside random base-36 ids, and the WAL holds many copies)
      expect(bytes.includes(Buffer.from('"cvv"'))).toBe(false);
    }
    // nor in what the process printed (logs are files too, once collected), all of it
    await logsCaughtUp(srv);
    for (const number of ['5555555555554444', '4000000000009995', '378282246310005', '4242424242424242']) expect(srv.output()).not.toContain(number);
    expect(srv.output()).not.toContain('"cvv"');

    // 2. every text cell of every table: a 3–4 digit CVV can occur by chance inside binary pages, so
    //    it is checked where it could have been written: no cell is the CVV, no JSON holds it as a value
    const cvvs = ['739', '284', '8316'];
    await peek(srv.databasePath, async (db) => {
      const tables = await db.tables();
      expect(tables).toContain('transactions');
      for (const table of tables) {
        for (const row of (await db.all(`SELECT * FROM "${table}"`)) as Record<string, unknown>[]) {
          for (const [col, v] of Object.entries(row)) {
            // text cells only: integer cells (seq, line ids, amounts) reach 739 honestly
            if (typeof v !== 'string' && !Buffer.isBuffer(v)) continue;
            const text = typeof v === 'string' ? v : v.toString('latin1');
            for (const cvv of cvvs) {
              expect(text, `${table}.${col}`).not.toBe(cvv);
              expect(text, `${table}.${col}`).not.toContain(`"${cvv}"`);
            }
            expect(text.toLowerCase(), `${table}.${col}`).not.toContain('"cvv"');
          }
        }
      }
      // what is kept: brand, last 4, holder; the idempotency store keeps a keyed hash of the request
      const kept = (await db.all(`SELECT card_brand, card_last4, card_holder_name FROM transactions WHERE card_last4 IN ('4444', '9995', '0005') ORDER BY created_at`));
      expect(kept).toEqual(expect.arrayContaining([{ card_brand: 'MASTERCARD', card_last4: '4444', card_holder_name: 'Maria Silva' }, { card_brand: 'AMEX', card_last4: '0005', card_holder_name: 'Maria Silva' }]));
      const stored = (await db.all(`SELECT fingerprint, result FROM idempotency_keys WHERE key LIKE 'card-key-%'`)) as { fingerprint: string; result: string }[];
      expect(stored.length).toBe(3);
      for (const s of stored) {
        expect(s.fingerprint).toMatch(/^[0-9a-f]{64}$/);
        // "cvv" as a key or a value, never bare: random ids (cus_…cvv…) contain it by chance (seen in CI)
        expect(s.result).not.toMatch(/5555555555554444|4000000000009995|378282246310005|"cvv"|"card"/);
        for (const cvv of cvvs) expect(s.result).not.toContain(`"${cvv}"`);
      }
    });
  });
});

describe('with the sandbox off and 1-second Pix charges', () => {
  it('expires a PIX through the background job, and refuses the sandbox paths with 404', async () => {
    const t = (await api(off.url, '/transaction', { token: offToken, body: txBody('PIX') })).json;
    expect(t.status).toBe('PENDING');
    const refused = await waitFor(async () => {
      const v = (await api(off.url, `/transaction?id=${t.id}`, { token: offToken })).json;
      return v.status === 'REFUSED' ? v : null;
    }, { what: 'the PIX to expire' });
    expect(refused).toMatchObject({ id: t.id, status: 'REFUSED', endtoend: null });
    await peek(off.databasePath, async (db) => {
      const evs = (await db.all('SELECT type, payload FROM events WHERE resource_id = ? ORDER BY seq', t.id)) as { type: string; payload: string }[];
      expect(evs.map((e) => e.type)).toEqual(['transaction.created', 'transaction.expired']);
      expect(JSON.parse(evs[1].payload)).toEqual(refused);
    });
    for (const path of [`/sandbox/transactions/${t.id}/pay`, `/sandbox/transactions/${t.id}/dispute`, '/sandbox/disputes/dsp_x/won']) {
      const res = await api(off.url, path, { token: offToken, method: 'POST' });
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });
});

describe('Pix expiry across a restart', () => {
  it('a charge that fell due while the process was down is expired by the next process, once', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pix-e2e-expiry-'));
    let first: RunningServer | undefined;
    let second: RunningServer | undefined;
    try {
      // The first process polls its jobs only every ten minutes, so it never sweeps the charge: the
      // charge can only be expired from its row, by whatever process runs after it.
      first = await startServer({ dir, env: { PIX_EXPIRES_SECONDS: '1', JOB_POLL_MS: '600000' } });
      const t1 = await accessToken(first.url, first.demo.code, first.demo.token);
      const t = (await api(first.url, '/transaction', { token: t1, body: txBody('PIX') })).json;
      expect(t.status).toBe('PENDING');
      // wait (by the clock, not by hope) until the charge is due, and see it still PENDING here
      await waitFor(() => Date.now() > Date.parse(t.created_at) + 1500, { what: 'the charge to fall due' });
      const stale = (await api(first.url, `/transaction?id=${t.id}`, { token: t1 })).json;
      expect(stale.status, first.output()).toBe('PENDING');
      await first.kill(); // SIGKILL: no shutdown work at all

      second = await startServer({ dir, env: { PIX_EXPIRES_SECONDS: '3600' } });
      expect(second.output(), second.output()).not.toContain('Demo account created'); // the same database, not a new one
      const refused = await waitFor(async () => {
        const v = (await api(second!.url, `/transaction?id=${t.id}`, { token: t1 })).json;
        return v.status === 'REFUSED' ? v : null;
      }, { what: 'the due charge to expire after the restart' });
      expect(refused).toMatchObject({ id: t.id, status: 'REFUSED', endtoend: null });
      expect((await api(second.url, `/sandbox/transactions/${t.id}/pay`, { token: t1, method: 'POST' })).status).toBe(422);
      await peek(second.databasePath, async (db) => {
        const evs = (await db.all('SELECT type, payload FROM events WHERE resource_id = ? ORDER BY seq', t.id)) as { type: string; payload: string }[];
        expect(evs.map((e) => e.type)).toEqual(['transaction.created', 'transaction.expired']);
        expect(JSON.parse(evs[1].payload)).toEqual(refused);
        expect((await db.get('SELECT refused_reason FROM transactions WHERE id = ?', t.id))).toEqual({ refused_reason: 'expired' });
        expect(((await db.get('SELECT count(*) AS n FROM ledger_entries WHERE resource_id = ?', t.id)) as { n: number }).n).toBe(0);
      });
    } finally {
      await first?.kill();
      await second?.stop();
      removeDir(dir);
    }
  });
});
