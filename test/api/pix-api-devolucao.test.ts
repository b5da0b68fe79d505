import { beforeAll, describe, expect, it } from 'vitest';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { SANDBOX_REFUND_FAIL_EMAIL } from '../../server/domain/rails/sandbox';
import { businessDayOnOrAfter } from '../../server/domain/pix-api/calendar';
import { checkBcbSchema, expectBcbResponse } from '../support/bcb-contract';
import { daysFromToday, ledgerAudit, pixApiHarness, putCob, putCobv, type OtherAccount } from '../support/pix-api-harness';
import { peek } from '../support/peek';
import { waitFor } from '../support/services';
import { api, type RunningServer } from '../support/server';

/**
 * PUT and GET /v2/pix/{e2eid}/devolucao/{id} over HTTP against the running server: a devolução is a
 * refund of the Pix's transaction, settled by the server's refund pass (the sandbox rail) into
 * DEVOLVIDO with its D… rtrId, or NAO_REALIZADO; parallel devoluções never return more than the Pix.
 */
const harness = pixApiHarness({ gateway: true, other: true });
let srv: RunningServer;
let token: string;
let gateway: string;
let other: OtherAccount;
beforeAll(() => ({ srv, token, gateway, other } = harness));

const devedor = { cpf: '12345678909', nome: 'Francisco da Silva' };
const T = (name: string) => `https://pix.bcb.gov.br/api/v2/error/${name}`;

/** A cob of `original` paid now: its Pix received. */
async function paidPix(original: string): Promise<{ endToEndId: string; txid: string }> {
  const cob = await putCob(srv.url, token, { chave: srv.demo.pixKey, original, devedor });
  const res = await api(srv.url, '/sandbox/pix/pay', { token, method: 'POST', body: { txid: cob.txid } });
  expect(res.status).toBe(200);
  return res.json;
}

const put = (e2e: string, id: string, body: unknown, t = token) => api(srv.url, `/v2/pix/${e2e}/devolucao/${id}`, { token: t, method: 'PUT', body });
const get = (e2e: string, id: string, t = token) => api(srv.url, `/v2/pix/${e2e}/devolucao/${id}`, { token: t });
const stored = () => peek(srv.databasePath, async (db) => ({
  devolucoes: await db.count('pix_devolucoes'), refunds: await db.count('refunds'), entries: await db.count('ledger_entries'),
}));
/** Devoluções settle in the background; a snapshot taken while one is EM_PROCESSAMENTO would move under the test. */
const settled = () => waitFor(() => peek(srv.databasePath, async (db) => Number((await db.get<{ n: number }>("SELECT count(*) AS n FROM refunds WHERE status = 'PENDING'"))!.n) === 0), { what: 'refunds to settle' });
const available = async () => (await api(srv.url, '/balance', { token: gateway })).json.available as number;

