import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../server/http/api';
import { dropPixKeyWebhook, queuePixDevolucaoDelivery, queuePixReceivedDelivery } from '../../server/domain/pix-api/webhooks';
import { removePixKey } from '../../server/domain/pix-api/keys';
import { decryptSecret } from '../../server/domain/webhooks/secrets';
import { appRouter } from '../../server/routers';
import type { Services } from '../../server/services';
import { checkBcbSchema, expectBcbResponse } from '../support/bcb-contract';
import { accessToken, api, type RunningServer } from '../support/server';
import { pixApiHarness, pixApiToken, type OtherAccount } from '../support/pix-api-harness';
import { callerFor, makeAccount, makeTestServices, waitFor, type TestServices } from '../support/services';
import { type Receiver } from '../support/webhook-receiver';

/*
 * The API Pix webhooks per key (/v2/webhook), over HTTP against the running server with API Pix tokens,
 * every answer checked against the yaml; and the notifications: queued inside a write job (as the pay and
 * devolução jobs do) from this process over the server's database, delivered by the server's own sender
 * to a receiver on 127.0.0.1 as `POST {webhookUrl}/pix` with `{"pix":[…]}`, signed, retried, logged and
 * resent like every other delivery. Both engines.
 */

const harness = pixApiHarness({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0.05,0.1' }, other: true, receiver: true });
let srv: RunningServer;
let side: Services;
let receiver: Receiver;
let full: string;
let readOnly: string;
let other: OtherAccount;

const path = (chave: string) => `/v2/webhook/${encodeURIComponent(chave)}`;

beforeAll(async () => {
  ({ srv, side, receiver, token: full, other } = harness);
  readOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'webhook.read');
});

describe('PUT, GET, list and DELETE /v2/webhook/{chave}', () => {
  it('registers a URL for one of the account\'s keys, shows it, lists it, replaces it and removes it', async () => {
    const key = srv.demo.pixKey;
    const before = Date.now();
    const put = await api(srv.url, path(key), { method: 'PUT', token: full, body: { webhookUrl: `${receiver.url}/hook/` } });
    expect(put.status, put.text).toBe(200);
    expectBcbResponse('PUT', '/webhook/{chave}', 200, put.text);

    const got = await api(srv.url, path(key), { token: readOnly });
    expect(got.status).toBe(200);
    expectBcbResponse('GET', '/webhook/{chave}', 200, got.json);
    expect(got.json).toEqual({ webhookUrl: `${receiver.url}/hook/`, chave: key, criacao: expect.any(String) });
    expect(Date.parse(got.json.criacao)).toBeGreaterThanOrEqual(before - 1000);

    // a new URL replaces the old one; the webhook keeps its creation time
    const again = await api(srv.url, path(key), { method: 'PUT', token: full, body: { webhookUrl: `${receiver.url}/hook2` } });
    expect(again.status).toBe(200);
    const replaced = await api(srv.url, path(key), { token: readOnly });
    expect(replaced.json).toEqual({ webhookUrl: `${receiver.url}/hook2`, chave: key, criacao: got.json.criacao });

    const list = await api(srv.url, '/v2/webhook', { token: readOnly });
    expect(list.status).toBe(200);
    expectBcbResponse('GET', '/webhook', 200, list.json);
    expect(list.json.webhooks).toEqual([replaced.json]);
    expect(list.json.parametros.paginacao).toEqual({ paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 1 });
    // the window of creation: a fim before it leaves it out
    const early = await api(srv.url, `/v2/webhook?inicio=2020-01-01T00:00:00Z&fim=2020-12-01T17:00:00Z`, { token: readOnly });
    expectBcbResponse('GET', '/webhook', 200, early.json);
    expect(early.json.webhooks).toEqual([]);
    expect(early.json.parametros).toMatchObject({ inicio: '2020-01-01T00:00:00Z', fim: '2020-12-01T17:00:00Z' });

    const del = await api(srv.url, path(key), { method: 'DELETE', token: full });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await api(srv.url, path(key), { token: readOnly });
    expect(gone.status).toBe(404);
    expectBcbResponse('GET', '/webhook/{chave}', 404, gone.json);
    expect(gone.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/WebhookNaoEncontrado');
    const delAgain = await api(srv.url, path(key), { method: 'DELETE', token: full });
    expect(delAgain.status).toBe(404);
    expectBcbResponse('DELETE', '/webhook/{chave}', 404, delAgain.json);
  });

  it('refuses bad input with 400 WebhookOperacaoInvalida naming the property, and stores nothing', async () => {
    const key = srv.demo.pixKey;
    const cases: { chave: string; body: unknown; propriedade: string }[] = [
      { chave: other.pixKey, body: { webhookUrl: `${receiver.url}/x` }, propriedade: 'webhook.chave' },
      { chave: 'not-a-key-of-anyone@example.com', body: { webhookUrl: `${receiver.url}/x` }, propriedade: 'webhook.chave' },
      { chave: key, body: { webhookUrl: 'not a url' }, propriedade: 'webhook.webhookUrl' },
      { chave: key, body: { webhookUrl: 'ftp://example.com/x' }, propriedade: 'webhook.webhookUrl' },
      { chave: key, body: {}, propriedade: 'webhook.webhookUrl' },
      { chave: key, body: { webhookUrl: `${receiver.url}/x`, extra: 1 }, propriedade: 'webhook.extra' },
      { chave: key, body: { webhookUrl: 42 }, propriedade: 'webhook.webhookUrl' },
      { chave: 'x'.repeat(78), body: { webhookUrl: `${receiver.url}/x` }, propriedade: 'webhook.chave' },
    ];
    for (const c of cases) {
      const r = await api(srv.url, path(c.chave), { method: 'PUT', token: full, body: c.body });
      expect(r.status, `${JSON.stringify(c)} → ${r.text}`).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expectBcbResponse('PUT', '/webhook/{chave}', 400, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/WebhookOperacaoInvalida');
      expect(r.json.violacoes.map((v: { propriedade: string }) => v.propriedade), JSON.stringify(c)).toContain(c.propriedade);
    }
    const list = await api(srv.url, '/v2/webhook', { token: readOnly });
    expect(list.json.webhooks).toEqual([]);
    // a list query that makes no sense
    const q = await api(srv.url, '/v2/webhook?inicio=2021-01-01T00:00:00Z&fim=2020-01-01T00:00:00Z', { token: readOnly });
    expect(q.status).toBe(400);
    expect(q.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/WebhookConsultaInvalida');
    expect(q.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'fim' })]);
  });

  it('answers another account\'s webhook as not found, and needs the scope', async () => {
    const theirs = await api(srv.url, path(other.pixKey), { method: 'PUT', token: other.token, body: { webhookUrl: `${receiver.url}/theirs` } });
    expect(theirs.status).toBe(200);
    for (const method of ['GET', 'DELETE']) {
      const r = await api(srv.url, path(other.pixKey), { method, token: full });
      expect(r.status).toBe(404);
      expectBcbResponse(method, '/webhook/{chave}', 404, r.json);
      expect(r.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/WebhookNaoEncontrado');
    }
    expect((await api(srv.url, '/v2/webhook', { token: full })).json.webhooks).toEqual([]);
    // still theirs
    expect((await callerFor(side, other.accountId, 'pix-api').pixWebhooks.get({ chave: other.pixKey })).webhookUrl).toBe(`${receiver.url}/theirs`);

    const denied = await api(srv.url, path(srv.demo.pixKey), { method: 'PUT', token: readOnly, body: { webhookUrl: `${receiver.url}/x` } });
    expect(denied.status).toBe(403);
    expectBcbResponse('PUT', '/webhook/{chave}', 403, denied.json);
    expect(denied.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
    const writeOnly = await pixApiToken(srv.url, srv.demo.pixClientId, srv.demo.pixClientSecret, 'webhook.write');
    for (const [method, p] of [['GET', path(srv.demo.pixKey)], ['GET', '/v2/webhook']] as const) {
      const r = await api(srv.url, p, { method, token: writeOnly });
      expect(r.status).toBe(403);
      expectBcbResponse(method, p === '/v2/webhook' ? '/webhook' : '/webhook/{chave}', 403, r.json);
    }
    expect((await api(srv.url, path(srv.demo.pixKey), { method: 'PUT', body: { webhookUrl: `${receiver.url}/x` } })).status).toBe(401);
  });

  it('drops the webhook of a key the account removes, in the same job', async () => {
    const api2 = callerFor(side, other.accountId, 'session');
    const extra = await api2.pixKeys.add({ key_type: 'EVP' });
    expect((await api(srv.url, path(extra.key), { method: 'PUT', token: other.token, body: { webhookUrl: `${receiver.url}/extra` } })).status).toBe(200);
    expect((await api2.pixWebhooks.list({})).webhooks.map((w) => w.chave)).toContain(extra.key);
    await removePixKey(side, other.accountId, extra.id);
    expect((await api2.pixWebhooks.list({})).webhooks.map((w) => w.chave)).not.toContain(extra.key);
  });
});

describe('paging and races', () => {
  it('pages the list with paginaAtual and itensPorPagina', async () => {
    const caller = callerFor(side, other.accountId, 'session');
    const keys = [await caller.pixKeys.add({ key_type: 'EVP' }), await caller.pixKeys.add({ key_type: 'EVP' })];
    for (const k of keys) {
      expect((await api(srv.url, path(k.key), { method: 'PUT', token: other.token, body: { webhookUrl: `${receiver.url}/p` } })).status).toBe(200);
    }
    const all = await api(srv.url, '/v2/webhook', { token: other.token });
    const n = all.json.webhooks.length;
    expect(n).toBeGreaterThanOrEqual(2);
    const second = await api(srv.url, '/v2/webhook?paginacao.paginaAtual=1&paginacao.itensPorPagina=1', { token: other.token });
    expectBcbResponse('GET', '/webhook', 200, second.json);
    expect(second.json.webhooks).toEqual([all.json.webhooks[1]]);
    expect(second.json.parametros.paginacao).toEqual({ paginaAtual: 1, itensPorPagina: 1, quantidadeDePaginas: n, quantidadeTotalDeItens: n });
    const past = await api(srv.url, `/v2/webhook?paginacao.paginaAtual=${n}&paginacao.itensPorPagina=1`, { token: other.token });
    expect(past.json.webhooks).toEqual([]);
    const bad = await api(srv.url, '/v2/webhook?paginacao.itensPorPagina=0', { token: other.token });
    expect(bad.status).toBe(400);
    // (the yaml's responses of GET /webhook list no 400; its error catalog gives WebhookConsultaInvalida 400)
    expect(bad.json.type).toBe('https://pix.bcb.gov.br/api/v2/error/WebhookConsultaInvalida');
    expect(bad.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'paginacao.itensPorPagina', valor: '0' })]);
  });

  it('a webhook registered while its key is removed never outlives the key', async () => {
    const caller = callerFor(side, other.accountId, 'session');
    for (let i = 0; i < 5; i++) {
      const k = await caller.pixKeys.add({ key_type: 'EVP' });
      const results = await Promise.allSettled([
        api(srv.url, path(k.key), { method: 'PUT', token: other.token, body: { webhookUrl: `${receiver.url}/race` } }),
        removePixKey(side, other.accountId, k.id),
      ]);
      expect(results[1].status).toBe('fulfilled');
      const got = await api(srv.url, path(k.key), { token: other.token });
      expect(got.status).toBe(404);
    }
  });
});

