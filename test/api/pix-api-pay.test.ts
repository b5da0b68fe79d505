import { beforeAll, describe, expect, it } from 'vitest';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { addCalendarDays, businessDayOnOrAfter } from '../../server/domain/pix-api/calendar';
import { dueDates } from '../../server/domain/pix-api/due-date';
import { checkBcbSchema, expectBcbResponse } from '../support/bcb-contract';
import { aTxid, daysFromToday, ledgerAudit, pixApiHarness, pixApiToken, putCob, putCobv, today, type OtherAccount } from '../support/pix-api-harness';
import { waitFor } from '../support/wait';
import { peek } from '../support/peek';
import { api, type RunningServer } from '../support/server';

/**
 * POST /sandbox/pix/pay over HTTP against the running server: a cob and a cobv paid as a payer would
 * (the cobv early, on time, late and after its validity), the balance credited exactly the amount due,
 * once however many payers race, and GET /v2/pix showing what was received.
 */
const harness = pixApiHarness({ gateway: true, other: true });
let srv: RunningServer;
let token: string; // API Pix
let gateway: string; // the gateway API's, for GET /balance
let other: OtherAccount;
beforeAll(() => ({ srv, token, gateway, other } = harness));

const devedor = { cpf: '12345678909', nome: 'Francisco da Silva' };
const pay = (body: unknown, t = token) => api(srv.url, '/sandbox/pix/pay', { token: t, method: 'POST', body });
const available = async () => (await api(srv.url, '/balance', { token: gateway })).json.available as number;
const counts = () => peek(srv.databasePath, async (db) => ({
  received: await db.count('pix_received'), transactions: await db.count('transactions'), entries: await db.count('ledger_entries'),
  concluded: Number((await db.get<{ n: number }>("SELECT count(*) AS n FROM pix_charges WHERE status = 'CONCLUIDA'"))!.n),
}));
const expectPix = (body: unknown) => {
  const c = checkBcbSchema('Pix', body);
  expect(c.errors).toBe('');
};

