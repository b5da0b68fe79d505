import { beforeAll, describe, expect, it } from 'vitest';
import { localDay } from '../../server/domain/local-time';
import { readPixBrCode, verifyBrCodeCrc } from '../../server/domain/pix/brcode';
import type { Services } from '../../server/services';
import { expectBcbResponse } from '../support/bcb-contract';
import { peek } from '../support/peek';
import { aTxid, pixApiHarness, pixApiToken, v2, type OtherAccount } from '../support/pix-api-harness';
import { type RunningServer } from '../support/server';
import { callerFor } from '../support/services';

/**
 * The API Pix's charges with a due date (/v2/cobv) over HTTP against the running server: create, read
 * (and at a revision), revise, remove, list; the bad input of issue 26 refused with violacoes and nothing
 * stored; scopes; another account's charge; two PUTs of one txid at once. Every answer checked against the yaml.
 */
const BASE = 'pix.example.com';
const harness = pixApiHarness({ env: { PIX_PUBLIC_BASE: BASE }, other: true });
let srv: RunningServer;
let beside: Services;
let token: string;
let other: OtherAccount;
beforeAll(() => ({ srv, side: beside, token, other } = harness));

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const cobvBody = (extra: Record<string, unknown> = {}, valor: Record<string, unknown> = {}) => ({
  calendario: { dataDeVencimento: future(30), validadeAposVencimento: 30 },
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva', logradouro: 'Rua 15, 123', cidade: 'Cidade', uf: 'SP', cep: '70800100' },
  valor: {
    original: '567.89',
    multa: { modalidade: 2, valorPerc: '15.00' },
    juros: { modalidade: 2, valorPerc: '2.00' },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: future(20), valorPerc: '30.00' }] },
    ...valor,
  },
  chave: srv.demo.pixKey,
  solicitacaoPagador: 'Cobrança dos serviços prestados.',
  ...extra,
});

const stored = (txid: string) => peek(srv.databasePath, async (db) => (await db.all('SELECT txid FROM pix_charges WHERE txid = ?', txid)).length);

describe('PUT /v2/cobv/{txid} and GET', () => {
  it('creates an ATIVA cobv with a cobv location, the recebedor and a dynamic BR Code; GET answers the same', async () => {
    const txid = aTxid('cobv');
    const r = await v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody());
    expect(r.status).toBe(201);
    expectBcbResponse('PUT', '/cobv/{txid}', 201, r.json);
    expect(r.json).toMatchObject({
      txid, revisao: 0, status: 'ATIVA', chave: srv.demo.pixKey,
      calendario: { dataDeVencimento: future(30), validadeAposVencimento: 30 },
      valor: { original: '567.89', multa: { modalidade: 2, valorPerc: '15.00' } },
      loc: { tipoCob: 'cobv' }, recebedor: { cnpj: '11222333000181', nome: 'Demo Merchant Ltda', logradouro: 'Avenida Paulista, 1000', cidade: 'São Paulo', uf: 'SP', cep: '01310100' },
    });
    expect(r.json.location).toMatch(new RegExp(`^${BASE}/qr/v2/cobv/[0-9a-f]{32}$`));
    expect(verifyBrCodeCrc(r.json.pixCopiaECola)).toBe(true);
    expect(readPixBrCode(r.json.pixCopiaECola)).toMatchObject({ url: r.json.location });
    const g = await v2(srv.url, token, 'GET', `/cobv/${txid}`);
    expect(g.status).toBe(200);
    expectBcbResponse('GET', '/cobv/{txid}', 200, g.json);
    expect(g.json).toEqual(r.json);
    // a cob's txid is not a cobv's
    expect((await v2(srv.url, token, 'GET', `/cob/${txid}`)).status).toBe(404);
  });

  it('expires_at is the end (São Paulo) of the last day it can be paid', async () => {
    const txid = aTxid('exp');
    // a Wednesday, no holiday: 2099-07-15 + 3 days = Saturday 18th → Monday 20th
    await v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody({ calendario: { dataDeVencimento: '2099-07-15', validadeAposVencimento: 3 } }, { desconto: undefined }));
    const row = await peek(srv.databasePath, (db) => db.get<{ expires_at: string; due_date: string }>('SELECT expires_at, due_date FROM pix_charges WHERE txid = ?', txid));
    expect(row).toMatchObject({ due_date: '2099-07-15' });
    expect(new Date(row!.expires_at).toISOString()).toBe('2099-07-21T03:00:00.000Z');
  });

  it('two PUTs of one txid at once: one 201 and one 400, one charge stored', async () => {
    const txid = aTxid('race');
    const rs = await Promise.all([1, 2].map((i) => v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody({}, { original: `${i}00.00` }))));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 400]);
    const refused = rs.find((r) => r.status === 400)!;
    expectBcbResponse('PUT', '/cobv/{txid}', 400, refused.json);
    expect(refused.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida');
    expect(await stored(txid)).toBe(1);
  });

  it('another account\'s txid is 404 CobVNaoEncontrada', async () => {
    const txid = aTxid('mine');
    expect((await v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody())).status).toBe(201);
    for (const [method, body] of [['GET', undefined], ['PATCH', { valor: { original: '2.00' } }]] as const) {
      const r = await v2(srv.url, other.token, method, `/cobv/${txid}`, body);
      expect(r.status).toBe(404);
      expectBcbResponse(method, '/cobv/{txid}', 404, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVNaoEncontrada');
    }
  });

  it('a token without cobv.write is 403 AcessoNegado, nothing stored', async () => {
    const cobOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'cob.write cobv.read');
    const txid = aTxid('scope');
    const r = await v2(srv.url, cobOnly, 'PUT', `/cobv/${txid}`, cobvBody());
    expect(r.status).toBe(403);
    expectBcbResponse('PUT', '/cobv/{txid}', 403, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
    expect(await stored(txid)).toBe(0);
  });
});