describe('where private addresses are not allowed (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let s: TestServices;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    s = await makeTestServices({ config: { webhookAllowPrivateUrls: false } });
    const handler = createApiHandler(s, appRouter);
    server = createServer((req, res) => { void handler.handle(req, res); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await s?.cleanup();
  });

  it('refuses a private, loopback or plain-http URL with 400 naming webhookUrl, and stores nothing', async () => {
    const acc = await makeAccount(s);
    const token = await pixApiToken(url, acc.pix_client_id, acc.pix_client_secret);
    for (const webhookUrl of ['https://127.0.0.1/x', 'https://10.0.0.7/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://0x7f000001/x', 'http://93.184.216.34/x']) {
      const r = await api(url, path(acc.pix_key), { method: 'PUT', token, body: { webhookUrl } });
      expect(r.status, `${webhookUrl} → ${r.text}`).toBe(400);
      expectBcbResponse('PUT', '/webhook/{chave}', 400, r.json);
      expect(r.json.violacoes).toEqual([expect.objectContaining({ propriedade: 'webhook.webhookUrl', valor: webhookUrl })]);
    }
    const list = await api(url, '/v2/webhook', { token });
    expect(list.json.webhooks).toEqual([]);
  });
});

describe('notifications of Pix received to {webhookUrl}/pix', () => {
  let postbackSecret: string;
  let webhookApi: Record<string, string>;
  beforeAll(async () => {
    // the account's postback secret signs them: the one the dashboard reveals (read here from the database)
    postbackSecret = decryptSecret((await side.db.read.accounts.postbackSecretEncrypted(srv.demo.accountId))!, side.masterKey);
    webhookApi = { 'x-api-key': srv.demo.apiKey, 'x-token': await accessToken(srv.url, srv.demo.code, srv.demo.token) };
  });

  const e2eid = (n: number) => `E12345678202611271912${String(n).padStart(11, '0')}`;
  const pixOf = (n: number, extra: Record<string, unknown> = {}) => ({
    endToEndId: e2eid(n), txid: 'c3e0e7a4e7f1469a9f782d3d4999343c', valor: '110.00', chave: srv.demo.pixKey,
    horario: '2026-11-27T19:12:00.358Z', infoPagador: 'Pedido 123', ...extra,
  });

  it('POSTs {"pix":[…]} signed with the Standard Webhooks headers; retries a failing receiver; logs every attempt; resends by hand', async () => {
    const put = await api(srv.url, path(srv.demo.pixKey), { method: 'PUT', token: full, body: { webhookUrl: `${receiver.url}/bank/` } });
    expect(put.status).toBe(200);
    // the first two attempts fail, the third is taken
    let seen = 0;
    receiver.setAnswer((r) => (r.path === '/bank/pix' && ++seen <= 2 ? { status: 503 } : { status: 200 }));

    const pix = pixOf(1);
    expect(checkBcbSchema('Pix', pix)).toEqual({ ok: true, errors: '' });
    const deliveryId = await side.db.write((tx) => queuePixReceivedDelivery(tx, {
      accountId: srv.demo.accountId, chave: srv.demo.pixKey, resourceId: pix.endToEndId, pix, at: new Date(),
    }));
    expect(deliveryId).toMatch(/^dlv_/);

    const got = await waitFor(() => {
      const hits = receiver.received.filter((r) => r.path === '/bank/pix');
      return hits.length === 3 && hits[2].status === 200 ? hits : null;
    }, { what: 'three attempts at /bank/pix' });
    for (const hit of got) {
      expect(JSON.parse(hit.body)).toEqual({ pix: [pix] });
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['x-webhook-event']).toBe('PIX');
      expect(new Webhook(postbackSecret).verify(hit.body, hit.headers)).toEqual({ pix: [pix] });
    }
    // one event: the same webhook-id on every attempt (receivers dedupe on it)
    expect(new Set(got.map((h) => h.headers['webhook-id'])).size).toBe(1);

    // the delivery log: the delivery with its attempts and the exact body, and the account's notifications
    const one = await waitFor(async () => {
      const r = await api(srv.url, `/api/webhooks/deliveries/${deliveryId}`, { headers: webhookApi });
      return r.json?.content?.status === 'DELIVERED' ? r : null;
    }, { what: 'the delivery recorded DELIVERED' });
    expect(one.json.content).toMatchObject({ target: 'pix', url: `${receiver.url}/bank/pix`, resource_id: pix.endToEndId, event_type: 'pix.received', webhook_id: null });
    expect(one.json.content.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 200]);
    expect(JSON.parse(one.json.content.payload)).toEqual({ pix: [pix] });
    const log = await callerFor(side, srv.demo.accountId, 'webhook-api').webhooks.postbackDeliveries({ target: 'pix', resourceId: pix.endToEndId });
    expect(log.items.map((x) => [x.id, x.status])).toEqual([[deliveryId, 'DELIVERED']]);
    // the postbacks' own log does not mix them in
    expect((await callerFor(side, srv.demo.accountId, 'webhook-api').webhooks.postbackDeliveries({})).items.map((x) => x.id)).not.toContain(deliveryId);

    const resent = await api(srv.url, `/api/webhooks/deliveries/${deliveryId}/resend`, { method: 'POST', headers: webhookApi });
    expect(resent.status).toBe(202);
    const four = await waitFor(() => {
      const hits = receiver.received.filter((r) => r.path === '/bank/pix');
      return hits.length === 4 ? hits[3] : null;
    }, { what: 'the resend' });
    expect(four.headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    expect(new Webhook(postbackSecret).verify(four.body, four.headers)).toEqual({ pix: [pix] });
  });

  it('sends the Pix again with its devolucoes when a devolução changes, after the earlier notification', async () => {
    receiver.setAnswer(() => ({ status: 200 }));
    const pix = pixOf(2);
    const withDevolucao = {
      ...pix,
      devolucoes: [{ id: 'D1', rtrId: 'D12345678202611271912abcdf098765', valor: '10.00', horario: { solicitacao: '2026-11-27T19:20:00.000Z', liquidacao: '2026-11-27T19:20:01.000Z' }, status: 'DEVOLVIDO' }],
    };
    expect(checkBcbSchema('Pix', withDevolucao)).toEqual({ ok: true, errors: '' });
    const base = { accountId: srv.demo.accountId, chave: srv.demo.pixKey, resourceId: pix.endToEndId, at: new Date() };
    await side.db.write(async (tx) => {
      await queuePixReceivedDelivery(tx, { ...base, pix });
      await queuePixDevolucaoDelivery(tx, { ...base, pix: withDevolucao });
    });
    const hits = await waitFor(() => {
      const h = receiver.received.filter((r) => r.path === '/bank/pix' && r.body.includes(pix.endToEndId));
      return h.length === 2 ? h : null;
    }, { what: 'both notifications of the Pix' });
    expect(hits.map((h) => JSON.parse(h.body))).toEqual([{ pix: [pix] }, { pix: [withDevolucao] }]);
  });

  it('queues nothing for a key without a webhook, and stops what is queued for one that is removed', async () => {
    // another account's key with no webhook of its own: nothing queued
    const none = await side.db.write((tx) => queuePixReceivedDelivery(tx, {
      accountId: srv.demo.accountId, chave: other.pixKey, resourceId: e2eid(3), pix: pixOf(3, { chave: other.pixKey }), at: new Date(),
    }));
    expect(none).toBeNull();

    // queued, then the webhook removed before the sender saw it (one job, so no attempt can come between)
    const id = await side.db.write(async (tx) => {
      const queued = await queuePixReceivedDelivery(tx, {
        accountId: srv.demo.accountId, chave: srv.demo.pixKey, resourceId: e2eid(4), pix: pixOf(4), at: new Date(),
      });
      await dropPixKeyWebhook(tx, srv.demo.accountId, srv.demo.pixKey, new Date());
      return queued;
    });
    const r = await api(srv.url, `/api/webhooks/deliveries/${id}`, { headers: webhookApi });
    expect(r.json.content).toMatchObject({ status: 'FAILED', last_error: 'webhook of the Pix key removed', attempts: [] });
    expect((await api(srv.url, path(srv.demo.pixKey), { token: full })).status).toBe(404);
    expect(receiver.received.some((x) => x.body.includes(e2eid(4)))).toBe(false);
    // and a resend by hand has nowhere to go
    const resend = await api(srv.url, `/api/webhooks/deliveries/${id}/resend`, { method: 'POST', headers: webhookApi });
    expect(resend.status).toBe(422);
    expect(resend.json.message).toMatch(/Pix key webhook .* removed/);
  });
});
