import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient, type PaymentsClient } from '@/server/client';
import { secretKeyBytes } from '@/server/domain/webhooks/secrets';
import { waitFor } from '../support/services';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { startReceiver, type Received, type Receiver } from '../support/webhook-receiver';

/*
 * Real events end to end, all over HTTP against the server process: a withdrawal and a card
 * transaction (then its dispute) created through the payments REST API, with a postback URL, reach a
 * webhook registered through the webhook API and the postback URL at a real receiver on 127.0.0.1.
 * Every receipt is verified with the standardwebhooks package: the webhook's with the secret the
 * create answered, the postbacks' with the account's postback secret as the dashboard shows it.
 */

let srv: RunningServer;
let receiver: Receiver;
let token: string;
let webhookApi: Record<string, string>;
let client: PaymentsClient;
let hookSecret: string;
let postbackSecret: string;

beforeAll(async () => {
  srv = await startServer({ env: { SANDBOX_SETTLEMENT_DELAY_MS: '50', WEBHOOK_RETRY_SCHEDULE: '0,0.05,0.1' } });
  receiver = await startReceiver();
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  webhookApi = { 'x-api-key': srv.demo.apiKey, 'x-token': token };
  client = createPaymentsClient({ url: srv.url, accessToken: token, apiKey: srv.demo.apiKey });

  // The postback secret as a merchant reads it: signed in to the dashboard, over tRPC on HTTP.
  const signIn = await fetch(`${srv.url}/api/trpc/session.signIn`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
  });
  expect(signIn.status).toBe(200);
  const cookies = signIn.headers.getSetCookie().map((c) => c.split(';')[0]);
  const cookie = cookies.join('; ');
  const csrf = decodeURIComponent(cookies.find((c) => c.startsWith('pp_csrf='))!.slice('pp_csrf='.length));
  // revealing it takes the password again (a mutation, with the session's CSRF token)
  const shown = await fetch(`${srv.url}/api/trpc/dashboard.postbackSecret`, {
    method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ password: srv.demo.password }),
  });
  expect(shown.status).toBe(200);
  postbackSecret = ((await shown.json()) as { result: { data: { postback_secret: string } } }).result.data.postback_secret;
  expect(postbackSecret).toMatch(/^whsec_/);

  const created = await api(srv.url, '/api/webhooks', {
    body: { url: `${receiver.url}/hook`, events: ['withdraw', 'transaction', 'dispute'] },
    headers: { ...webhookApi, 'idempotency-key': 'flow-hook' },
  });
  expect(created.status).toBe(201);
  hookSecret = created.json.content.secret;
});

