import { beforeAll, describe, expect, it } from 'vitest';
import { readPixBrCode, verifyBrCodeCrc } from '../../server/domain/pix/brcode';
import { buildOpenApiDocument } from '../../server/openapi';
import { appRouter } from '../../server/routers';
import type { Services } from '../../server/services';
import { expectBcbResponse } from '../support/bcb-contract';
import { peek, peekDb } from '../support/peek';
import { aTxid, pixApiHarness, pixApiToken, v2, type OtherAccount } from '../support/pix-api-harness';
import { type RunningServer } from '../support/server';
import { callerFor } from '../support/services';

/**
 * The API Pix's immediate charges (/v2/cob) over HTTP against the running server, with a token from
 * POST /oauth/token: create (PUT, POST), read (and at a revision), revise, list; the bad input of
 * issue 26 refused with violacoes and nothing stored; scopes; another account's charge; two PUTs of
 * one txid at once. Every answer is checked against the yaml.
 */
const BASE = 'pix.example.com';
const harness = pixApiHarness({ env: { PIX_PUBLIC_BASE: BASE }, other: true });
let srv: RunningServer;
let beside: Services;
let token: string;
let other: OtherAccount;
beforeAll(() => ({ srv, side: beside, token, other } = harness));

const cobBody = (extra: Record<string, unknown> = {}) => ({
  calendario: { expiracao: 3600 },
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
  valor: { original: '123.45' },
  chave: srv.demo.pixKey,
  solicitacaoPagador: 'Serviço realizado.',
  infoAdicionais: [{ nome: 'Campo 1', valor: 'Informação Adicional1 do PSP-Recebedor' }],
  ...extra,
});

const stored = (txid: string) => peek(srv.databasePath, async (db) => (await db.all('SELECT txid FROM pix_charges WHERE txid = ?', txid)).length);

function expectBrCode(text: string, location: string) {
  expect(verifyBrCodeCrc(text)).toBe(true);
  const read = readPixBrCode(text);
  expect(read).toMatchObject({ url: location });
}

describe('PUT /v2/cob/{txid} and GET', () => {
  it('creates an ATIVA charge with a location and a dynamic BR Code; GET answers the same', async () => {
    const txid = aTxid('put');
    const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody());
    expect(r.status).toBe(201);
    expectBcbResponse('PUT', '/cob/{txid}', 201, r.json);
    expect(r.json).toMatchObject({
      txid, revisao: 0, status: 'ATIVA', chave: srv.demo.pixKey, valor: { original: '123.45' },
      calendario: { expiracao: 3600 }, devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      loc: { tipoCob: 'cob' },
    });
    expect(r.json.location).toMatch(new RegExp(`^${BASE}/qr/v2/[0-9a-f]{32}$`));
    expect(r.json.loc.location).toBe(r.json.location);
    expectBrCode(r.json.pixCopiaECola, r.json.location);
    const g = await v2(srv.url, token, 'GET', `/cob/${txid}`);
    expect(g.status).toBe(200);
    expectBcbResponse('GET', '/cob/{txid}', 200, g.json);
    expect(g.json).toEqual(r.json);
  });

  it('POST /v2/cob generates a txid of 32 [a-zA-Z0-9]; expiracao defaults to 86400', async () => {
    const body = cobBody();
    delete (body as Record<string, unknown>).calendario;
    const r = await v2(srv.url, token, 'POST', '/cob', { ...body, calendario: {} });
    expect(r.status).toBe(201);
    expectBcbResponse('POST', '/cob', 201, r.json);
    expect(r.json.txid).toMatch(/^[a-zA-Z0-9]{32}$/);
    expect(r.json.calendario.expiracao).toBe(86400);
  });

  it('a PUT of a txid already used is 400 CobOperacaoInvalida naming cob.txid', async () => {
    const txid = aTxid('dup');
    expect((await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody())).status).toBe(201);
    const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ valor: { original: '1.00' } }));
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/cob/{txid}', 400, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.txid', valor: txid })]);
    expect((await v2(srv.url, token, 'GET', `/cob/${txid}`)).json.valor.original).toBe('123.45');
  });

  it('two PUTs of one txid at once: one 201 and one 400, one charge stored', async () => {
    const txid = aTxid('race');
    const rs = await Promise.all([1, 2].map((i) => v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ valor: { original: `${i}.00` } }))));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(await stored(txid)).toBe(1);
  });

  it('another account\'s txid is 404 like an unknown one; GET, PATCH', async () => {
    const txid = aTxid('mine');
    expect((await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody())).status).toBe(201);
    for (const [method, body] of [['GET', undefined], ['PATCH', { valor: { original: '2.00' } }]] as const) {
      const r = await v2(srv.url, other.token, method, `/cob/${txid}`, body);
      expect(r.status).toBe(404);
      expectBcbResponse(method, '/cob/{txid}', 404, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado');
    }
    const unknown = await v2(srv.url, token, 'GET', `/cob/${aTxid('nobody')}`);
    expect(unknown.status).toBe(404);
  });

  it('a token without cob.write is 403 AcessoNegado; with cob.read it reads', async () => {
    const readOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'cob.read');
    const txid = aTxid('scope');
    const r = await v2(srv.url, readOnly, 'PUT', `/cob/${txid}`, cobBody());
    expect(r.status).toBe(403);
    expectBcbResponse('PUT', '/cob/{txid}', 403, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
    expect(await stored(txid)).toBe(0);
    const noRead = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'cobv.read');
    expect((await v2(srv.url, noRead, 'GET', '/cob?inicio=2020-01-01T00:00:00Z&fim=2100-01-01T00:00:00Z')).status).toBe(403);
  });
});

