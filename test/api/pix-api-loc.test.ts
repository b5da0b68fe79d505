import { beforeAll, describe, expect, it } from 'vitest';
import { readPixBrCode } from '../../server/domain/pix/brcode';
import { expectBcbResponse } from '../support/bcb-contract';
import { peek } from '../support/peek';
import { aTxid, pixApiHarness, pixApiToken, v2, type OtherAccount } from '../support/pix-api-harness';
import { type RunningServer } from '../support/server';

/**
 * Payload locations of the API Pix (/v2/loc) over HTTP against the running server: created alone and
 * bound by a charge's `loc.id` (the account's, of the kind, free: else 400 naming cob.loc.id), read,
 * listed with their filters, and unlinked (the location loses its txid, the charge its location, its
 * status unchanged). Every answer checked against the yaml.
 */
const BASE = 'pix.example.com';
const harness = pixApiHarness({ env: { PIX_PUBLIC_BASE: BASE }, other: true });
let srv: RunningServer;
let token: string;
let other: OtherAccount;
beforeAll(() => ({ srv, token, other } = harness));

const cobBody = (extra: Record<string, unknown> = {}) => ({ calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave: srv.demo.pixKey, ...extra });

async function newLoc(tipoCob: 'cob' | 'cobv', t = token) {
  const r = await v2(srv.url, t, 'POST', '/loc', { tipoCob });
  expect(r.status).toBe(201);
  expectBcbResponse('POST', '/loc', 201, r.json);
  return r.json as { id: number; location: string; tipoCob: string; criacao: string };
}

describe('POST /v2/loc, GET /v2/loc/{id}', () => {
  it('creates an unbound location of the type; GET shows it without txid; another account\'s is 404', async () => {
    const loc = await newLoc('cob');
    expect(loc.location).toMatch(new RegExp(`^${BASE}/qr/v2/[0-9a-f]{32}$`));
    const cobv = await newLoc('cobv');
    expect(cobv.location).toMatch(new RegExp(`^${BASE}/qr/v2/cobv/[0-9a-f]{32}$`));
    const g = await v2(srv.url, token, 'GET', `/loc/${loc.id}`);
    expect(g.status).toBe(200);
    expectBcbResponse('GET', '/loc/{id}', 200, g.json);
    expect(g.json).toEqual(loc);
    for (const path of [`/loc/${loc.id}`, '/loc/999999', '/loc/abc']) {
      const r = await v2(srv.url, path === `/loc/${loc.id}` ? other.token : token, 'GET', path);
      expect(r.status).toBe(404);
      expectBcbResponse('GET', '/loc/{id}', 404, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/PayloadLocationNaoEncontrado');
    }
  });

  it('refuses a tipoCob that is not cob or cobv, and a token without payloadlocation.write', async () => {
    const r = await v2(srv.url, token, 'POST', '/loc', { tipoCob: 'cobr' });
    expect(r.status).toBe(400);
    expectBcbResponse('POST', '/loc', 400, r.json);
    expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'tipoCob', valor: 'cobr' })]);
    const readOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'payloadlocation.read');
    const denied = await v2(srv.url, readOnly, 'POST', '/loc', { tipoCob: 'cob' });
    expect(denied.status).toBe(403);
    expectBcbResponse('POST', '/loc', 403, denied.json);
  });
});

describe('a charge with loc.id', () => {
  it('binds the location: the charge answers it, the BR Code names it, GET /loc shows the txid', async () => {
    const loc = await newLoc('cob');
    const txid = aTxid('bind');
    const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ loc: { id: loc.id } }));
    expect(r.status).toBe(201);
    expectBcbResponse('PUT', '/cob/{txid}', 201, r.json);
    expect(r.json.loc).toEqual(loc);
    expect(r.json.location).toBe(loc.location);
    expect(readPixBrCode(r.json.pixCopiaECola)).toMatchObject({ url: loc.location });
    const g = await v2(srv.url, token, 'GET', `/loc/${loc.id}`);
    expect(g.json).toEqual({ ...loc, txid });
  });

  it('refuses (400 naming cob.loc.id, nothing stored) a location bound to another charge, of the other type, another account\'s, unknown', async () => {
    const bound = await newLoc('cob');
    expect((await v2(srv.url, token, 'PUT', `/cob/${aTxid('first')}`, cobBody({ loc: { id: bound.id } }))).status).toBe(201);
    const cobvLoc = await newLoc('cobv');
    const theirs = await newLoc('cob', other.token);
    for (const id of [bound.id, cobvLoc.id, theirs.id, 99999999]) {
      const txid = aTxid('refused');
      const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ loc: { id } }));
      expect(r.status).toBe(400);
      expectBcbResponse('PUT', '/cob/{txid}', 400, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
      expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.loc.id', valor: String(id) })]);
      expect(await peek(srv.databasePath, (db) => db.all('SELECT 1 FROM pix_charges WHERE txid = ?', txid))).toEqual([]);
    }
  });

  it('refuses a loc.tipoCob other than the charge\'s', async () => {
    const loc = await newLoc('cob');
    const txid = aTxid('tipo');
    const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ loc: { id: loc.id, tipoCob: 'cobv' } }));
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/cob/{txid}', 400, r.json);
    expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.loc.tipoCob', valor: 'cobv' })]);
    expect((await v2(srv.url, token, 'GET', `/loc/${loc.id}`)).json.txid).toBeUndefined();
  });

  it('two charges racing for one location: one binds it, the other is refused', async () => {
    const loc = await newLoc('cob');
    const rs = await Promise.all([aTxid('ra'), aTxid('rb')].map((t) => v2(srv.url, token, 'PUT', `/cob/${t}`, cobBody({ loc: { id: loc.id } }))));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 400]);
    const rows = await peek(srv.databasePath, (db) => db.all('SELECT txid FROM pix_charges WHERE loc_id = ?', loc.id));
    expect(rows).toHaveLength(1);
  });
});