describe('POST /sandbox/pix/pay: a cob', () => {
  it('pays an ATIVA cob: the Pix received, the balance credited once, the charge CONCLUIDA', async () => {
    const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '123.45', devedor });
    const before = await available();
    const res = await pay({ txid: cob.txid });
    expect(res.status).toBe(200);
    expectPix(res.json);
    expect(res.json).toMatchObject({
      txid: cob.txid, valor: '123.45', chave: srv.demo.pixKey, componentesValor: { original: { valor: '123.45' } },
      pagador: devedor, devolucoes: [],
    });
    expect(isValidEndToEndId(res.json.endToEndId)).toBe(true);
    expect(await available()).toBe(before + 12_345);
    const row = await peek(srv.databasePath, (db) => db.get<{ status: string; transaction_id: string; tstatus: string; end_to_end: string }>(
      'SELECT c.status, c.transaction_id, t.status AS tstatus, t.end_to_end FROM pix_charges c JOIN transactions t ON t.id = c.transaction_id WHERE c.txid = ?', cob.txid));
    expect(row).toMatchObject({ status: 'CONCLUIDA', tstatus: 'APPROVED', end_to_end: res.json.endToEndId });
    const charge = await api(srv.url, `/v2/cob/${cob.txid}`, { token });
    expectBcbResponse('GET', '/cob/{txid}', 200, charge.json);
    expect(charge.json.status).toBe('CONCLUIDA');

    // GET /v2/pix/{e2eid} and the list answer the same Pix
    const got = await api(srv.url, `/v2/pix/${res.json.endToEndId}`, { token });
    expect(got.status).toBe(200);
    expectBcbResponse('GET', '/pix/{e2eid}', 200, got.json);
    expect(got.json).toEqual(res.json);
    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 3_600_000).toISOString();
    const list = await api(srv.url, `/v2/pix?inicio=${inicio}&fim=${fim}&txid=${cob.txid}`, { token });
    expect(list.status).toBe(200);
    expectBcbResponse('GET', '/pix', 200, list.json);
    expect(list.json.pix).toEqual([res.json]);
    expect(list.json.parametros.paginacao).toEqual({ paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 1 });
    const byCpf = await api(srv.url, `/v2/pix?inicio=${inicio}&fim=${fim}&cpf=${devedor.cpf}&devolucaoPresente=false`, { token });
    expect(byCpf.json.pix.map((p: { endToEndId: string }) => p.endToEndId)).toContain(res.json.endToEndId);
    const none = await api(srv.url, `/v2/pix?inicio=${inicio}&fim=${fim}&txIdPresente=false`, { token });
    expect(none.json.pix).toEqual([]);

    // paid once: another pay is refused and changes nothing
    const was = await counts();
    const again = await pay({ txid: cob.txid });
    expect(again.status).toBe(400);
    expectBcbResponse('POST', '/cob', 400, again.json);
    expect(again.json).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida', detail: expect.stringContaining('CONCLUIDA') });
    expect(await counts()).toEqual(was);
    expect(await available()).toBe(before + 12_345);
  });

  it('a cob without devedor is paid by the sandbox payer; an expired cob and a date for a cob are refused', async () => {
    const plain = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '5.00' });
    const res = await pay({ txid: plain.txid });
    expect(res.status).toBe(200);
    expect(res.json.pagador).toEqual({ cpf: '52998224725', nome: 'Pagador Sandbox' });

    const expired = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '5.00', expiracao: 1 });
    const expiresAt = Date.parse((expired.body.calendario as { criacao: string }).criacao) + 1_000;
    await waitFor(() => Date.now() > expiresAt, { what: 'the cob to expire' });
    const dated = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '5.00' });
    const was = await counts();
    const r1 = await pay({ txid: expired.txid });
    expect([r1.status, r1.json.type]).toEqual([400, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida']);
    expect(r1.json.detail).toMatch(/expirou/);
    const r2 = await pay({ txid: dated.txid, date: daysFromToday(1) });
    expect([r2.status, r2.json.type]).toEqual([400, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida']);
    expect(await counts()).toEqual(was);
  });

  it('bad input is 400 with violacoes; another account\'s txid and an unknown one are 404; no token is 401', async () => {
    const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '1.00' });
    const was = await counts();
    for (const [body, prop] of [
      [{ txid: 'short' }, 'txid'], [{ txid: `${aTxid()}-` }, 'txid'], [{ txid: cob.txid, date: '2026-02-30' }, 'date'],
      [{ txid: cob.txid, extra: 1 }, 'extra'], [{}, 'txid'],
    ] as const) {
      const r = await pay(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.violacoes.map((v: { propriedade: string }) => v.propriedade), JSON.stringify(body)).toContain(prop);
    }
    const foreign = await pay({ txid: cob.txid }, other.token);
    expect([foreign.status, foreign.json.type]).toEqual([404, 'https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado']);
    expect((await pay({ txid: aTxid() })).status).toBe(404);
    expect((await api(srv.url, '/sandbox/pix/pay', { method: 'POST', body: { txid: cob.txid } })).status).toBe(401);
    const readOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'pix.read');
    expect((await pay({ txid: cob.txid }, readOnly)).status).toBe(403);
    expect(await counts()).toEqual(was);
  });

  it('8 concurrent pays of one cob: one credit, the others 400, the ledger balanced', async () => {
    const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '77.77', devedor });
    const before = await available();
    const results = await Promise.all(Array.from({ length: 8 }, () => pay({ txid: cob.txid })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    expect(await available()).toBe(before + 7_777);
    const n = await peek(srv.databasePath, async (db) => ({
      received: Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM pix_received WHERE txid = ?', cob.txid))!.n),
      credits: Number((await db.get<{ n: number }>(
        "SELECT count(*) AS n FROM ledger_entries e JOIN pix_charges c ON c.transaction_id = e.resource_id WHERE c.txid = ? AND e.kind = 'transaction_credit'", cob.txid))!.n),
    }));
    expect(n).toEqual({ received: 1, credits: 1 });
    expect(await ledgerAudit(srv.databasePath)).toEqual({ total: 0, mismatched: 0 });
  });
});

describe('a revision racing a payment', () => {
  it('a charge paid is never revised: the payer pays what the charge said when it took the lock', async () => {
    for (let round = 0; round < 5; round++) {
      const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '10.00', devedor });
      const before = await available();
      const [patch, paid] = await Promise.all([
        api(srv.url, `/v2/cob/${cob.txid}`, { token, method: 'PATCH', body: { valor: { original: '20.00' } } }),
        pay({ txid: cob.txid }),
      ]);
      expect(paid.status).toBe(200);
      const after = await api(srv.url, `/v2/cob/${cob.txid}`, { token });
      expect(after.json.status).toBe('CONCLUIDA');
      if (patch.status === 200) {
        // revised first: the payment is of the revised charge
        expect([paid.json.valor, after.json.revisao, after.json.valor.original]).toEqual(['20.00', 1, '20.00']);
      } else {
        // paid first: the revision is refused and the charge stays as paid
        expect(patch.status).toBe(400);
        expect([paid.json.valor, after.json.revisao, after.json.valor.original]).toEqual(['10.00', 0, '10.00']);
      }
      expect(await available()).toBe(before + (paid.json.valor === '20.00' ? 2_000 : 1_000));
    }
  });
});

