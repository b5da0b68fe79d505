import { beforeAll, describe, expect, it } from 'vitest';
import { addPixKey } from '../../server/domain/pix-api/keys';
import type { Services } from '../../server/services';
import { expectBcbResponse } from '../support/bcb-contract';
import { peek } from '../support/peek';
import { aTxid, pixApiHarness, pixApiToken, v2, type OtherAccount } from '../support/pix-api-harness';
import { type RunningServer } from '../support/server';
import { callerFor } from '../support/services';

/**
 * Lotes of cobv of the API Pix (/v2/lotecobv) over HTTP against the running server: a lote creates each of
 * its charges by PUT /cobv's rules (a refused one NEGADA with its problema, the others created); a lote id
 * is used once; PATCH revises charges of the lote by PATCH /cobv's rules; GET and the list; scopes; another
 * account's lote; bad input refused whole with nothing stored; two PUTs of one id at once. Every answer
 * checked against the yaml.
 */
const harness = pixApiHarness({ env: { PIX_PUBLIC_BASE: 'pix.example.com' }, other: true });
let srv: RunningServer;
let beside: Services;
let token: string;
let other: OtherAccount;
beforeAll(async () => {
  ({ srv, side: beside, token, other } = harness);
  // the yaml's recebedor needs the account's document: accounts have none but their CPF/CNPJ Pix keys
  await addPixKey(beside, srv.demo.accountId, { key_type: 'CNPJ', key: '11222333000181' });
});

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
let lastId = 0;
const aLoteId = () => String(++lastId);

const cobvItem = (txid: string, extra: Record<string, unknown> = {}) => ({
  txid,
  calendario: { dataDeVencimento: future(30), validadeAposVencimento: 30 },
  devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
  valor: { original: '100.00', multa: { modalidade: 2, valorPerc: '2.00' } },
  chave: srv.demo.pixKey,
  solicitacaoPagador: 'Informar matrícula',
  ...extra,
});

const storedCharges = (txids: string[]) => peek(srv.databasePath, async (db) => (await db.all<{ txid: string; batch_id: number }>(
  `SELECT txid, batch_id FROM pix_charges WHERE txid IN (${txids.map(() => '?').join(', ')}) ORDER BY txid`, ...txids)));