afterAll(async () => {
  await receiver?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

const envelopeOf = (r: Received) => JSON.parse(r.body) as { id: string; type: string; category: string; created_at: string; data: Record<string, unknown> };
const at = (path: string, resourceId: string) => receiver.received.filter((r) => r.path === path && envelopeOf(r).data.id === resourceId);
const typesAt = (path: string, resourceId: string) => at(path, resourceId).map((r) => envelopeOf(r).type);

/** Every receipt verifies under its target's secret (and only that one), with both header families. */
function verifyAll(list: Received[], secret: string, wrong: string, category: string) {
  for (const r of list) {
    const payload = new Webhook(secret).verify(r.body, r.headers) as { id: string };
    expect(r.headers['webhook-id']).toBe(payload.id);
    expect(r.headers['x-webhook-event']).toBe(category);
    expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', secretKeyBytes(secret)).update(r.body).digest('hex'));
    expect(() => new Webhook(wrong).verify(r.body, r.headers)).toThrow();
  }
}

describe('real payment events reach webhooks and postbacks over HTTP', () => {
  it('a withdrawal created over REST with a postback: withdraw.requested then withdraw.paid, at both targets, verified', async () => {
    const created = await api(srv.url, '/withdraw/pix', {
      token,
      body: {
        amount: 12_345, key: 'fulano@example.com', key_type: 'EMAIL', description: 'Saque',
        details: { name: 'Fulano de Tal', document: '529.982.247-25' }, postback: `${receiver.url}/postback`, external_ref: 'flow-wd-1',
      },
    });
    expect(created.status).toBe(201);
    const withdrawal = (await api(srv.url, `/withdraw?identifier=${created.json.data[0].identifier}`, { token })).json;
    const id: string = withdrawal.id;

    await waitFor(() => ['/hook', '/postback'].every((p) => typesAt(p, id).includes('withdraw.paid')), { what: 'withdraw.paid at both targets' });
    for (const p of ['/hook', '/postback']) expect(typesAt(p, id), p).toEqual(['withdraw.requested', 'withdraw.paid']);
    verifyAll(at('/postback', id), postbackSecret, hookSecret, 'WITHDRAW');
    verifyAll(at('/hook', id), hookSecret, postbackSecret, 'WITHDRAW');

    // one event per change, the same event (and webhook-id) to both targets
    const ids = (p: string) => at(p, id).map((r) => r.headers['webhook-id']);
    expect(ids('/postback')).toEqual(ids('/hook'));
    // data is the resource as GET /withdraw returns it at that moment
    const [requested, paid] = at('/postback', id).map(envelopeOf);
    const now = (await api(srv.url, `/withdraw?identifier=${id}`, { token })).json;
    expect(paid).toMatchObject({ type: 'withdraw.paid', category: 'withdraw', data: now });
    expect(now.status).toBe('PAID');
    expect(requested.data).toMatchObject({ id, status: 'REQUESTED', amount: 12_345, operation: now.operation });
    expect((requested.data.receipt as { status: string }[]).every((b) => b.status === 'PENDING')).toBe(true);
    expect(Date.parse(requested.created_at)).toBeLessThanOrEqual(Date.parse(paid.created_at));

    // every attempt is in the delivery log (tRPC over HTTP with x-api-key + x-token)
    const hooks = await client.webhooks.list.query();
    // (the receiver has its answer a moment before the sender records it: wait for the record)
    const mine = await waitFor(async () => {
      const log = await client.webhooks.deliveries.query({ magic_id: hooks.content[0].magic_id });
      const list = log.content.filter((d) => d.resource_id === id);
      return list.length === 2 && list.every((d) => d.status !== 'PENDING') ? list : null;
    }, { what: 'both deliveries recorded' });
    expect(mine.map((d) => d.event_type).sort()).toEqual(['withdraw.paid', 'withdraw.requested']);
    for (const d of mine) {
      expect(d).toMatchObject({ status: 'DELIVERED', attempt_count: 1, target: 'webhook', last_status_code: 200 });
      expect(d.attempts).toEqual([expect.objectContaining({ status_code: 200, response_excerpt: 'ok', error: null })]);
    }

    // resend by hand over tRPC: one more receipt, same body and webhook-id, freshly signed
    const paidDelivery = mine.find((d) => d.event_type === 'withdraw.paid')!;
    const before = receiver.byId(paidDelivery.event_id).filter((r) => r.path === '/hook');
    const resent = await client.webhooks.resend.mutate({ delivery_id: paidDelivery.id });
    expect(resent).toMatchObject({ code: 202, content: { id: paidDelivery.id, status: 'PENDING' } });
    await waitFor(() => receiver.byId(paidDelivery.event_id).filter((r) => r.path === '/hook').length === before.length + 1, { what: 'resent delivery' });
    const again = receiver.byId(paidDelivery.event_id).filter((r) => r.path === '/hook').at(-1)!;
    expect(again.body).toBe(before[0].body);
    expect(new Webhook(hookSecret).verify(again.body, again.headers)).toMatchObject({ id: paidDelivery.event_id });

    // the postback's delivery, found in the postback log, resent over REST: signed with the postback secret again
    const postbacks = (await client.webhooks.postbackDeliveries.query({ resourceId: id })).items;
    expect(postbacks.map((d) => d.event_type).sort()).toEqual(['withdraw.paid', 'withdraw.requested']);
    const pb = postbacks.find((d) => d.event_type === 'withdraw.requested')!;
    expect(pb).toMatchObject({ target: 'postback', url: `${receiver.url}/postback`, status: 'DELIVERED', attempt_count: 1 });
    const res = await api(srv.url, `/api/webhooks/deliveries/${pb.id}/resend`, { method: 'POST', headers: webhookApi });
    expect(res.status).toBe(202);
    await waitFor(() => receiver.byId(pb.event_id).filter((r) => r.path === '/postback').length === 2, { what: 'resent postback' });
    const [firstPb, resentPb] = receiver.byId(pb.event_id).filter((r) => r.path === '/postback');
    expect(resentPb.body).toBe(firstPb.body);
    expect(new Webhook(postbackSecret).verify(resentPb.body, resentPb.headers)).toMatchObject({ id: pb.event_id, type: 'withdraw.requested' });
  });

  it('a card transaction with a postback and its dispute: transaction and dispute events at both targets, verified', async () => {
    const created = await api(srv.url, '/transaction', { token, body: txBody('CARD', { postback: `${receiver.url}/postback`, externalRef: 'flow-tx-1' }) });
    expect(created.status).toBe(201);
    expect(created.json.status).toBe('APPROVED');
    const id: string = created.json.id;
    await waitFor(() => ['/hook', '/postback'].every((p) => typesAt(p, id).includes('transaction.approved')), { what: 'transaction.approved at both targets' });
    for (const p of ['/hook', '/postback']) expect(typesAt(p, id), p).toEqual(['transaction.created', 'transaction.approved']);
    verifyAll(at('/postback', id), postbackSecret, hookSecret, 'TRANSACTION');
    verifyAll(at('/hook', id), hookSecret, postbackSecret, 'TRANSACTION');
    const now = (await api(srv.url, `/transaction?id=${id}`, { token })).json;
    expect(envelopeOf(at('/postback', id)[1]).data).toEqual(now);

    const dispute = await api(srv.url, `/sandbox/transactions/${id}/dispute`, { token, method: 'POST' });
    expect(dispute.status).toBe(201);
    const disputeId: string = dispute.json.id;
    await waitFor(() => ['/hook', '/postback'].every((p) => typesAt(p, disputeId).includes('dispute.opened')), { what: 'dispute.opened at both targets' });
    verifyAll(at('/postback', disputeId), postbackSecret, hookSecret, 'DISPUTE');
    verifyAll(at('/hook', disputeId), hookSecret, postbackSecret, 'DISPUTE');
    expect(envelopeOf(at('/hook', disputeId)[0])).toMatchObject({ type: 'dispute.opened', category: 'dispute', data: dispute.json });
  });

  it('a webhook subscribed to other categories gets nothing; a deleted one stops receiving', async () => {
    const only = await api(srv.url, '/api/webhooks', {
      body: { url: `${receiver.url}/only-dispute`, events: ['dispute'] }, headers: { ...webhookApi, 'idempotency-key': 'flow-only' },
    });
    expect(only.status).toBe(201);
    const created = await api(srv.url, '/withdraw/pix', {
      token, body: { amount: 100, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '52998224725' } },
    });
    expect(created.status).toBe(201);
    const id: string = (await api(srv.url, `/withdraw?identifier=${created.json.data[0].identifier}`, { token })).json.id;
    await waitFor(() => typesAt('/hook', id).includes('withdraw.paid'), { what: 'withdraw.paid at the hook' });
    // no postback on this one, and the dispute-only webhook got no withdraw event
    expect(at('/postback', id)).toEqual([]);
    expect(receiver.received.filter((r) => r.path === '/only-dispute')).toEqual([]);

    // deleted over REST: the next withdrawal's events reach its postback but no longer the webhook
    const hookId = (await client.webhooks.list.query()).content.find((w) => w.url === `${receiver.url}/hook`)!.magic_id;
    expect((await api(srv.url, `/api/webhooks/${hookId}`, { method: 'DELETE', headers: webhookApi })).status).toBe(200);
    const next = await api(srv.url, '/withdraw/pix', {
      token, body: { amount: 100, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '52998224725' }, postback: `${receiver.url}/postback` },
    });
    expect(next.status).toBe(201);
    const nextId: string = (await api(srv.url, `/withdraw?identifier=${next.json.data[0].identifier}`, { token })).json.id;
    await waitFor(() => typesAt('/postback', nextId).includes('withdraw.paid'), { what: 'withdraw.paid at the postback' });
    expect(at('/hook', nextId)).toEqual([]);
  });
});