describe('bad input: 400 with violacoes naming the property and the value, nothing stored', () => {
  const yesterday = localDay(new Date(Date.now() - 86_400_000));
  const cases: [string, () => Record<string, unknown>, string, string | undefined][] = [
    ['amount "10"', () => cobvBody({}, { original: '10' }), 'cobv.valor.original', '10'],
    ['amount "10.5"', () => cobvBody({}, { original: '10.5' }), 'cobv.valor.original', '10.5'],
    ['amount "0.00"', () => cobvBody({}, { original: '0.00' }), 'cobv.valor.original', '0.00'],
    ['negative amount', () => cobvBody({}, { original: '-5.00' }), 'cobv.valor.original', '-5.00'],
    ['above the ceiling', () => cobvBody({}, { original: '1000000000.01' }), 'cobv.valor.original', '1000000000.01'],
    ['multa modalidade out of range', () => cobvBody({}, { multa: { modalidade: 3, valorPerc: '1.00' } }), 'cobv.valor.multa.modalidade', '3'],
    ['juros modalidade out of range', () => cobvBody({}, { juros: { modalidade: 9, valorPerc: '1.00' } }), 'cobv.valor.juros.modalidade', '9'],
    ['desconto modalidade 0', () => cobvBody({}, { desconto: { modalidade: 0, valorPerc: '1.00' } }), 'cobv.valor.desconto.modalidade', '0'],
    ['a valorPerc that is not a percentage', () => cobvBody({}, { multa: { modalidade: 2, valorPerc: '150.00' } }), 'cobv.valor.multa.valorPerc', '150.00'],
    ['a desconto percentage of 100', () => cobvBody({}, { desconto: { modalidade: 5, valorPerc: '100.00' } }), 'cobv.valor.desconto.valorPerc', '100.00'],
    ['due date in the past', () => cobvBody({ calendario: { dataDeVencimento: yesterday } }, { desconto: undefined }), 'cobv.calendario.dataDeVencimento', yesterday],
    ['validadeAposVencimento negative', () => cobvBody({ calendario: { dataDeVencimento: future(30), validadeAposVencimento: -1 } }), 'cobv.calendario.validadeAposVencimento', '-1'],
    ['chave not the account\'s', () => cobvBody({ chave: 'alguem@example.com' }), 'cobv.chave', 'alguem@example.com'],
    ['devedor with cpf and cnpj', () => cobvBody({ devedor: { cpf: '12345678909', cnpj: '12345678000195', nome: 'X' } }), 'cobv.devedor.cnpj', '12345678000195'],
    ['devedor with neither', () => cobvBody({ devedor: { nome: 'X' } }), 'cobv.devedor.cpf', undefined],
    ['no devedor', () => ({ ...cobvBody(), devedor: undefined }), 'cobv.devedor', undefined],
    ['unknown field', () => cobvBody({ expiracao: 10 }), 'cobv.expiracao', '10'],
    ['unknown field in calendario', () => cobvBody({ calendario: { dataDeVencimento: future(30), expiracao: 10 } }), 'cobv.calendario.expiracao', '10'],
  ];
  it.each(cases)('%s', async (_what, make, propriedade, valor) => {
    const txid = aTxid('bad');
    const r = await v2(srv.url, token, 'PUT', `/cobv/${txid}`, make());
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/cobv/{txid}', 400, r.json);
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida');
    expect(r.json.violacoes).toEqual(expect.arrayContaining([expect.objectContaining({ propriedade, ...(valor === undefined ? {} : { valor }) })]));
    expect(await stored(txid)).toBe(0);
  });

  it('a txid too short or with "-"', async () => {
    for (const txid of ['abc', 'abcdefghij-klmnopqrstuvwxyz0123']) {
      const r = await v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody());
      expect(r.status).toBe(400);
      expectBcbResponse('PUT', '/cobv/{txid}', 400, r.json);
      expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cobv.txid', valor: txid })]);
    }
  });
});