const storedLotes = (id: string) => peek(srv.databasePath, async (db) => Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM pix_cobv_batches WHERE id = ?', Number(id)))!.n));

const TYPE = 'https://pix.bcb.gov.br/api/v2/error/';

describe('PUT /v2/lotecobv/{id}', () => {
  it('creates the valid charges and refuses the invalid one (NEGADA with its problema); GET /cobv finds the created ones', async () => {
    const id = aLoteId();
    const txids = [aTxid('la'), aTxid('lb'), aTxid('lc'), aTxid('ld')];
    const body = {
      descricao: 'Cobranças dos alunos do turno vespertino',
      cobsv: [cobvItem(txids[0]), cobvItem(txids[1]), cobvItem(txids[2], { chave: 'alguem@example.com' }), cobvItem(txids[3], { valor: { original: '250.00' } })],
    };
    const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, body);
    expect(r.status).toBe(202);
    expectBcbResponse('PUT', '/lotecobv/{id}', 202, r.json);
    for (const t of [txids[0], txids[1], txids[3]]) {
      const g = await v2(srv.url, token, 'GET', `/cobv/${t}`);
      expect(g.status).toBe(200);
      expectBcbResponse('GET', '/cobv/{txid}', 200, g.json);
      expect(g.json).toMatchObject({ txid: t, status: 'ATIVA', revisao: 0, recebedor: { cnpj: '11222333000181' } });
    }
    expect((await v2(srv.url, token, 'GET', `/cobv/${txids[2]}`)).status).toBe(404);
    expect(await storedCharges(txids)).toEqual([txids[0], txids[1], txids[3]].sort().map((txid) => ({ txid, batch_id: Number(id) })));

    const g = await v2(srv.url, token, 'GET', `/lotecobv/${id}`);
    expect(g.status).toBe(200);
    expectBcbResponse('GET', '/lotecobv/{id}', 200, g.json);
    expect(g.json).toMatchObject({ id: Number(id), descricao: body.descricao, criacao: expect.any(String) });
    const byTxid = Object.fromEntries(g.json.cobsv.map((c: { txid: string }) => [c.txid, c]));
    expect(Object.keys(byTxid).sort()).toEqual([...txids].sort());
    for (const t of [txids[0], txids[1], txids[3]]) expect(byTxid[t]).toEqual({ txid: t, status: 'CRIADA', criacao: expect.any(String) });
    expect(byTxid[txids[2]]).toEqual({
      txid: txids[2], status: 'NEGADA',
      problema: expect.objectContaining({
        type: `${TYPE}CobVOperacaoInvalida`, status: 400,
        violacoes: [expect.objectContaining({ propriedade: 'cobv.chave', valor: 'alguem@example.com' })],
      }),
    });
    // GET /cobv?loteCobVId= lists the lote's charges
    const list = await v2(srv.url, token, 'GET', `/cobv?inicio=${g.json.criacao}&fim=${new Date(Date.now() + 1000).toISOString()}&loteCobVId=${id}`);
    expect(list.status).toBe(200);
    expect(list.json.cobs.map((c: { txid: string }) => c.txid).sort()).toEqual([txids[0], txids[1], txids[3]].sort());
  });

  it('a charge whose txid is already used, or whose due date has passed, is NEGADA; the others are created', async () => {
    const used = aTxid('used');
    expect((await v2(srv.url, token, 'PUT', `/cobv/${used}`, (({ txid: _, ...b }) => b)(cobvItem(used)))).status).toBe(201);
    const id = aLoteId();
    const fresh = aTxid('fresh');
    const late = aTxid('late');
    const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, {
      descricao: 'misto',
      cobsv: [cobvItem(used), cobvItem(fresh), cobvItem(late, { calendario: { dataDeVencimento: '2020-01-10' } })],
    });
    expect(r.status).toBe(202);
    const g = await v2(srv.url, token, 'GET', `/lotecobv/${id}`);
    expectBcbResponse('GET', '/lotecobv/{id}', 200, g.json);
    const byTxid = Object.fromEntries(g.json.cobsv.map((c: { txid: string }) => [c.txid, c]));
    expect(byTxid[used]).toMatchObject({ status: 'NEGADA', problema: { violacoes: [expect.objectContaining({ propriedade: 'cobv.txid' })] } });
    expect(byTxid[late]).toMatchObject({ status: 'NEGADA', problema: { violacoes: [expect.objectContaining({ propriedade: 'cobv.calendario.dataDeVencimento', valor: '2020-01-10' })] } });
    expect(byTxid[fresh]).toMatchObject({ status: 'CRIADA' });
    // the charge created by PUT /cobv stays outside the lote
    expect(await storedCharges([used])).toEqual([{ txid: used, batch_id: 0 }]);
  });

  it('a lote id used again with other charges is 400 LoteCobVOperacaoInvalida, nothing more stored', async () => {
    const id = aLoteId();
    const first = aTxid('first');
    expect((await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'um', cobsv: [cobvItem(first)] })).status).toBe(202);
    const again = aTxid('again');
    const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'dois', cobsv: [cobvItem(again)] });
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/lotecobv/{id}', 400, r.json);
    expect(r.json.type).toBe(`${TYPE}LoteCobVOperacaoInvalida`);
    expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'loteCobV.cobsv' })]);
    expect(await storedCharges([again])).toEqual([]);
    // one charge more than the original request is refused too: a lote's set of charges never changes
    const more = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'três', cobsv: [cobvItem(first), cobvItem(again)] });
    expect(more.status).toBe(400);
    expect(await storedCharges([again])).toEqual([]);
    expect((await v2(srv.url, token, 'GET', `/lotecobv/${id}`)).json.descricao).toBe('um');
  });

  it('the same lote id with exactly the original charges alters them in lote (the yaml\'s "alterar em lote")', async () => {
    const id = aLoteId();
    const [a, b] = [aTxid('alta'), aTxid('altb')];
    expect((await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'original', cobsv: [cobvItem(a), cobvItem(b)] })).status).toBe(202);
    const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, {
      descricao: 'alterado', cobsv: [cobvItem(b, { valor: { original: '150.00' } }), cobvItem(a, { chave: 'not-a-key-of-this-account' })],
    });
    expect(r.status).toBe(202);
    const lote = (await v2(srv.url, token, 'GET', `/lotecobv/${id}`)).json;
    expectBcbResponse('GET', '/lotecobv/{id}', 200, lote);
    expect(lote.descricao).toBe('alterado');
    const status = Object.fromEntries(lote.cobsv.map((c: { txid: string; status: string }) => [c.txid, c.status]));
    expect(status).toEqual({ [a]: 'NEGADA', [b]: 'CRIADA' });
    const revised = (await v2(srv.url, token, 'GET', `/cobv/${b}`)).json;
    expect(revised).toMatchObject({ revisao: 1, valor: { original: '150.00' } });
    // the refused alteration changed nothing of its charge
    expect((await v2(srv.url, token, 'GET', `/cobv/${a}`)).json).toMatchObject({ revisao: 0, chave: srv.demo.pixKey });
  });

  it('two PUTs of one lote id at once: one 202 and one 400, one lote and one set of charges', async () => {
    const id = aLoteId();
    const a = [aTxid('ra'), aTxid('rb')];
    const b = [aTxid('rc'), aTxid('rd')];
    const rs = await Promise.all([a, b].map((txids) => v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'corrida', cobsv: txids.map((t) => cobvItem(t)) })));
    expect(rs.map((r) => r.status).sort()).toEqual([202, 400]);
    const refused = rs.find((r) => r.status === 400)!;
    expectBcbResponse('PUT', '/lotecobv/{id}', 400, refused.json);
    expect(refused.json.type).toBe(`${TYPE}LoteCobVOperacaoInvalida`);
    expect(await storedLotes(id)).toBe(1);
    const won = rs[0].status === 202 ? a : b;
    expect((await storedCharges([...a, ...b])).map((c) => c.txid)).toEqual([...won].sort());
  });

  it('two lotes naming the same charges in opposite orders at once: each charge created once, by one lote, the other NEGADA', async () => {
    const [idA, idB] = [aLoteId(), aLoteId()];
    const txids = [aTxid('xa'), aTxid('xb'), aTxid('xc')];
    const rs = await Promise.all([[idA, txids], [idB, [...txids].reverse()]].map(([id, ts]) =>
      v2(srv.url, token, 'PUT', `/lotecobv/${id as string}`, { descricao: 'sobrepostos', cobsv: (ts as string[]).map((t) => cobvItem(t)) })));
    expect(rs.map((r) => r.status)).toEqual([202, 202]);
    expect((await storedCharges(txids)).map((c) => c.txid)).toEqual([...txids].sort());
    const lotes = await Promise.all([idA, idB].map(async (id) => (await v2(srv.url, token, 'GET', `/lotecobv/${id}`)).json));
    for (const t of txids) {
      const statuses = lotes.map((l) => l.cobsv.find((c: { txid: string }) => c.txid === t).status).sort();
      expect(statuses).toEqual(['CRIADA', 'NEGADA']);
    }
  });

  it('a token without lotecobv.write is 403 AcessoNegado, nothing stored', async () => {
    const readOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'lotecobv.read cobv.write');
    const id = aLoteId();
    const txid = aTxid('scope');
    const r = await v2(srv.url, readOnly, 'PUT', `/lotecobv/${id}`, { descricao: 'x', cobsv: [cobvItem(txid)] });
    expect(r.status).toBe(403);
    expectBcbResponse('PUT', '/lotecobv/{id}', 403, r.json);
    expect(r.json.type).toBe(`${TYPE}AcessoNegado`);
    expect(await storedLotes(id)).toBe(0);
    const noRead = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'lotecobv.write');
    const g = await v2(srv.url, noRead, 'GET', `/lotecobv/${id}`);
    expect(g.status).toBe(403);
    expectBcbResponse('GET', '/lotecobv/{id}', 403, g.json);
  });
});