describe('bad input: 400 with violacoes naming the property and the value, nothing stored', () => {
  const cases: [string, (txid: string) => { path: string; body: unknown }, string, string | undefined][] = [
    ['txid too short', () => ({ path: '/cob/abc123', body: cobBody() }), 'cob.txid', 'abc123'],
    ['txid with -', () => ({ path: '/cob/abcdefghij-klmnopqrstuvwxyz0123', body: cobBody() }), 'cob.txid', 'abcdefghij-klmnopqrstuvwxyz0123'],
    ['amount "10"', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '10' } }) }), 'cob.valor.original', '10'],
    ['amount "10.5"', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '10.5' } }) }), 'cob.valor.original', '10.5'],
    ['amount "0.00"', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '0.00' } }) }), 'cob.valor.original', '0.00'],
    ['negative amount', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '-1.00' } }) }), 'cob.valor.original', '-1.00'],
    ['above the ceiling', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '1000000000.01' } }) }), 'cob.valor.original', '1000000000.01'],
    ['chave not the account\'s', (t) => ({ path: `/cob/${t}`, body: cobBody({ chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc' }) }), 'cob.chave', '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc'],
    ['devedor with cpf and cnpj', (t) => ({ path: `/cob/${t}`, body: cobBody({ devedor: { cpf: '12345678909', cnpj: '12345678000195', nome: 'X' } }) }), 'cob.devedor.cnpj', '12345678000195'],
    ['devedor with neither', (t) => ({ path: `/cob/${t}`, body: cobBody({ devedor: { nome: 'X' } }) }), 'cob.devedor.cpf', undefined],
    ['devedor with an invalid CPF', (t) => ({ path: `/cob/${t}`, body: cobBody({ devedor: { cpf: '12345678900', nome: 'X' } }) }), 'cob.devedor.cpf', '12345678900'],
    ['unknown field', (t) => ({ path: `/cob/${t}`, body: cobBody({ desconto: 1 }) }), 'cob.desconto', '1'],
    ['unknown field inside valor', (t) => ({ path: `/cob/${t}`, body: cobBody({ valor: { original: '1.00', multa: '1.00' } }) }), 'cob.valor.multa', '1.00'],
    ['expiracao zero', (t) => ({ path: `/cob/${t}`, body: cobBody({ calendario: { expiracao: 0 } }) }), 'cob.calendario.expiracao', '0'],
    ['expiracao as a string', (t) => ({ path: `/cob/${t}`, body: cobBody({ calendario: { expiracao: '3600' } }) }), 'cob.calendario.expiracao', '3600'],
  ];
  it.each(cases)('%s', async (_what, make, propriedade, valor) => {
    const txid = aTxid('bad');
    const { path, body } = make(txid);
    const r = await v2(srv.url, token, 'PUT', path, body);
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/cob/{txid}', 400, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    expect(r.json.violacoes).toEqual(expect.arrayContaining([expect.objectContaining({ propriedade, ...(valor === undefined ? {} : { valor }) })]));
    expect(await stored(path.slice('/cob/'.length))).toBe(0);
  });
});

describe('numbers stay numbers', () => {
  it('after /openapi.json is built (trpc-to-openapi sets coerce on the schemas it reads), "3600" is still refused', async () => {
    expect((await fetch(`${srv.url}/openapi.json`)).status).toBe(200);
    const txid = aTxid('coerce');
    const r = await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody({ calendario: { expiracao: '3600' } }));
    expect(r.status).toBe(400);
    expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cob.calendario.expiracao', valor: '3600' })]);
    buildOpenApiDocument(appRouter, ''); // in this process too, for the tRPC path
    const viaTrpc = callerFor(beside, srv.demo.accountId, 'session');
    await expect(viaTrpc.pixCharges.putCob({ txid, ...cobBody({ calendario: { expiracao: '3600' } }) } as never)).rejects.toThrow();
  });
});

describe('PATCH /v2/cob/{txid}', () => {
  it('revises (revisao + 1), keeps each revision (GET ?revisao=n), and removes; a removed charge is not revised again', async () => {
    const txid = aTxid('rev');
    const created = (await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody())).json;
    const p = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, { valor: { original: '200.00' }, solicitacaoPagador: 'Revisado' });
    expect(p.status).toBe(200);
    expectBcbResponse('PATCH', '/cob/{txid}', 200, p.json);
    expect(p.json).toMatchObject({ revisao: 1, valor: { original: '200.00' }, solicitacaoPagador: 'Revisado', status: 'ATIVA', location: created.location });
    const r0 = await v2(srv.url, token, 'GET', `/cob/${txid}?revisao=0`);
    expectBcbResponse('GET', '/cob/{txid}', 200, r0.json);
    expect(r0.json).toEqual(created);
    const rm = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(rm.status).toBe(200);
    expect(rm.json).toMatchObject({ revisao: 2, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const again = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, { valor: { original: '3.00' } });
    expect(again.status).toBe(400);
    expectBcbResponse('PATCH', '/cob/{txid}', 400, again.json);
    expect(again.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    expect((await v2(srv.url, token, 'GET', `/cob/${txid}`)).json.revisao).toBe(2);
  });

  it('a CONCLUIDA charge is never revised: 400, and the row is unchanged', async () => {
    const txid = aTxid('paid');
    await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody());
    // paying is another helper's: mark it paid in the database as the pay would
    const w = peekDb(srv.databasePath, { write: true });
    try { await w.all(`UPDATE pix_charges SET status = 'CONCLUIDA' WHERE txid = ?`, txid); } finally { await w.close(); }
    const r = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, { valor: { original: '5.00' } });
    expect(r.status).toBe(400);
    expectBcbResponse('PATCH', '/cob/{txid}', 400, r.json);
    const g = await v2(srv.url, token, 'GET', `/cob/${txid}`);
    expect(g.json).toMatchObject({ status: 'CONCLUIDA', revisao: 0, valor: { original: '123.45' } });
  });

  it('refuses bad input in a revision, naming the property, and changes nothing', async () => {
    const txid = aTxid('revbad');
    await v2(srv.url, token, 'PUT', `/cob/${txid}`, cobBody());
    for (const [body, propriedade] of [
      [{ valor: { original: '10.5' } }, 'cob.valor.original'],
      [{ chave: 'nao-e-minha@example.com' }, 'cob.chave'],
      [{ status: 'CONCLUIDA' }, 'cob.status'],
      [{ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', valor: { original: '1.00' } }, 'cob.status'],
    ] as const) {
      const r = await v2(srv.url, token, 'PATCH', `/cob/${txid}`, body);
      expect(r.status).toBe(400);
      expectBcbResponse('PATCH', '/cob/{txid}', 400, r.json);
      expect(r.json.violacoes).toEqual(expect.arrayContaining([expect.objectContaining({ propriedade })]));
    }
    expect((await v2(srv.url, token, 'GET', `/cob/${txid}`)).json).toMatchObject({ revisao: 0, status: 'ATIVA' });
  });
});

describe('GET /v2/cob', () => {
  it('lists the account\'s charges created in [inicio, fim], with filters and paging', async () => {
    const other0 = await v2(srv.url, other.token, 'PUT', `/cob/${aTxid('oth')}`, { ...cobBody(), chave: (await beside.db.read.pixKeys.liveKeys(other.accountId))[0].key });
    expect(other0.status).toBe(201);
    const txids = [aTxid('l1'), aTxid('l2'), aTxid('l3')];
    let inicio = '';
    for (const [i, t] of txids.entries()) {
      const devedor = i === 2 ? { cnpj: '12345678000195', nome: 'Empresa' } : { cpf: '12345678909', nome: 'Pessoa' };
      const made = await v2(srv.url, token, 'PUT', `/cob/${t}`, cobBody({ devedor }));
      expect(made.status).toBe(201);
      if (i === 0) inicio = made.json.calendario.criacao;
    }
    await v2(srv.url, token, 'PATCH', `/cob/${txids[1]}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    const fim = new Date(Date.now() + 1000).toISOString();
    const q = (extra = '') => v2(srv.url, token, 'GET', `/cob?inicio=${inicio}&fim=${fim}${extra}`);
    const all = await q();
    expect(all.status).toBe(200);
    expectBcbResponse('GET', '/cob', 200, all.json);
    expect(all.json.cobs.map((c: { txid: string }) => c.txid)).toEqual(txids);
    expect(all.json.parametros).toEqual({ inicio, fim, paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 3 } });
    expect((await q('&cnpj=12345678000195')).json.cobs.map((c: { txid: string }) => c.txid)).toEqual([txids[2]]);
    expect((await q('&status=REMOVIDA_PELO_USUARIO_RECEBEDOR')).json.cobs.map((c: { txid: string }) => c.txid)).toEqual([txids[1]]);
    expect((await q('&locationPresente=false')).json.cobs).toEqual([]);
    const page = await q('&paginacao.paginaAtual=1&paginacao.itensPorPagina=2');
    expectBcbResponse('GET', '/cob', 200, page.json);
    expect(page.json.cobs.map((c: { txid: string }) => c.txid)).toEqual([txids[2]]);
    expect(page.json.parametros.paginacao).toEqual({ paginaAtual: 1, itensPorPagina: 2, quantidadeDePaginas: 2, quantidadeTotalDeItens: 3 });
    const bad = await q('&status=PAGA');
    expect(bad.status).toBe(400);
    expect(bad.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobConsultaInvalida');
    expect((await v2(srv.url, token, 'GET', `/cob?fim=${fim}`)).status).toBe(400);
  });
});

describe('tRPC (createCaller, a dashboard session)', () => {
  it('creates and lists through the same procedures', async () => {
    const caller = callerFor(beside, srv.demo.accountId, 'session');
    const txid = aTxid('trpc');
    const made = await caller.pixCharges.putCob({ txid, ...cobBody() });
    expect(made).toMatchObject({ txid, status: 'ATIVA', revisao: 0 });
    expectBcbResponse('PUT', '/cob/{txid}', 201, made);
    const list = await caller.pixCharges.listCobs({ inicio: '2020-01-01T00:00:00Z', fim: '2100-01-01T00:00:00Z' } as never);
    expect(list.cobs.some((c) => c.txid === txid)).toBe(true);
    await expect(caller.pixCharges.putCob({ txid: aTxid('t2'), ...cobBody({ valor: { original: '10' } }) })).rejects.toThrow();
  });
});