describe('PATCH with loc.id', () => {
  it('moves the charge to the new location and frees the old one', async () => {
    const txid = aTxid('move');
    const made = (await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody())).json;
    const next = await newLoc('cob');
    const r = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, { loc: { id: next.id } });
    expect(r.status).toBe(200);
    expectBcbResponse('PATCH', '/cob/{txid}', 200, r.json);
    expect(r.json).toMatchObject({ revisao: 1, loc: next, location: next.location });
    expect(readPixBrCode(r.json.pixCopiaECola)).toMatchObject({ url: next.location });
    expect((await v2(srv.url, token, 'GET', `/loc/${made.loc.id}`)).json.txid).toBeUndefined();
    expect((await v2(srv.url, token, 'GET', `/loc/${next.id}`)).json.txid).toBe(txid);
  });
});

describe('DELETE /v2/loc/{id}/txid', () => {
  it('the location loses its txid, the charge its location (status unchanged); 404 for another account', async () => {
    const txid = aTxid('unlink');
    const made = (await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody())).json;
    const id = made.loc.id;
    expect((await v2(srv.url, other.token, 'DELETE', `/loc/${id}/txid`)).status).toBe(404);
    const r = await v2(srv.url, token, 'DELETE', `/loc/${id}/txid`);
    expect(r.status).toBe(200);
    expectBcbResponse('DELETE', '/loc/{id}/txid', 200, r.json);
    expect(r.json).toEqual(made.loc);
    const loc = await v2(srv.url, token, 'GET', `/loc/${id}`);
    expect(loc.json.txid).toBeUndefined();
    const cob = await v2(srv.url, token, 'GET', `/cob/${txid}`);
    expectBcbResponse('GET', '/cob/{txid}', 200, cob.json);
    expect(cob.json).toMatchObject({ txid, status: 'ATIVA' });
    expect(cob.json.loc).toBeUndefined();
    expect(cob.json.location).toBeUndefined();
    expect(cob.json.pixCopiaECola).toBeUndefined();
    // the freed location can serve another charge
    const again = await v2(srv.url, token, 'PUT', `/cob/${aTxid('reuse')}`, cobBody({ loc: { id } }));
    expect(again.status).toBe(201);
  });
});

describe('GET /v2/loc', () => {
  it('lists the account\'s locations in [inicio, fim] with txIdPresente, tipoCob and paging', async () => {
    const a = await newLoc('cob');
    const b = await newLoc('cobv');
    const c = await v2(srv.url, token, 'PUT', `/cob/${aTxid('lst')}`, cobBody());
    const fim = new Date(Date.now() + 1000).toISOString();
    const q = (extra = '') => v2(srv.url, token, 'GET', `/loc?inicio=${a.criacao}&fim=${fim}${extra}`);
    const all = await q();
    expect(all.status).toBe(200);
    expectBcbResponse('GET', '/loc', 200, all.json);
    expect(all.json.loc.map((l: { id: number }) => l.id)).toEqual([a.id, b.id, c.json.loc.id]);
    expect(all.json.parametros.paginacao).toEqual({ paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 3 });
    expect((await q('&tipoCob=cobv')).json.loc.map((l: { id: number }) => l.id)).toEqual([b.id]);
    expect((await q('&txIdPresente=true')).json.loc.map((l: { id: number }) => l.id)).toEqual([c.json.loc.id]);
    const page = await q('&paginacao.paginaAtual=1&paginacao.itensPorPagina=2');
    expectBcbResponse('GET', '/loc', 200, page.json);
    expect(page.json.loc.map((l: { id: number }) => l.id)).toEqual([c.json.loc.id]);
    expect((await v2(srv.url, other.token, 'GET', `/loc?inicio=${a.criacao}&fim=${fim}`)).json.loc).toEqual([]);
    const bad = await q('&tipoCob=x');
    expect(bad.status).toBe(400);
    expect(bad.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/PayloadLocationConsultaInvalida');
  });
});
