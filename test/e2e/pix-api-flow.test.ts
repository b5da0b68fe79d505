import { compactVerify, createRemoteJWKSet, decodeProtectedHeader } from 'jose';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { readPixBrCode } from '../../server/domain/pix/brcode';
import { addCalendarDays, businessDayOnOrAfter } from '../../server/domain/pix-api/calendar';
import { addPixKey } from '../../server/domain/pix-api/keys';
import { localDay } from '../../server/domain/local-time';
import { decryptSecret } from '../../server/domain/webhooks/secrets';
import type { Services } from '../../server/services';
import type { paths } from '../support/bcb-api';
import { checkBcbSchema, expectBcbResponse } from '../support/bcb-contract';
import { ledgerAudit, pixApiHarness, tokenRequest } from '../support/pix-api-harness';
import { accessToken, api, type RunningServer } from '../support/server';
import { waitFor } from '../support/wait';
import { type Receiver } from '../support/webhook-receiver';

/**
 * The API Pix's charge side end to end, as a client built from the Banco Central's yaml drives it (the
 * types openapi-typescript generates, test/support/bcb-api.d.ts, with openapi-fetch) against the running
 * server: a token, a webhook for the key, a cobv, its payload fetched from the location in its BR Code and
 * checked as a payer's bank would (JWS against the JWKS its header names, the amount due that day), the
 * sandbox payer paying it late, the Pix received, part of it returned, both notified to the webhook, and the
 * balance moved by exactly what stayed. Both engines. Every /v2 answer is checked against the yaml.
 */
const harness = pixApiHarness({
  ownPublicBase: true, receiver: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SANDBOX_SETTLEMENT_DELAY_MS: '50' },
});
let srv: RunningServer;
let side: Services;
let receiver: Receiver;
/** The server's port, which its public base (the BR Code's location) names. */
let port: number;
beforeAll(() => {
  ({ srv, side, receiver } = harness);
  port = Number(new URL(srv.url).port);
});

/**
 * What a cobv needs of the account before it can be created with a recebedor the yaml accepts: its
 * document. Today that is a CPF or CNPJ Pix key of the account (server/domain/pix-api/charges.ts
 * `recebedorOf`); kept here alone so it is one place to change when accounts carry their own document.
 */
const RECEBEDOR_CNPJ = '11222333000181';
async function giveTheAccountADocument() {
  await addPixKey(side, srv.demo.accountId, { key_type: 'CNPJ', key: RECEBEDOR_CNPJ });
}

/** Half up to the cent of numerator / denominator, both non-negative integers (DECISIONS: each component rounded once). */
const roundHalfUp = (numerator: number, denominator: number) => Math.floor((2 * numerator + denominator) / (2 * denominator));

