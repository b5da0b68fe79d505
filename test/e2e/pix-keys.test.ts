import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';

/** GET /pix/keys and the receipts it explains, over HTTP against the real server process. */
let srv: RunningServer;
let token = '';

beforeAll(async () => {
  srv = await startServer({ env: { PIX_MAX_BATCH_CENTS: '100000', SANDBOX_SETTLEMENT_DELAY_MS: '50' } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
});
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

const lookup = (query: string, t: string | null = token) => api(srv.url, `/pix/keys?${query}`, { token: t ?? undefined });
const settled = (identifier: string) => waitFor(async () => {
  const r = await api(srv.url, `/withdraw?identifier=${identifier}`, { token });
  return r.json.receipt.every((x: { status: string }) => x.status !== 'PENDING') ? r.json : null;
}, { what: `withdrawal of ${identifier} to settle` });

describe('GET /pix/keys', () => {
  it('answers the holder, the masked document and the bank; the same key always the same', async () => {
    const res = await lookup(`key=${encodeURIComponent('529.982.247-25')}&key_type=CPF`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.json).toEqual({
      key: '52998224725', key_type: 'CPF',
      holder: { name: expect.any(String), document_masked: '***.982.247-**' },
      bank: { name: expect.any(String), ispb: expect.stringMatching(/^\d{8}$/) },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const again = await lookup('key=52998224725&key_type=CPF');
    expect({ ...again.json, timestamp: null }).toEqual({ ...res.json, timestamp: null });
    // a phone key's + must be sent encoded (%2B): a bare + in a query string is a space
    const phone = await lookup(`key=${encodeURIComponent('+55 (11) 98765-4321')}&key_type=PHONE`);
    expect([phone.status, phone.json.key]).toEqual([200, '+5511987654321']);
  });

  it('refuses a malformed key with 400 in the payments envelope, naming the rule', async () => {
    const res = await lookup('key=529.982.247-26&key_type=CPF');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      statusCode: 400, error: 'Bad Request', message: ['key: not a valid CPF (check digits do not match)'],
      issues: [{ path: 'key', message: 'not a valid CPF (check digits do not match)' }], timestamp: expect.any(String),
    });
    for (const q of ['key=a@b.co', 'key_type=EMAIL', 'key=a@b.co&key_type=PIX', 'key=&key_type=EMAIL', 'key=a@b.co&key_type=EMAIL&extra=1']) {
      const r = await lookup(q);
      expect([q, r.status, r.json.statusCode]).toEqual([q, 400, 400]);
      expect(r.json.message.length).toBeGreaterThan(0);
    }
  });

  it('answers 404 for a key the directory does not know, and 401 without a token', async () => {
    const res = await lookup('key=unknown%40sandbox.test&key_type=EMAIL');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'no EMAIL Pix key unknown@sandbox.test is registered in the Pix directory', timestamp: expect.any(String) });
    const anon = await lookup('key=a%40b.co&key_type=EMAIL', null);
    expect([anon.status, anon.json.statusCode]).toEqual([401, 401]);
    const post = await api(srv.url, '/pix/keys', { token, body: { key: 'a@b.co', key_type: 'EMAIL' } });
    expect(post.status).toBe(405);
  });

  it('is what the receipts of a paid withdrawal say, whatever name was typed', async () => {
    const holder = (await lookup('key=loja%40example.com&key_type=EMAIL')).json;
    const created = await api(srv.url, '/withdraw/pix', {
      token, body: { amount: 150_000, key: 'Loja@Example.com', key_type: 'EMAIL', details: { name: 'Nome Digitado', document: '529.982.247-25' } },
    });
    expect(created.status).toBe(201);
    const w = await settled(created.json.data[0].identifier);
    expect(w.status).toBe('PAID');
    expect(w.operation.details.name).toBe('Nome Digitado');
    expect(w.receipt.map((r: Record<string, unknown>) => [r.amount, r.receiver_name, r.receiver_bank, r.receiver_bank_ispb, r.failure_reason])).toEqual([
      [100_000, holder.holder.name, holder.bank.name, holder.bank.ispb, null],
      [50_000, holder.holder.name, holder.bank.name, holder.bank.ispb, null],
    ]);
  });

  it('explains a failed batch: an unknown key is accepted as before and fails at settlement with a reason', async () => {
    const created = await api(srv.url, '/withdraw/pix', {
      token, body: { amount: 1_000, key: 'unknown@sandbox.test', key_type: 'EMAIL', details: { name: 'Ninguém', document: '529.982.247-25' } },
    });
    expect(created.status).toBe(201);
    const w = await settled(created.json.data[0].identifier);
    expect(w.status).toBe('ERROR');
    expect(w.receipt[0]).toMatchObject({ amount: 1_000, failure_code: 'KEY_NOT_FOUND', failure_reason: expect.stringMatching(/^The Pix key is not registered/) });
  });
});

describe('the OpenAPI document', () => {
  it('documents GET /pix/keys and the new receipt fields', async () => {
    const doc = (await api(srv.url, '/openapi.json')).json;
    const get = doc.paths['/pix/keys'].get;
    expect(get.security).toEqual([{ bearer: [] }]);
    expect(get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['key', 'key_type']);
    for (const code of ['200', '400', '401', '404', '503']) expect(get.responses[code], code).toBeDefined();
    expect(get.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/PaymentsError');
    const ok = get.responses['200'].content['application/json'].schema;
    expect(Object.keys(ok.properties).sort()).toEqual(['bank', 'holder', 'key', 'key_type', 'timestamp']);
    const receipt = doc.paths['/withdraw'].get.responses['200'].content['application/json'].schema.properties.receipt.items;
    expect(receipt.properties.amount.type).toBe('integer');
    expect(receipt.properties.failure_reason).toBeDefined();
    expect(receipt.properties.failure_code).toBeDefined();
    const { validate } = await import('@readme/openapi-parser');
    expect((await validate(structuredClone(doc))).valid).toBe(true);
  });
});