describe('bad input: 400 with violacoes naming the property, nothing stored', () => {
  const cases: [string, (txid: string) => Record<string, unknown>, string, string | undefined][] = [
    ['unknown field', (t) => ({ descricao: 'x', cobsv: [cobvItem(t)], extra: 1 }), 'loteCobV.extra', '1'],
    ['unknown field in a charge', (t) => ({ descricao: 'x', cobsv: [cobvItem(t, { expiracao: 10 })] }), 'loteCobV.cobsv.0.expiracao', '10'],
    ['empty cobsv', () => ({ descricao: 'x', cobsv: [] }), 'loteCobV.cobsv', '[]'],
    ['no descricao', (t) => ({ cobsv: [cobvItem(t)] }), 'loteCobV.descricao', undefined],
    ['a txid malformed', (t) => ({ descricao: 'x', cobsv: [cobvItem(t), cobvItem('abc-def')] }), 'loteCobV.cobsv.1.txid', 'abc-def'],
    ['a txid twice', (t) => ({ descricao: 'x', cobsv: [cobvItem(t), cobvItem(t)] }), 'loteCobV.cobsv.1.txid', undefined],
    ['an amount "10.5"', (t) => ({ descricao: 'x', cobsv: [cobvItem(t, { valor: { original: '10.5' } })] }), 'loteCobV.cobsv.0.valor.original', '10.5'],
  ];
  it.each(cases)('%s', async (_what, make, propriedade, valor) => {
    const id = aLoteId();
    const txid = aTxid('bad');
    const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, make(txid));
    expect(r.status).toBe(400);
    expectBcbResponse('PUT', '/lotecobv/{id}', 400, r.json);
    expect(r.json.type).toBe(`${TYPE}LoteCobVOperacaoInvalida`);
    expect(r.json.violacoes).toEqual(expect.arrayContaining([expect.objectContaining({ propriedade, ...(valor === undefined ? {} : { valor }) })]));
    expect(await storedLotes(id)).toBe(0);
    expect(await storedCharges([txid])).toEqual([]);
  });

  it('an id that is not a positive integer', async () => {
    const txid = aTxid('badid');
    for (const id of ['0', 'abc', '12345678901234567']) {
      const r = await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'x', cobsv: [cobvItem(txid)] });
      expect(r.status).toBe(400);
      expectBcbResponse('PUT', '/lotecobv/{id}', 400, r.json);
      expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'loteCobV.id', valor: id })]);
    }
    expect(await storedCharges([txid])).toEqual([]);
  });
});

