import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveries } from '../../db/schema';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { waitFor } from '../support/wait';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { accountInServer, readServerDb } from '../support/withdrawals';

/*
 * Fair delivery (one merchant's stalled receiver cannot delay the others), over HTTP against the server
 * process, on both engines: merchant A points its 50 webhooks at a receiver that accepts every request and
 * never answers, and makes 2 charges (100 deliveries); merchant B's delivery to a healthy receiver still
 * arrives in well under a second. Before, A's deliveries held all 64 of the sender's slots and B's waited
 * for the 15 s timeout.
 */

interface Merchant { apiKey: string; token: string; accountId: string }

async function demoMerchant(srv: RunningServer): Promise<Merchant> {
  return { apiKey: srv.demo.apiKey, token: await accessToken(srv.url, srv.demo.code, srv.demo.token), accountId: srv.demo.accountId };
}

async function otherMerchant(srv: RunningServer, name: string): Promise<Merchant> {
  const b = await accountInServer(srv.url, srv.databasePath, { name });
  return { apiKey: b.api_key, token: b.accessToken, accountId: b.account_id };
}

async function registerWebhooks(srv: RunningServer, m: Merchant, urls: string[]) {
  const answers = await Promise.all(urls.map((url, i) => api(srv.url, '/api/webhooks', {
    body: { url, events: ['transaction'] },
    headers: { 'x-api-key': m.apiKey, 'x-token': m.token, 'idempotency-key': `fair-${m.accountId}-${i}` },
  })));
  expect(answers.map((a) => a.status)).toEqual(urls.map(() => 201));
}

async function charge(srv: RunningServer, m: Merchant) {
  const res = await api(srv.url, '/transaction', { token: m.token, body: txBody('PIX') });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

async function deliveriesOf(srv: RunningServer, accountId: string) {
  const { db, close } = readServerDb(srv.databasePath);
  try {
    return await db.handle.select({ status: deliveries.status, attempts: deliveries.attempts, nextAttemptAt: deliveries.nextAttemptAt, lastError: deliveries.lastError })
      .from(deliveries).where(eq(deliveries.accountId, accountId));
  } finally {
    close();
  }
}

describe('one merchant whose receiver never answers cannot delay the others', () => {
  let srv: RunningServer;
  let stalled: Receiver;
  let healthy: Receiver;

  beforeAll(async () => {
    stalled = await startReceiver(() => 'hang');
    healthy = await startReceiver();
    // Nothing times out during this test (A's 16 slots stay held throughout); the caps are the defaults.
    srv = await startServer({ env: { WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_HEADERS_TIMEOUT_MS: '60000' } });
  }, SERVER_TEST_TIMEOUT_MS);
  afterAll(async () => {
    // closing the stalled receiver first ends A's sends at once, so the server stops without waiting on them
    await stalled?.close();
    await healthy?.close();
    await srv?.stop();
    if (srv) removeDir(srv.dir);
  });

  it('A holds at most its share of the slots; B is delivered in under a second; A\'s other deliveries wait, due and unattempted', async () => {
    const a = await demoMerchant(srv);
    await registerWebhooks(srv, a, Array.from({ length: 50 }, (_, i) => `${stalled.url}/a-${i}`));
    await charge(srv, a);
    await charge(srv, a);
    // A's sends reach the stalled receiver and stay open there: as many as A's cap (16 by default)
    await waitFor(() => stalled.hanging().open >= 16, { what: "A's deliveries held open at the stalled receiver" });

    const b = await otherMerchant(srv, 'Merchant B');
    await registerWebhooks(srv, b, [`${healthy.url}/b`]);
    const started = Date.now();
    const chargeId = await charge(srv, b);
    const arrived = await waitFor(() => healthy.received.find((r) => r.path === '/b' && JSON.parse(r.body).data.id === chargeId), { what: "B's delivery" });
    const latencyMs = arrived.at - started;
    console.log(`B's delivery arrived ${latencyMs} ms after its charge was requested, while A held ${stalled.hanging().open} sends open`);
    expect(latencyMs).toBeLessThan(1_000);

    // A never had more than its cap open, and still has exactly that (nothing timed out)
    expect(stalled.hanging()).toEqual({ open: 16, maxOpen: 16 });
    // A's 100 deliveries: none failed, none lost, none attempted yet (the 16 in flight are not recorded until they end)
    const mine = await deliveriesOf(srv, a.accountId);
    expect(mine).toHaveLength(100);
    expect(mine.filter((d) => d.status !== 'PENDING' || d.attempts !== 0)).toEqual([]);
    expect(mine.filter((d) => d.nextAttemptAt === null)).toEqual([]);
  }, SERVER_TEST_TIMEOUT_MS);
});

describe('a receiver that accepts and never answers gives its slots back after the headers timeout and backs off', () => {
  let srv: RunningServer;
  let stalled: Receiver;

  beforeAll(async () => {
    stalled = await startReceiver(() => 'hang');
    srv = await startServer({
      env: { WEBHOOK_HEADERS_TIMEOUT_MS: '300', WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: '4', WEBHOOK_RETRY_SCHEDULE: '0,3600' },
    });
  }, SERVER_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await stalled?.close();
    await srv?.stop();
    if (srv) removeDir(srv.dir);
  });

  it('each of 12 deliveries is tried once, 4 at a time, fails on the headers timeout (not the 15 s one) and waits for its retry', async () => {
    const a = await demoMerchant(srv);
    await registerWebhooks(srv, a, Array.from({ length: 12 }, (_, i) => `${stalled.url}/a-${i}`));
    await charge(srv, a);
    const attempted = await waitFor(async () => {
      const mine = await deliveriesOf(srv, a.accountId);
      return mine.length === 12 && mine.every((d) => d.attempts === 1) ? mine : null;
    }, { what: 'one recorded attempt of each delivery', timeoutMs: 60_000 });
    for (const d of attempted) {
      expect(d).toMatchObject({ status: 'PENDING', lastError: 'no response headers after 300 ms' });
      // the retry schedule's second step: an hour after the attempt, not a slot taken again now
      expect(Date.parse(d.nextAttemptAt!)).toBeGreaterThan(Date.now() + 3_000_000);
    }
    expect(stalled.received).toHaveLength(12);
  }, SERVER_TEST_TIMEOUT_MS);
});
