import { beforeAll, describe, expect, it } from 'vitest';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { CobPayload, CobVPayload } from '../../contract/bcb/payload';
import { addCalendarDays, businessDayOnOrAfter } from '../../server/domain/pix-api/calendar';
import { dueDates } from '../../server/domain/pix-api/due-date';
import { localDay } from '../../server/domain/local-time';
import type { Services } from '../../server/services';
import { expectBcbResponse } from '../support/bcb-contract';
import { aTxid, pixApiHarness, pixApiToken, v2 } from '../support/pix-api-harness';
import { seedPixCharge } from '../support/pix-charge-seed';
import { type RunningServer } from '../support/server';

/**
 * The payload locations of dynamic QR codes over HTTP against the running server (API Pix 2.9.0,
 * `GET /{pixUrlAccessToken}` and `GET /cobv/{pixUrlAccessToken}`, served at /qr/v2/…): no credential,
 * a compact JWS a payer's bank checks with the keys of /qr/v2/jwks (fetched here and used with `jose`, as
 * a bank would), its header naming them (`jku`, `kid`), its content the yaml's payload with the amount due
 * on the DPP asked. Charges are seeded in the tables in the agreed format (test/support/pix-charge-seed.ts).
 */
const PUBLIC_BASE = 'pix.example.test';
const harness = pixApiHarness({ env: { PIX_PUBLIC_BASE: PUBLIC_BASE } });
let srv: RunningServer;
let beside: Services;
let jwks: JSONWebKeySet;
beforeAll(() => ({ srv, side: beside } = harness));

const devedor = { cpf: '12345678909', nome: 'Francisco da Silva' };
const recebedor = { cnpj: '56989000019533', nome: 'Loja do Demo', logradouro: 'Rua 20, 70', cidade: 'Belo Horizonte', uf: 'MG', cep: '55120750' };

async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(`${srv.url}${path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What a payer's bank does: the JWKS named by the header (fetched once), then the signature checked against it. */
async function verified(jws: string) {
  const header = decodeProtectedHeader(jws);
  expect(header.jku).toBe(`https://${PUBLIC_BASE}/qr/v2/jwks`);
  if (!jwks) {
    // the jku's host is the public one; its path is this server's
    const r = await get(new URL(header.jku!).pathname);
    expect(r.status).toBe(200);
    jwks = JSON.parse(r.text) as JSONWebKeySet;
  }
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks));
  expect(['PS256', 'RS256']).toContain(protectedHeader.alg);
  expect(jwks.keys.map((k) => k.kid)).toContain(protectedHeader.kid);
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, any>;
}

async function cobvSeed(o: { status?: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } = {}) {
  const today = localDay(new Date());
  const dataDeVencimento = businessDayOnOrAfter(addCalendarDays(today, 10));
  const body = {
    calendario: { criacao: new Date().toISOString(), dataDeVencimento, validadeAposVencimento: 5 },
    devedor: { ...devedor, email: 'francisco@example.com', logradouro: 'Rua A', cidade: 'Recife', uf: 'PE', cep: '50000000' },
    recebedor,
    valor: {
      original: '100.00',
      multa: { modalidade: 1, valorPerc: '2.00' },
      juros: { modalidade: 1, valorPerc: '0.10' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: addCalendarDays(dataDeVencimento, -3), valorPerc: '5.00' }] },
    },
    solicitacaoPagador: 'Mensalidade',
  };
  const seeded = await seedPixCharge(beside, { accountId: srv.demo.accountId, kind: 'cobv', chave: srv.demo.pixKey, amount: 10_000, body, dueDate: dataDeVencimento, status: o.status, revisao: 2 });
  return { ...seeded, today, dataDeVencimento, ultimoDia: dueDates({ dataDeVencimento, validadeAposVencimento: 5 }).ultimoDia };
}