describe('PATCH /v2/lotecobv/{id}', () => {
  it('revises the charges listed by PATCH /cobv\'s rules, each with its status; a charge not of the lote is refused whole', async () => {
    const id = aLoteId();
    const [a, b, c] = [aTxid('pa'), aTxid('pb'), aTxid('pc')];
    expect((await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'antes', cobsv: [cobvItem(a), cobvItem(b), cobvItem(c, { chave: 'alguem@example.com' })] })).status).toBe(202);
    const r = await v2(srv.url, token, 'PATCH', `/lotecobv/${id}`, {
      descricao: 'depois',
      cobsv: [
        { txid: a, valor: { original: '110.00' }, calendario: { dataDeVencimento: future(40) } },
        { txid: b, valor: { abatimento: { modalidade: 1, valorPerc: '100.00' } } },
        { txid: c, valor: { original: '5.00' } },
      ],
    });
    expect(r.status).toBe(202);
    expectBcbResponse('PATCH', '/lotecobv/{id}', 202, r.json);
    const ga = await v2(srv.url, token, 'GET', `/cobv/${a}`);
    expect(ga.json).toMatchObject({ revisao: 1, valor: { original: '110.00' }, calendario: { dataDeVencimento: future(40) } });
    // b's revision refused (an abatimento at the original): b unchanged
    expect((await v2(srv.url, token, 'GET', `/cobv/${b}`)).json).toMatchObject({ revisao: 0, valor: { original: '100.00' } });
    const g = await v2(srv.url, token, 'GET', `/lotecobv/${id}`);
    expectBcbResponse('GET', '/lotecobv/{id}', 200, g.json);
    expect(g.json.descricao).toBe('depois');
    const byTxid = Object.fromEntries(g.json.cobsv.map((x: { txid: string }) => [x.txid, x]));
    expect(byTxid[a]).toMatchObject({ status: 'CRIADA' });
    expect(byTxid[b]).toMatchObject({ status: 'NEGADA', problema: { type: `${TYPE}CobVOperacaoInvalida`, violacoes: [expect.objectContaining({ propriedade: 'cobv.valor.abatimento' })] } });
    // c was never created: its revision finds no charge
    expect(byTxid[c]).toMatchObject({ status: 'NEGADA', problema: { type: `${TYPE}CobVNaoEncontrada`, status: 404 } });

    const stranger = aTxid('stranger');
    const bad = await v2(srv.url, token, 'PATCH', `/lotecobv/${id}`, { cobsv: [{ txid: a, valor: { original: '999.00' } }, { txid: stranger, valor: { original: '1.00' } }] });
    expect(bad.status).toBe(400);
    expectBcbResponse('PATCH', '/lotecobv/{id}', 400, bad.json);
    expect(bad.json.type).toBe(`${TYPE}LoteCobVOperacaoInvalida`);
    expect(bad.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'loteCobV.cobsv.1.txid', valor: stranger })]);
    // nothing of it applied
    expect((await v2(srv.url, token, 'GET', `/cobv/${a}`)).json).toMatchObject({ revisao: 1, valor: { original: '110.00' } });
  });

  it('an unknown lote, or another account\'s, is 404 LoteCobVNaoEncontrado', async () => {
    const id = aLoteId();
    const txid = aTxid('own');
    expect((await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: 'meu', cobsv: [cobvItem(txid)] })).status).toBe(202);
    for (const [who, lote] of [[other.token, id], [token, '999999'], [token, 'abc']] as const) {
      const g = await v2(srv.url, who, 'GET', `/lotecobv/${lote}`);
      expect(g.status).toBe(404);
      expectBcbResponse('GET', '/lotecobv/{id}', 404, g.json);
      expect(g.json.type).toBe(`${TYPE}LoteCobVNaoEncontrado`);
      const p = await v2(srv.url, who, 'PATCH', `/lotecobv/${lote}`, { cobsv: [{ txid, valor: { original: '1.00' } }] });
      expect(p.status).toBe(404);
      expectBcbResponse('PATCH', '/lotecobv/{id}', 404, p.json);
      expect(p.json.type).toBe(`${TYPE}LoteCobVNaoEncontrado`);
    }
    expect((await v2(srv.url, token, 'GET', `/cobv/${txid}`)).json.revisao).toBe(0);
    // the other account may use the same lote id for its own lote
    expect((await v2(srv.url, other.token, 'GET', `/lotecobv?inicio=2020-01-01T00:00:00Z&fim=${new Date(Date.now() + 1000).toISOString()}`)).json.lotes).toEqual([]);
  });
});

