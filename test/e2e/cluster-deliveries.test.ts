// @engines postgres: 3 instances on one PostgreSQL database share the webhook deliveries
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveries } from '../../db/schema';
import { auditBooks } from '../../server/domain/audit';
import { auditLedger } from '../../server/domain/ledger';
import { DELIVERING_CLUSTER_ENV, everyDeliveryDelivered, eventsOncePaid, startCluster, subscribeToWithdrawals, type RunningCluster } from '../support/cluster';
import { phoneWithdrawal } from '../support/withdrawals';
import { api, SERVER_TEST_TIMEOUT_MS } from '../support/server';
import { waitFor } from '../support/services';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Shared state across instances (docs/decisions.md "Engines"), webhook delivery on several instances: 3
 * instances (npm run cluster, on this file's PostgreSQL), every one of them dispatching events and sending
 * deliveries (scripts/cluster.ts). 100 withdrawals through the balancer make 200 events
 * (withdraw.requested, then withdraw.paid, per withdrawal), each delivered to a receiver on 127.0.0.1:
 * exactly once, in order per withdrawal, and sent by more than one instance. Then the ledger audit.
 */
const WITHDRAWALS = 100;
const WORKERS = 8;
const INSTANCES = 3;

let cluster: RunningCluster;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  cluster = await startCluster({
    instances: INSTANCES,
    env: DELIVERING_CLUSTER_ENV,
  });
}, SERVER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.cleanup();
  await receiver?.close();
}, SERVER_TEST_TIMEOUT_MS);

const withdrawal = (i: number) => phoneWithdrawal({ external_ref: `deliveries-${i}` });

describe('webhook deliveries shared by 3 instances', () => {
  it('delivers each of 200 events exactly once, in order per resource, sent by several instances; the books balance', async () => {
    const { db } = cluster;
    const acc = await cluster.fundedAccount(10_000_000, 'Deliveries Merchant');
    const hook = await subscribeToWithdrawals(cluster, acc, `${receiver.url}/hook`, 'cluster-deliveries-hook');
    expect(hook.status).toBe(201);

    let next = 0;
    const worker = async () => {
      while (next < WITHDRAWALS) {
        const i = next++;
        // as a careful client does: an idempotency key, and the same request again when the connection
        // drops before the answer (a busy balancer may close a kept-alive one); the key keeps it one withdrawal
        const send = () => api(cluster.balancer, '/withdraw/pix', { token: acc.accessToken, body: withdrawal(i), headers: { 'idempotency-key': `cluster-deliveries-${i}` } });
        let r: Awaited<ReturnType<typeof api>> | undefined;
        for (let attempt = 1; !r; attempt++) {
          try { r = await send(); } catch (err) { if (attempt >= 3) throw err; }
        }
        expect(r.status).toBe(201);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));

    // every withdrawal paid: its two events exist (requested, paid)
    const accountEvents = await eventsOncePaid(db, acc.account_id, WITHDRAWALS);
    expect(accountEvents).toHaveLength(2 * WITHDRAWALS);

    // every event delivered (recorded DELIVERED after one attempt each)
    await everyDeliveryDelivered(db, acc.account_id, accountEvents.length);
    const rows = await db.read.handle.select({ eventId: deliveries.eventId, attempts: deliveries.attempts, lease: deliveries.leaseExpiresAt })
      .from(deliveries).where(eq(deliveries.accountId, acc.account_id));
    expect(rows.filter((d) => d.attempts !== 1)).toEqual([]);
    expect(rows.filter((d) => d.lease !== null)).toEqual([]);

    // exactly once at the receiver: one request per event (webhook-id is the event id)
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(accountEvents.length);
    expect(new Set(ids).size).toBe(accountEvents.length);
    expect([...ids].sort()).toEqual(accountEvents.map((e) => e.id).sort());

    // in order per resource: each withdrawal's events arrived in their seq order
    const arrival = new Map(ids.map((id, i) => [id, i]));
    const byResource = new Map<string, number[]>();
    for (const e of accountEvents) byResource.set(e.resourceId, [...(byResource.get(e.resourceId) ?? []), arrival.get(e.id)!]);
    const outOfOrder = [...byResource].filter(([, order]) => order.some((v, i) => i > 0 && v < order[i - 1]));
    expect(outOfOrder).toEqual([]);

    // who sent them: every instance delivers (the split depends on who wakes first)
    const attemptsPerInstance = () => {
      const counts = new Map<string, number>();
      for (const line of cluster.output().split('\n')) {
        const m = /^\[(i\d+)\] .*"msg":"delivery attempt"/.exec(line);
        if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
      }
      return counts;
    };
    // an instance's log lines leave in batches (server/log.ts): the last may trail its delivery by a flush
    const perInstance = await waitFor(() => {
      const counts = attemptsPerInstance();
      return [...counts.values()].reduce((x, y) => x + y, 0) >= accountEvents.length && counts;
    }, { what: 'a delivery attempt line for every event' });
    const sent = Object.fromEntries([...perInstance].sort());
    console.log(`deliveries sent per instance: ${JSON.stringify(sent)}`);
    expect([...perInstance.values()].reduce((x, y) => x + y, 0)).toBe(accountEvents.length);
    expect(perInstance.size).toBeGreaterThan(1);

    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
    expect(await auditBooks(db.read)).toMatchObject({ ok: true, firstBreak: null });
  }, 240_000);

  it('SIGTERM stops the cluster cleanly (every instance closes its LISTEN)', async () => {
    expect(await cluster.stop()).toBe(0);
    expect(cluster.output()).toMatch(/cluster stopped/);
  }, SERVER_TEST_TIMEOUT_MS);
});