describe('GET /qr/v2/{pixUrlAccessToken} (cob)', () => {
  it('answers the charge as a JWS signed with a key of /qr/v2/jwks, the yaml CobPayload, without any credential', async () => {
    const criacao = new Date(Date.now() - 60_000);
    const { token, txid } = await seedPixCharge(beside, {
      accountId: srv.demo.accountId, kind: 'cob', chave: srv.demo.pixKey, amount: 12_345, revisao: 1,
      body: {
        calendario: { criacao: criacao.toISOString(), expiracao: 3600 }, devedor, valor: { original: '123.45', modalidadeAlteracao: 0 },
        solicitacaoPagador: 'Pedido 42', infoAdicionais: [{ nome: 'quantidade', valor: '2' }],
      },
    });
    const before = Date.now();
    const r = await get(`/qr/v2/${token}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/jose');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.text).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const payload = await verified(r.text);
    expect(payload).toMatchObject({
      txid, revisao: 1, status: 'ATIVA', chave: srv.demo.pixKey, devedor, valor: { original: '123.45', modalidadeAlteracao: 0 },
      calendario: { criacao: criacao.toISOString(), expiracao: 3600 }, solicitacaoPagador: 'Pedido 42', infoAdicionais: [{ nome: 'quantidade', valor: '2' }],
    });
    expect(Date.parse(payload.calendario.apresentacao)).toBeGreaterThanOrEqual(before - 1000);
    expectBcbResponse('GET', '/{pixUrlAccessToken}', 200, payload);
    expect(CobPayload.safeParse(payload).success).toBe(true);
  });

  it('publishes the JWKS as cacheable JSON with public keys only', async () => {
    const r = await get('/qr/v2/jwks');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    const set = JSON.parse(r.text) as JSONWebKeySet;
    expect(set.keys.length).toBeGreaterThan(0);
    for (const k of set.keys) {
      expect(k).toMatchObject({ kty: 'RSA', use: 'sig' });
      expect(k.kid).toBeTruthy();
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k).not.toHaveProperty(secret);
    }
  });

  it('shows a paid charge as CONCLUIDA; a removed one, an unbound or unknown token, or a cobv token here is the yaml not-found problem', async () => {
    const base = { accountId: srv.demo.accountId, kind: 'cob' as const, chave: srv.demo.pixKey, amount: 500, body: { calendario: { criacao: new Date().toISOString(), expiracao: 600 }, valor: { original: '5.00' } } };
    const paid = await seedPixCharge(beside, { ...base, status: 'CONCLUIDA' });
    const p = await get(`/qr/v2/${paid.token}`);
    expect(p.status).toBe(200);
    const payload = await verified(p.text);
    expect(payload).toMatchObject({ txid: paid.txid, status: 'CONCLUIDA', valor: { original: '5.00' } });
    expect(payload).not.toHaveProperty('devedor');
    expectBcbResponse('GET', '/{pixUrlAccessToken}', 200, payload);

    const removed = await seedPixCharge(beside, { ...base, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const cobv = await cobvSeed();
    for (const path of [`/qr/v2/${removed.token}`, `/qr/v2/${'0'.repeat(32)}`, '/qr/v2/not-a-token', `/qr/v2/${cobv.token}`, `/qr/v2/cobv/${paid.token}`]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const problem = JSON.parse(r.text);
      expect(problem).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado', status: 404 });
      expect(problem.correlationId).toBeTruthy();
      expectBcbResponse('GET', '/{pixUrlAccessToken}', 404, problem);
    }
  });

  it('are documented in /v2/openapi.json, the API Pix document', async () => {
    const r = await get('/v2/openapi.json');
    expect(r.status).toBe(200);
    const doc = JSON.parse(r.text);
    expect(doc.info.title).toMatch(/^API Pix/);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/qr/v2/jwks', '/qr/v2/{pixUrlAccessToken}', '/qr/v2/cobv/{pixUrlAccessToken}']));
    // and the payments API's document does not mix them in
    expect(Object.keys(JSON.parse((await get('/openapi.json')).text).paths).filter((p) => p.includes('v2'))).toEqual([]);
  });

  it('refuses other methods', async () => {
    const r = await get(`/qr/v2/${'0'.repeat(32)}`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('GET /qr/v2/cobv/{pixUrlAccessToken}?DPP=…', () => {
  it('answers the amount due on the DPP: early with the discount, on the due date the original, late with fine and interest', async () => {
    const c = await cobvSeed();
    const at = async (query: string) => {
      const r = await get(`/qr/v2/cobv/${c.token}${query}`);
      expect(r.status, query).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/jose');
      const payload = await verified(r.text);
      expectBcbResponse('GET', '/cobv/{pixUrlAccessToken}', 200, payload);
      expect(CobVPayload.safeParse(payload).success).toBe(true);
      return payload;
    };
    // today, by default: before the discount's date
    const today = await at('');
    expect(today).toMatchObject({
      txid: c.txid, revisao: 2, status: 'ATIVA', chave: srv.demo.pixKey, solicitacaoPagador: 'Mensalidade',
      calendario: { dataDeVencimento: c.dataDeVencimento, validadeAposVencimento: 5 },
      devedor, recebedor,
      valor: { original: '100.00', desconto: '5.00', final: '95.00' },
    });
    // the devedor's address is not shown on a URL open to anyone who has it
    expect(today.devedor).not.toHaveProperty('logradouro');
    expect((await at(`?DPP=${addCalendarDays(c.dataDeVencimento, -4)}&codMun=3106200`)).valor).toEqual({ original: '100.00', desconto: '5.00', final: '95.00' });
    expect((await at(`?DPP=${c.dataDeVencimento}`)).valor).toEqual({ original: '100.00', final: '100.00' });
    // three calendar days late: multa 2.00 once, juros 0.10 a day
    expect((await at(`?DPP=${addCalendarDays(c.dataDeVencimento, 3)}`)).valor).toEqual({ original: '100.00', multa: '2.00', juros: '0.30', final: '102.30' });
    // the last day it can be paid is still served
    expect((await at(`?DPP=${c.ultimoDia}`)).valor.final).toMatch(/^\d+\.\d{2}$/);
  });

  it('refuses a DPP after the charge validity, in the past or malformed, and a malformed codMun, as CobPayloadOperacaoInvalida', async () => {
    const c = await cobvSeed();
    const cases: [string, string][] = [
      [`DPP=${addCalendarDays(c.ultimoDia, 1)}`, 'DPP'],
      [`DPP=${addCalendarDays(c.today, -1)}`, 'DPP'],
      ['DPP=2026-02-30', 'DPP'],
      ['DPP=amanha', 'DPP'],
      ['codMun=31062', 'codMun'],
    ];
    for (const [query, property] of cases) {
      const r = await get(`/qr/v2/cobv/${c.token}?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const problem = JSON.parse(r.text);
      expect(problem, query).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobPayloadOperacaoInvalida', status: 400 });
      expect(problem.violacoes.map((v: { propriedade: string }) => v.propriedade)).toEqual([property]);
      expectBcbResponse('GET', '/cobv/{pixUrlAccessToken}', 400, problem);
    }
    // an unknown token is not found whatever its query
    const unknown = await get(`/qr/v2/cobv/${'f'.repeat(32)}?DPP=amanha`);
    expect(unknown.status).toBe(404);
  });

  it('shows a paid cobv as CONCLUIDA and not a removed one', async () => {
    const paid = await cobvSeed({ status: 'CONCLUIDA' });
    const r = await get(`/qr/v2/cobv/${paid.token}`);
    expect(r.status).toBe(200);
    expect((await verified(r.text)).status).toBe('CONCLUIDA');
    const removed = await cobvSeed({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect((await get(`/qr/v2/cobv/${removed.token}`)).status).toBe(404);
  });
});

describe('charges created through /v2: the location they answer serves them', () => {
  /** The location's path on this server: the BR Code's URL is `{PIX_PUBLIC_BASE}/qr/v2/…`. */
  const pathOf = (location: string) => {
    expect(location.startsWith(`${PUBLIC_BASE}/qr/v2/`), location).toBe(true);
    return location.slice(PUBLIC_BASE.length);
  };

  it('PUT /v2/cobv/{txid}, then its location with a DPP; PUT /v2/cob/{txid}, then its location', async () => {
    const token = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret);
    const today = localDay(new Date());
    const due = businessDayOnOrAfter(addCalendarDays(today, 15));
    const txid = aTxid('payload');
    const created = await v2(srv.url, token, 'PUT', `/cobv/${txid}`, {
      calendario: { dataDeVencimento: due, validadeAposVencimento: 10 },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: { original: '200.00', multa: { modalidade: 2, valorPerc: '2.00' }, juros: { modalidade: 1, valorPerc: '0.50' } },
      chave: srv.demo.pixKey,
    });
    expect(created.status, created.text).toBe(201);
    const late = await get(`${pathOf(created.json.location as string)}?DPP=${addCalendarDays(due, 2)}`);
    expect(late.status, late.text).toBe(200);
    const payload = await verified(late.text);
    expectBcbResponse('GET', '/cobv/{pixUrlAccessToken}', 200, payload);
    // 2 % of 200.00 once, and 0.50 for each of the two days
    expect(payload).toMatchObject({ txid, revisao: 0, status: 'ATIVA', valor: { original: '200.00', multa: '4.00', juros: '1.00', final: '205.00' } });
    // the account's receiver data (the demo account's, from its creation), as the charge carries it
    expect(payload.recebedor).toEqual({ cnpj: '11222333000181', nome: 'Demo Merchant Ltda', nomeFantasia: 'Demo Merchant', logradouro: 'Avenida Paulista, 1000', cidade: 'São Paulo', uf: 'SP', cep: '01310100' });
    expect(payload.recebedor).toEqual(created.json.recebedor);

    const cobTxid = aTxid('payloadcob');
    const cob = await v2(srv.url, token, 'PUT', `/cob/${cobTxid}`, { calendario: { expiracao: 600 }, valor: { original: '12.34' }, chave: srv.demo.pixKey });
    expect(cob.status, cob.text).toBe(201);
    const r = await get(pathOf(cob.json.location as string));
    expect(r.status, r.text).toBe(200);
    const cobPayload = await verified(r.text);
    expectBcbResponse('GET', '/{pixUrlAccessToken}', 200, cobPayload);
    expect(cobPayload).toMatchObject({ txid: cobTxid, revisao: 0, status: 'ATIVA', valor: { original: '12.34' }, calendario: { expiracao: 600, criacao: cob.json.calendario.criacao } });
  });
});