describe('PATCH /v2/cobv/{txid}', () => {
  it('revises, keeps each revision, judges the merged charge again, and removes', async () => {
    const txid = aTxid('rev');
    const created = (await v2(srv.url, token, 'PUT', `/cobv/${txid}`, cobvBody())).json;
    const p = await v2(srv.url, token, 'PATCH', `/cobv/${txid}`, { valor: { original: '600.00' }, calendario: { dataDeVencimento: future(40) } });
    expect(p.status).toBe(200);
    expectBcbResponse('PATCH', '/cobv/{txid}', 200, p.json);
    expect(p.json).toMatchObject({ revisao: 1, valor: { original: '600.00', multa: { modalidade: 2, valorPerc: '15.00' } }, calendario: { dataDeVencimento: future(40) } });
    // an abatimento at or above the original, once merged, is refused
    const bad = await v2(srv.url, token, 'PATCH', `/cobv/${txid}`, { valor: { abatimento: { modalidade: 1, valorPerc: '600.00' } } });
    expect(bad.status).toBe(400);
    expectBcbResponse('PATCH', '/cobv/{txid}', 400, bad.json);
    expect(bad.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'cobv.valor.abatimento' })]);
    const r0 = await v2(srv.url, token, 'GET', `/cobv/${txid}?revisao=0`);
    expectBcbResponse('GET', '/cobv/{txid}', 200, r0.json);
    expect(r0.json).toEqual(created);
    const rm = await v2(srv.url, token, 'PATCH', `/cobv/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(rm.status).toBe(200);
    expect(rm.json).toMatchObject({ revisao: 2, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect((await v2(srv.url, token, 'PATCH', `/cobv/${txid}`, { solicitacaoPagador: 'x' })).status).toBe(400);
  });
});

describe('GET /v2/cobv and tRPC', () => {
  it('lists the account\'s cobv in [inicio, fim]; the same through createCaller', async () => {
    const a = aTxid('la');
    const made = await v2(srv.url, token, 'PUT', `/cobv/${a}`, cobvBody());
    const inicio = made.json.calendario.criacao;
    const caller = callerFor(beside, srv.demo.accountId, 'session');
    const b = aTxid('lb');
    const viaTrpc = await caller.pixCharges.putCobv({ txid: b, ...cobvBody() });
    expectBcbResponse('PUT', '/cobv/{txid}', 201, viaTrpc);
    const fim = new Date(Date.now() + 1000).toISOString();
    const list = await v2(srv.url, token, 'GET', `/cobv?inicio=${inicio}&fim=${fim}`);
    expect(list.status).toBe(200);
    expectBcbResponse('GET', '/cobv', 200, list.json);
    expect(list.json.cobs.map((c: { txid: string }) => c.txid)).toEqual([a, b]);
    const viaCaller = await caller.pixCharges.listCobvs({ inicio, fim } as never);
    expect(viaCaller.cobs.map((c) => c.txid)).toEqual([a, b]);
    expect((await v2(srv.url, other.token, 'GET', `/cobv?inicio=${inicio}&fim=${fim}`)).json.cobs).toEqual([]);
  });
});