describe('PUT /v2/pix/{e2eid}/devolucao/{id}', () => {
  it('returns part of a Pix: 201 EM_PROCESSAMENTO with its rtrId, then DEVOLVIDO with the same D… rtrId', async () => {
    const pix = await paidPix('100.00');
    const before = await available();
    const res = await put(pix.endToEndId, 'dev1', { valor: '30.00', descricao: 'Produto devolvido' });
    expect(res.status).toBe(201);
    expectBcbResponse('PUT', '/pix/{e2eid}/devolucao/{id}', 201, res.json);
    expect(res.json).toMatchObject({ id: 'dev1', valor: '30.00', natureza: 'ORIGINAL', descricao: 'Produto devolvido', status: 'EM_PROCESSAMENTO' });
    expect(isValidEndToEndId(res.json.rtrId, 'D')).toBe(true);
    expect(res.json.horario.solicitacao).toEqual(expect.any(String));
    expect(await available()).toBe(before - 3_000);

    const done = await waitFor(async () => {
      const r = await get(pix.endToEndId, 'dev1');
      return r.json.status === 'DEVOLVIDO' ? r : null;
    }, { what: 'the devolução to be paid' });
    expect(done.status).toBe(200);
    expectBcbResponse('GET', '/pix/{e2eid}/devolucao/{id}', 200, done.json);
    expect(done.json.rtrId).toBe(res.json.rtrId);
    expect(done.json.rtrId.startsWith('D')).toBe(true);
    expect(done.json.horario.liquidacao).toEqual(expect.any(String));
    // the refund behind it carries the same id, and GET /v2/pix/{e2eid} lists the devolução
    const refund = await peek(srv.databasePath, (db) => db.get<{ status: string; end_to_end: string }>(
      'SELECT r.status, r.end_to_end FROM refunds r JOIN pix_devolucoes d ON d.refund_id = r.id WHERE d.end_to_end_id = ? AND d.id = ?', pix.endToEndId, 'dev1'));
    expect(refund).toEqual({ status: 'PAID', end_to_end: res.json.rtrId });
    const p = await api(srv.url, `/v2/pix/${pix.endToEndId}`, { token });
    expectBcbResponse('GET', '/pix/{e2eid}', 200, p.json);
    expect(p.json.devolucoes).toEqual([done.json]);
    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 3_600_000).toISOString();
    const list = await api(srv.url, `/v2/pix?inicio=${inicio}&fim=${fim}&devolucaoPresente=true`, { token });
    expectBcbResponse('GET', '/pix', 200, list.json);
    expect(list.json.pix.map((x: { endToEndId: string }) => x.endToEndId)).toContain(pix.endToEndId);
    expect(await ledgerAudit(srv.databasePath)).toEqual({ total: 0, mismatched: 0 });
  });

  it('the same id with the same body answers it again; with another body 400, nothing stored', async () => {
    const pix = await paidPix('10.00');
    const first = await put(pix.endToEndId, 'same1', { valor: '1.00' });
    expect(first.status).toBe(201);
    await settled();
    const was = await stored();
    const again = await put(pix.endToEndId, 'same1', { valor: '1.00' });
    expect(again.status).toBe(201);
    expect(again.json.rtrId).toBe(first.json.rtrId);
    const other = await put(pix.endToEndId, 'same1', { valor: '2.00' });
    expect([other.status, other.json.type]).toEqual([400, T('PixDevolucaoInvalida')]);
    expectBcbResponse('PUT', '/pix/{e2eid}/devolucao/{id}', 400, other.json);
    expect(await stored()).toEqual(was);
  });

  it('10 devoluções in parallel never return more than the Pix: the rest are 400 PixDevolucaoInvalida', async () => {
    const pix = await paidPix('50.00');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(pix.endToEndId, `par${i}`, { valor: '15.00' })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect([r.status, r.json.type]).toEqual([400, T('PixDevolucaoInvalida')]);
      expectBcbResponse('PUT', '/pix/{e2eid}/devolucao/{id}', 400, r.json);
    }
    const sum = await peek(srv.databasePath, (db) => db.get<{ s: number }>(
      'SELECT coalesce(sum(r.amount), 0) AS s FROM refunds r JOIN pix_devolucoes d ON d.refund_id = r.id WHERE d.end_to_end_id = ?', pix.endToEndId));
    expect(Number(sum!.s)).toBe(4_500);
    // what is left can still be returned, and no more
    expect((await put(pix.endToEndId, 'rest', { valor: '5.01' })).status).toBe(400);
    expect((await put(pix.endToEndId, 'rest', { valor: '5.00' })).status).toBe(201);
    expect(await ledgerAudit(srv.databasePath)).toEqual({ total: 0, mismatched: 0 });
  });

  it('a return the payer\'s bank refuses ends NAO_REALIZADO and its amount comes back', async () => {
    const c = await putCobv(srv.url, token, {
      chave: srv.demo.pixKey, valor: { original: '20.00' }, dataDeVencimento: businessDayOnOrAfter(daysFromToday(5)),
      devedor: { ...devedor, email: SANDBOX_REFUND_FAIL_EMAIL },
    });
    const pix = (await api(srv.url, '/sandbox/pix/pay', { token, method: 'POST', body: { txid: c.txid } })).json;
    const before = await available();
    expect((await put(pix.endToEndId, 'fail1', { valor: '20.00' })).status).toBe(201);
    const failed = await waitFor(async () => {
      const r = await get(pix.endToEndId, 'fail1');
      return r.json.status === 'NAO_REALIZADO' ? r : null;
    }, { what: 'the devolução to be refused' });
    expectBcbResponse('GET', '/pix/{e2eid}/devolucao/{id}', 200, failed.json);
    expect(failed.json.motivo).toEqual(expect.any(String));
    expect(await available()).toBe(before);
  });

  it('bad input is 400 with violacoes and nothing stored; RETIRADA is not offered; another account\'s e2eid is 404', async () => {
    const pix = await paidPix('10.00');
    await settled();
    const was = await stored();
    for (const [e2e, body, prop] of [
      ['E123', { valor: '1.00' }, 'e2eid'],
      [pix.endToEndId, { valor: '0.00' }, 'valor'],
      [pix.endToEndId, { valor: '10' }, 'valor'],
      [pix.endToEndId, { valor: '-1.00' }, 'valor'],
      [pix.endToEndId, { valor: '1.00', extra: true }, 'extra'],
      [pix.endToEndId, {}, 'valor'],
      [pix.endToEndId, { valor: '1.00', natureza: 'RETIRADA' }, 'natureza'],
      [pix.endToEndId, { valor: '1.00', descricao: 'x'.repeat(141) }, 'descricao'],
    ] as const) {
      const r = await put(e2e, 'bad1', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.type).toBe(T('PixDevolucaoInvalida'));
      expect(checkBcbSchema('Problema', r.json).errors).toBe('');
      expect(r.json.violacoes.map((v: { propriedade: string }) => v.propriedade), JSON.stringify(body)).toContain(prop);
    }
    const retirada = await put(pix.endToEndId, 'bad1', { valor: '1.00', natureza: 'RETIRADA' });
    expect(retirada.json.violacoes).toEqual([{ razao: 'somente ORIGINAL é oferecida', propriedade: 'natureza', valor: 'RETIRADA' }]);
    expect((await put(pix.endToEndId, 'bad-id', { valor: '1.00' })).status).toBe(400);

    const foreign = await put(pix.endToEndId, 'x1', { valor: '1.00' }, other.token);
    expect([foreign.status, foreign.json.type]).toEqual([404, T('PixNaoEncontrado')]);
    expectBcbResponse('PUT', '/pix/{e2eid}/devolucao/{id}', 404, foreign.json);
    expect((await put(`E${'0'.repeat(31)}`, 'x1', { valor: '1.00' })).status).toBe(404);
    expect(await stored()).toEqual(was);

    expect((await put(pix.endToEndId, 'mine', { valor: '1.00' })).status).toBe(201);
    const notHers = await get(pix.endToEndId, 'mine', other.token);
    expect([notHers.status, notHers.json.type]).toEqual([404, T('PixDevolucaoNaoEncontrada')]);
    expectBcbResponse('GET', '/pix/{e2eid}/devolucao/{id}', 404, notHers.json);
    expect((await get(pix.endToEndId, 'nosuch')).status).toBe(404);
  });
});