describe('GET /v2/lotecobv and tRPC', () => {
  it('lists the account\'s lotes created in [inicio, fim], a page at a time; the same through createCaller', async () => {
    const inicio = new Date().toISOString();
    const ids = [aLoteId(), aLoteId(), aLoteId()];
    for (const id of ids) expect((await v2(srv.url, token, 'PUT', `/lotecobv/${id}`, { descricao: `lote ${id}`, cobsv: [cobvItem(aTxid(`l${id}`))] })).status).toBe(202);
    const fim = new Date(Date.now() + 1000).toISOString();
    const list = await v2(srv.url, token, 'GET', `/lotecobv?inicio=${inicio}&fim=${fim}`);
    expect(list.status).toBe(200);
    expectBcbResponse('GET', '/lotecobv', 200, list.json);
    expect(list.json.lotes.map((l: { id: number }) => l.id)).toEqual(ids.map(Number));
    expect(list.json.lotes[0].cobsv).toEqual([expect.objectContaining({ status: 'CRIADA' })]);
    const page = await v2(srv.url, token, 'GET', `/lotecobv?inicio=${inicio}&fim=${fim}&paginacao.paginaAtual=1&paginacao.itensPorPagina=2`);
    expectBcbResponse('GET', '/lotecobv', 200, page.json);
    expect(page.json.lotes.map((l: { id: number }) => l.id)).toEqual([Number(ids[2])]);
    expect(page.json.parametros.paginacao).toEqual({ paginaAtual: 1, itensPorPagina: 2, quantidadeDePaginas: 2, quantidadeTotalDeItens: 3 });
    const bad = await v2(srv.url, token, 'GET', `/lotecobv?inicio=${fim}&fim=${inicio}`);
    // the yaml's error section gives GET /lotecobv LoteCobVConsultaInvalida (400), its responses do not list it
    expect(bad.status).toBe(400);
    expect(bad.json.type).toBe(`${TYPE}LoteCobVConsultaInvalida`);

    const caller = callerFor(beside, srv.demo.accountId, 'session');
    const viaTrpc = await caller.pixLoteCobv.list({ inicio, fim } as never);
    expect(viaTrpc.lotes.map((l) => l.id)).toEqual(ids.map(Number));
    const id = aLoteId();
    const txid = aTxid('trpc');
    await caller.pixLoteCobv.put({ id, descricao: 'via tRPC', cobsv: [cobvItem(txid)] });
    expect(await caller.pixLoteCobv.get({ id })).toMatchObject({ id: Number(id), descricao: 'via tRPC', cobsv: [{ txid, status: 'CRIADA' }] });
  });
});
