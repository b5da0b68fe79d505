import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { recordEvent, type EventType, type RecordedEvent } from '@/server/domain/events';
import { serverServices, waitFor } from '../support/services';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { startReceiver } from '../support/webhook-receiver';

// every attempt 0.1 s after the last, for long enough to outlive the crash
const env = { WEBHOOK_RETRY_SCHEDULE: ['0', ...Array(300).fill('0.1')].join(',') };
const servers: RunningServer[] = [];
const receiverP = startReceiver(() => ({ status: 503 }));

afterAll(async () => {
  for (const s of servers) await s.stop();
  await (await receiverP).close();
  if (servers[0]) removeDir(servers[0].dir);
});

async function recordSome(databasePath: string, accountId: string, resources: string[], types: EventType[]): Promise<RecordedEvent[]> {
  // another process writing the server's database, as the payments code of issues 3/4 will inside it
  const side = serverServices(databasePath);
  try {
    const out: RecordedEvent[] = [];
    for (const type of types) {
      out.push(...await side.db.write(async (tx) => {
        const batch: RecordedEvent[] = [];
        for (const r of resources) batch.push(await recordEvent(tx, { accountId, type, resourceId: r, payload: { id: r, type }, at: new Date() }));
        return batch;
      }));
    }
    return out;
  } finally {
    await side.db.close();
  }
}

describe('deliveries survive a crash of the server', () => {
  it('SIGKILL while deliveries are pending; after a restart every event arrives, in order per resource', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const receiver = await receiverP;
    const first = await startServer({ env });
    servers.push(first);
    const headers = { 'x-api-key': first.demo.apiKey, 'x-token': await accessToken(first.url, first.demo.code, first.demo.token), 'idempotency-key': 'restart-1' };
    const created = await api(first.url, '/api/webhooks', { body: { url: `${receiver.url}/durable`, events: ['transaction', 'withdraw'] }, headers });
    expect(created.status).toBe(201);
    const secret: string = created.json.content.secret;
    const accountId = first.demo.accountId;

    const before = await recordSome(first.databasePath, accountId, ['txn_r1', 'txn_r2', 'txn_r3'], ['transaction.created', 'transaction.approved']);
    // the heads of the three queues are being retried (503), the second events wait behind them
    await waitFor(() => ['txn_r1', 'txn_r2', 'txn_r3'].every((r) => receiver.received.filter((x) => JSON.parse(x.body).data.id === r).length >= 2), { what: 'retries before the crash' });
    expect(receiver.received.every((r) => r.status === 503)).toBe(true);
    await first.kill();

    // more events while the server is down: recorded, never dispatched yet
    const during = await recordSome(first.databasePath, accountId, ['wd_r4', 'txn_r1'], ['withdraw.requested']);
    receiver.setAnswer(() => ({ status: 200 }));
    const second = await startServer({ env, dir: first.dir });
    servers.push(second);

    const all = [...before, ...during];
    await waitFor(() => all.every((e) => receiver.byId(e.id).some((r) => r.status === 200)), { what: 'every event delivered', timeoutMs: 30_000 });
    const delivered = receiver.received.filter((r) => r.status === 200);
    for (const r of delivered) expect(new Webhook(secret).verify(r.body, r.headers)).toBeTruthy();
    // dedupe by webhook-id: each event at least once, none missing, nothing unknown
    const ids = new Set(delivered.map((r) => r.headers['webhook-id']));
    expect([...ids].sort()).toEqual(all.map((e) => e.id).sort());
    // per resource, first successful receipts follow the order the events happened in (recorded one after
    // another, so `all` is in that order)
    for (const resource of ['txn_r1', 'txn_r2', 'txn_r3', 'wd_r4']) {
      const expected = all.filter((e) => e.resourceId === resource).map((e) => e.id);
      const got = [...new Set(delivered.filter((r) => JSON.parse(r.body).data.id === resource).map((r) => r.headers['webhook-id']))];
      expect(got, resource).toEqual(expected);
    }
  });
});