describe('the API Pix full flow with the client generated from the yaml', () => {
  it('token → webhook → PUT /cobv → payload verified → paid late → GET /pix → devolução → notifications → balance', async () => {
    await giveTheAccountADocument();

    // 1. a token: client credentials over HTTP Basic
    const tokenRes = await tokenRequest(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret);
    expect(tokenRes.status).toBe(200);
    const tokenBody = tokenRes.json;
    expect(tokenBody.token_type).toBe('Bearer');
    expect(tokenBody.scope.split(' ')).toEqual(expect.arrayContaining(['cobv.write', 'pix.read', 'pix.write', 'webhook.write']));
    const client = createClient<paths>({ baseUrl: `${srv.url}/v2`, headers: { authorization: `Bearer ${tokenBody.access_token}` } });

    const gateway = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    const available = async () => (await api(srv.url, '/balance', { token: gateway })).json.available as number;
    const balanceBefore = await available();

    // 2. the key's webhook, at a receiver on 127.0.0.1
    const chave = srv.demo.pixKey;
    const hook = await client.PUT('/webhook/{chave}', { params: { path: { chave } }, body: { webhookUrl: `${receiver.url}/bank` } });
    expect(hook.response.status).toBe(200);
    expectBcbResponse('PUT', '/webhook/{chave}', 200, hook.data ?? '');
    const gotHook = await client.GET('/webhook/{chave}', { params: { path: { chave } } });
    expectBcbResponse('GET', '/webhook/{chave}', 200, gotHook.data);
    expect(gotHook.data).toMatchObject({ chave, webhookUrl: `${receiver.url}/bank` });

    // the cobv: due a few days ahead (a business day, so it is its own vencimento efetivo), R$ 1,234.56,
    // 2 % fine, 1 % a month of interest over calendar days, R$ 10.00 off until the day before it is due
    const today = localDay(new Date());
    const vencimento = businessDayOnOrAfter(addCalendarDays(today, 3));
    const txid = `flow${Date.now().toString(36)}`.padEnd(32, '0');
    const created = await client.PUT('/cobv/{txid}', {
      params: { path: { txid } },
      body: {
        calendario: { dataDeVencimento: vencimento, validadeAposVencimento: 10 },
        devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
        valor: {
          original: '1234.56',
          multa: { modalidade: 2, valorPerc: '2.00' },
          juros: { modalidade: 3, valorPerc: '1.00' },
          desconto: { modalidade: 1, descontoDataFixa: [{ data: addCalendarDays(vencimento, -1), valorPerc: '10.00' }] },
        },
        chave,
        solicitacaoPagador: 'Mensalidade de dezembro',
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expectBcbResponse('PUT', '/cobv/{txid}', 201, created.data);
    const cobv = created.data!;
    expect(cobv).toMatchObject({ txid, status: 'ATIVA', chave, recebedor: { cnpj: RECEBEDOR_CNPJ } });
    const location = cobv.loc!.location;
    expect(location).toMatch(new RegExp(`^127\\.0\\.0\\.1:${port}/qr/v2/cobv/[0-9a-f]{32}$`));
    // (the yaml's CobVGerada types no top-level location; the server answers it as the cob does)
    expect((cobv as { location?: string }).location).toBe(location);
    // the BR Code a payer scans carries the location, nothing else of the charge
    expect(readPixBrCode(cobv.pixCopiaECola!)).toMatchObject({ url: location });

    // 3. the payer's bank: the payload at the location for a day five calendar days late, its signature
    // checked against the JWKS its header names (https in production; this sandbox serves it over http)
    const lateDay = addCalendarDays(vencimento, 5);
    const payloadAt = async (query: string) => {
      const r = await fetch(`http://${location}${query}`);
      expect(r.status, query).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/jose');
      const jws = await r.text();
      const header = decodeProtectedHeader(jws);
      expect(header.jku).toBe(`https://127.0.0.1:${port}/qr/v2/jwks`);
      const jwks = createRemoteJWKSet(new URL(header.jku!.replace(/^https:/, 'http:')));
      const { payload } = await compactVerify(jws, jwks);
      const body = JSON.parse(new TextDecoder().decode(payload)) as Record<string, any>;
      expectBcbResponse('GET', '/cobv/{pixUrlAccessToken}', 200, body);
      return body;
    };
    const late = await payloadAt(`?DPP=${lateDay}`);
    // by hand, in cents: multa 2 % of 123456 = 2469.12 → 2469; juros 1 % a month for 5 of 30 days:
    // 123456 × 100 × 5 / (10 000 × 30) = 205.76 → 206; no desconto after its date
    const multa = roundHalfUp(123_456 * 200, 10_000);
    const juros = roundHalfUp(123_456 * 100 * 5, 10_000 * 30);
    expect([multa, juros]).toEqual([2_469, 206]);
    const due = 123_456 + multa + juros;
    expect(late).toMatchObject({
      txid, revisao: 0, status: 'ATIVA', chave,
      calendario: { dataDeVencimento: vencimento, validadeAposVencimento: 10 },
      valor: { original: '1234.56', multa: '24.69', juros: '2.06', final: (due / 100).toFixed(2) },
    });
    expect(late.valor.final).toBe('1261.31');
    // and today, before the discount's date: 10.00 off
    expect((await payloadAt('')).valor).toEqual({ original: '1234.56', desconto: '10.00', final: '1224.56' });

    // 4. the sandbox payer pays on the late day (not an operation of the yaml: plain HTTP)
    const paid = await api(srv.url, '/sandbox/pix/pay', { method: 'POST', token: tokenBody.access_token, body: { txid, date: lateDay } });
    expect(paid.status, paid.text).toBe(200);
    const e2eid = paid.json.endToEndId as string;
    expect(isValidEndToEndId(e2eid)).toBe(true);

    const pix = await client.GET('/pix/{e2eid}', { params: { path: { e2eid } } });
    expect(pix.response.status).toBe(200);
    expectBcbResponse('GET', '/pix/{e2eid}', 200, pix.data);
    expect(pix.data).toMatchObject({
      endToEndId: e2eid, txid, chave, valor: '1261.31',
      componentesValor: { original: { valor: '1234.56' }, multa: { valor: '24.69' }, juros: { valor: '2.06' } },
      devolucoes: [],
    });
    // (the generated type is a union of the yaml's oneOf branches: read it as the components it is here)
    const componentes = pix.data!.componentesValor as Record<'original' | 'multa' | 'juros' | 'abatimento' | 'desconto', { valor: string } | undefined>;
    const cents = (v: { valor: string } | undefined) => (v ? Math.round(Number(v.valor) * 100) : 0);
    expect(cents(componentes.original) + cents(componentes.multa) + cents(componentes.juros)
      - cents(componentes.abatimento) - cents(componentes.desconto)).toBe(due);

    const inicio = new Date(Date.now() - 3_600_000).toISOString();
    const fim = new Date(Date.now() + 3_600_000).toISOString();
    const list = await client.GET('/pix', { params: { query: { inicio, fim, txid } } });
    expect(list.response.status).toBe(200);
    expectBcbResponse('GET', '/pix', 200, list.data);
    expect(list.data!.pix).toEqual([pix.data]);

    const charge = await client.GET('/cobv/{txid}', { params: { path: { txid } } });
    expectBcbResponse('GET', '/cobv/{txid}', 200, charge.data);
    expect(charge.data!.status).toBe('CONCLUIDA');

    // 5. part of it returned
    const devolucao = await client.PUT('/pix/{e2eid}/devolucao/{id}', {
      params: { path: { e2eid, id: 'flowdev1' } },
      body: { valor: '200.00', descricao: 'Desconto concedido depois' },
    });
    expect(devolucao.response.status, JSON.stringify(devolucao.error)).toBe(201);
    expectBcbResponse('PUT', '/pix/{e2eid}/devolucao/{id}', 201, devolucao.data);
    expect(devolucao.data).toMatchObject({ id: 'flowdev1', valor: '200.00', status: 'EM_PROCESSAMENTO' });
    const done = await waitFor(async () => {
      const r = await client.GET('/pix/{e2eid}/devolucao/{id}', { params: { path: { e2eid, id: 'flowdev1' } } });
      return r.data?.status === 'DEVOLVIDO' ? r.data : null;
    }, { what: 'the devolução DEVOLVIDO' });
    expectBcbResponse('GET', '/pix/{e2eid}/devolucao/{id}', 200, done);
    expect(done.rtrId).toBe(devolucao.data!.rtrId);
    expect(done.rtrId.startsWith('D')).toBe(true);
    expect(isValidEndToEndId(done.rtrId, 'D')).toBe(true);

    // 6. the webhook got the Pix when received, then again with the devolução settled, signed
    const secret = decryptSecret((await side.db.read.accounts.postbackSecretEncrypted(srv.demo.accountId))!, side.masterKey);
    const hits = await waitFor(() => {
      const h = receiver.received.filter((r) => r.path === '/bank/pix' && r.body.includes(e2eid));
      return h.length >= 2 ? h : null;
    }, { what: 'both notifications of the Pix' });
    expect(hits).toHaveLength(2);
    const bodies = hits.map((h) => new Webhook(secret).verify(h.body, h.headers) as { pix: Record<string, any>[] });
    for (const b of bodies) {
      expect(b.pix).toHaveLength(1);
      expect(checkBcbSchema('Pix', b.pix[0])).toEqual({ ok: true, errors: '' });
      expect(b.pix[0]).toMatchObject({ endToEndId: e2eid, txid, chave, valor: '1261.31' });
    }
    expect(bodies[0].pix[0].devolucoes ?? []).toEqual([]);
    expect(bodies[1].pix[0].devolucoes).toEqual([expect.objectContaining({ id: 'flowdev1', rtrId: done.rtrId, valor: '200.00', status: 'DEVOLVIDO' })]);
    // one event each: different webhook-ids
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(2);

    // 7. the balance moved by exactly what was paid less what was returned; the books still balance
    expect(await available()).toBe(balanceBefore + due - 20_000);
    expect(await ledgerAudit(srv.databasePath)).toEqual({ total: 0, mismatched: 0 });
  });
});
