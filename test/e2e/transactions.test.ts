import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleOver, openConnection } from '../../db/client';
import { loadConfig } from '../../server/config';
import { createAccount } from '../../server/domain/accounts';
import { auditLedger } from '../../server/domain/ledger';
import { createServices } from '../../server/services';
import { readBrCode } from '../support/brcode-reader';
import { waitFor } from '../support/services';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
import { card, txBody } from '../support/transactions';

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
function peek<T>(path: string, f: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try { return f(db); } finally { db.close(); }
}
const count = (path: string, table: string) => peek(path, (db) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
const counts = (path: string) => Object.fromEntries(['transactions', 'customers', 'events', 'ledger_entries', 'idempotency_keys', 'disputes'].map((t) => [t, count(path, t)]));

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
    const before = counts(srv.databasePath);
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
    ];
    for (const [body, path] of bad) {
      const res = await api(srv.url, '/transaction', { token, body, headers: { 'idempotency-key': `bad-${path}` } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json).sort()).toEqual(['error', 'issues', 'message', 'statusCode', 'timestamp']);
      expect(res.json.statusCode).toBe(400);
      expect(Array.isArray(res.json.message)).toBe(true);
      expect(res.json.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect(counts(srv.databasePath)).toEqual(before);
  });
});

describe('GET /transaction over HTTP', () => {
  it('answers the spec shape by each key, through the POST alias too, and 404 to another account', async () => {
    const created = (await api(srv.url, '/transaction', { token, body: txBody('INVOICE', { externalRef: 'e2e-get' }) })).json;
    const byId = await api(srv.url, `/transaction?id=${created.id}`, { token });
    expect(byId.status).toBe(200);
    expect(Object.keys(byId.json)).toEqual(['id', 'status', 'total', 'method', 'currency', 'endtoend', 'postback', 'items', 'customer', 'external_ref', 'metadata', 'created_at', 'updated_at']);
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
    const side = createServices({ config: loadConfig({ databasePath: srv.databasePath }) });
    const other = await createAccount({ db: side.db, masterKey: side.masterKey, now: () => new Date() }, { name: 'Other Merchant' });
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
    peek(srv.databasePath, (db) => {
      expect((db.prepare('SELECT count(*) AS n FROM ledger_entries WHERE resource_id = ?').get(t.id) as { n: number }).n).toBe(1);
      expect(db.prepare('SELECT type FROM events WHERE resource_id = ? ORDER BY seq').all(t.id)).toEqual([{ type: 'transaction.created' }, { type: 'transaction.approved' }]);
    });
    const reader = openConnection(srv.databasePath, { readonly: true });
    try {
      expect(await auditLedger(drizzleOver(reader))).toEqual({ total: 0, mismatched: [] });
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
    for (const c of cards) {
      const res = await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: c.number, cvv: c.cvv }) }), headers: c.key ? { 'idempotency-key': c.key } : {} });
      expect(res.status).toBe(201);
      expect(res.text).not.toContain(c.number);
    }
    // a refused request carries a number that must not linger either
    const expired = await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: '4242424242424242', expiration_year: '2020' }) }), headers: { 'idempotency-key': 'card-key-4' } });
    expect(expired.status).toBe(400);
    expect(expired.text).not.toContain('4242424242424242');

    // 1. raw bytes of the database, its WAL and shared-memory index: no full number, and no stored
    //    request body ("cvv" as a JSON key would be in one)
    const files = ['', '-wal', '-shm'].map((s) => srv.databasePath + s).filter(existsSync);
    expect(files.length).toBeGreaterThanOrEqual(2);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    for (const number of ['5555555555554444', '4000000000009995', '378282246310005', '4242424242424242']) {
      expect(bytes.includes(Buffer.from(number)), number).toBe(false);
      expect(bytes.includes(Buffer.from(number, 'utf16le')), number).toBe(false);
    }
    // (quoted: a bare "cvv" turns up by chance inside random base-36 ids, and the WAL holds many copies)
    expect(bytes.includes(Buffer.from('"cvv"'))).toBe(false);

    // 2. every text cell of every table: a 3–4 digit CVV can occur by chance inside binary pages, so
    //    it is checked where it could have been written: no cell is the CVV, no JSON holds it as a value
    const cvvs = ['739', '284', '8316'];
    peek(srv.databasePath, (db) => {
      const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map((t) => t.name);
      expect(tables).toContain('transactions');
      for (const table of tables) {
        for (const row of db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]) {
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
      const kept = db.prepare(`SELECT card_brand, card_last4, card_holder_name FROM transactions WHERE card_last4 IN ('4444', '9995', '0005') ORDER BY created_at`).all();
      expect(kept).toEqual(expect.arrayContaining([{ card_brand: 'MASTERCARD', card_last4: '4444', card_holder_name: 'Maria Silva' }, { card_brand: 'AMEX', card_last4: '0005', card_holder_name: 'Maria Silva' }]));
      const stored = db.prepare(`SELECT fingerprint, response_body FROM idempotency_keys WHERE key LIKE 'card-key-%'`).all() as { fingerprint: string; response_body: string }[];
      expect(stored.length).toBe(3);
      for (const s of stored) {
        expect(s.fingerprint).toMatch(/^[0-9a-f]{64}$/);
        expect(s.response_body).not.toMatch(/5555555555554444|4000000000009995|378282246310005|cvv|"card"/);
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
    peek(off.databasePath, (db) => {
      const evs = db.prepare('SELECT type, payload FROM events WHERE resource_id = ? ORDER BY seq').all(t.id) as { type: string; payload: string }[];
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