describe('POST /sandbox/pix/pay: a cobv, the amount due on the day paid', () => {
  // a business day 10+ days ahead, so the dates around it are simple: 2 % fine, R$ 0.10 a day of interest,
  // R$ 5.00 off when paid up to two days from today
  const vencimento = businessDayOnOrAfter(daysFromToday(10));
  const valor = {
    original: '100.00',
    multa: { modalidade: 2, valorPerc: '2.00' },
    juros: { modalidade: 1, valorPerc: '0.10' },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: daysFromToday(2), valorPerc: '5.00' }] },
  };
  const cobv = () => putCobv(srv.url, token, {
    chave: srv.demo.pixKey, valor, dataDeVencimento: vencimento, validadeAposVencimento: 5,
    devedor: { cnpj: '12345678000195', nome: 'Empresa de Serviços SA' },
  });

  it.each([
    ['early (discount)', () => today(), 9_500, { original: { valor: '100.00' }, desconto: { valor: '5.00' } }],
    ['on time', () => vencimento, 10_000, { original: { valor: '100.00' } }],
    ['late (fine + interest)', () => addCalendarDays(vencimento, 3), 10_230, { original: { valor: '100.00' }, multa: { valor: '2.00' }, juros: { valor: '0.30' } }],
  ])('paid %s: credited exactly the amount due', async (_what, date, cents, componentesValor) => {
    const c = await cobv();
    const before = await available();
    const res = await pay({ txid: c.txid, date: date() });
    expect(res.status).toBe(200);
    expectPix(res.json);
    expect(res.json).toMatchObject({ txid: c.txid, valor: (cents / 100).toFixed(2), componentesValor, pagador: { cnpj: '12345678000195' } });
    expect(await available()).toBe(before + cents);
    const stored = await peek(srv.databasePath, (db) => db.get<{ amount: number; componentes: string }>('SELECT amount, componentes FROM pix_received WHERE end_to_end_id = ?', res.json.endToEndId));
    expect(Number(stored!.amount)).toBe(cents);
    expect(Object.keys(JSON.parse(stored!.componentes)).sort()).toEqual(['abatimento', 'desconto', 'juros', 'multa', 'original']);
  });

  it('after its validity, or before its creation: 400 CobVOperacaoInvalida, nothing changes', async () => {
    const c = await cobv();
    const { ultimoDia } = dueDates({ dataDeVencimento: vencimento, validadeAposVencimento: 5 });
    const was = await counts();
    const before = await available();
    for (const date of [addCalendarDays(ultimoDia, 1), daysFromToday(-1)]) {
      const r = await pay({ txid: c.txid, date });
      expect(r.status, date).toBe(400);
      expectBcbResponse('PUT', '/cobv/{txid}', 400, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida');
    }
    expect(await counts()).toEqual(was);
    expect(await available()).toBe(before);
    // its last day is still a day it can be paid
    expect((await pay({ txid: c.txid, date: ultimoDia })).status).toBe(200);
  });
});

describe('GET /v2/pix', () => {
  it('requires inicio and fim; another account\'s e2eid is 404 PixNaoEncontrado; a malformed one 400', async () => {
    const r = await api(srv.url, '/v2/pix', { token });
    expect(r.status).toBe(400);
    // the yaml lists no 400 for GET /pix; its problem is the yaml's Problema all the same
    expect(checkBcbSchema('Problema', r.json).errors).toBe('');
    expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida');
    expect(r.json.violacoes.map((v: { propriedade: string }) => v.propriedade)).toEqual(expect.arrayContaining(['inicio', 'fim']));
    const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original: '2.00' });
    const paid = await pay({ txid: cob.txid });
    const foreign = await api(srv.url, `/v2/pix/${paid.json.endToEndId}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expectBcbResponse('GET', '/pix/{e2eid}', 404, foreign.json);
    expect(foreign.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado');
    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 3_600_000).toISOString();
    expect((await api(srv.url, `/v2/pix?inicio=${inicio}&fim=${fim}`, { token: other.token })).json.pix).toEqual([]);
    const bad = await api(srv.url, '/v2/pix/E123', { token });
    expect(bad.status).toBe(400);
    expect(checkBcbSchema('Problema', bad.json).errors).toBe('');
    expect(bad.json.violacoes[0].propriedade).toBe('e2eid');
  });
});
