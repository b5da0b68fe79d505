import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditBooks } from '../../server/domain/audit';
import { auditLedger } from '../../server/domain/ledger';
import { DELIVERING_CLUSTER_ENV, everyDeliveryDelivered, eventsOncePaid, startCluster, subscribeToWithdrawals, type RunningCluster } from '../support/cluster';
import { phoneWithdrawal } from '../support/withdrawals';
import { api, SERVER_TEST_TIMEOUT_MS } from '../support/server';
import { waitFor } from '../support/services';

/**
 * An instance that dies loses only its leases (docs/decisions.md "Engines"), webhook delivery through a
 * crash: 3 delivering instances (npm run cluster --keep-going, on this file's PostgreSQL) and a receiver on
 * 127.0.0.1 that holds every request unanswered. Once the victim instance has sends held at the receiver
 * (known by the connection's port, which belongs to one of the victim's sockets), it is killed with SIGKILL
 * and the receiver answers everything. The survivors' sends are recorded at once; the victim's are claimed
 * again when their lease runs out (10 s) and sent again by a survivor. At least once: every event arrives,
 * the only repeats are the sends the victim died holding, each arrives again, and per-resource order holds
 * throughout. Then the audits.
 */
const INSTANCES = 3;
const MAX_WITHDRAWALS = 60;

/** The local TCP ports of a process's sockets (Linux: its fds' socket inodes, looked up in /proc/net/tcp*). */
function tcpPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9])) ports.add(parseInt(cols[1].split(':').pop()!, 16));
    }
  }
  return ports;
}

interface Held { id: string; port: number; res: http.ServerResponse }

/** Records every request (webhook-id, client port) and holds it unanswered until `release()`. */
async function holdingReceiver() {
  const arrivals: { id: string; port: number }[] = [];
  let held: Held[] = [];
  let holding = true;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const entry = { id: String(req.headers['webhook-id']), port: req.socket.remotePort ?? 0 };
      arrivals.push(entry);
      if (holding) held.push({ ...entry, res });
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    held: () => held,
    /** Answers 200 to everything held (a dead sender's connection simply drops it) and to all that follows. */
    release() {
      holding = false;
      for (const h of held) { try { h.res.writeHead(200).end('ok'); } catch { /* gone with its sender */ } }
      held = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let cluster: RunningCluster;
let receiver: Awaited<ReturnType<typeof holdingReceiver>>;

beforeAll(async () => {
  receiver = await holdingReceiver();
  cluster = await startCluster({
    instances: INSTANCES,
    args: ['--keep-going'],
    // a long send timeout: held sends stay in flight (their lease renewed) instead of failing into the retry schedule
    env: { ...DELIVERING_CLUSTER_ENV, WEBHOOK_TIMEOUT_MS: '120000' },
  });
}, SERVER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.cleanup();
  await receiver?.close();
}, SERVER_TEST_TIMEOUT_MS);

const withdrawal = (i: number) => phoneWithdrawal({ external_ref: `delivery-failover-${i}` });

describe('kill -9 an instance while it is sending webhooks', () => {
  it('the survivors send what it died holding once its lease runs out: every event arrives, only those twice, in order per resource', async () => {
    const { db } = cluster;
    const acc = await cluster.fundedAccount(10_000_000, 'Delivery Failover Merchant');
    const hook = await subscribeToWithdrawals(cluster, acc, `${receiver.url}/hook`, 'delivery-failover-hook');
    expect(hook.status).toBe(201);

    // withdrawals one after another until the victim holds sends at the receiver and another instance does too
    const victim = cluster.pids[1];
    const heldBy = () => {
      const ports = tcpPortsOf(victim);
      const held = receiver.held();
      return { victim: held.filter((h) => ports.has(h.port)), others: held.filter((h) => !ports.has(h.port)) };
    };
    let made = 0;
    while (made < MAX_WITHDRAWALS) {
      const r = await api(cluster.balancer, '/withdraw/pix', { token: acc.accessToken, body: withdrawal(made), headers: { 'idempotency-key': `delivery-failover-${made}` } });
      expect(r.status).toBe(201);
      made += 1;
      const h = heldBy();
      if (h.victim.length > 0 && h.others.length > 0) break;
    }
    await waitFor(() => { const h = heldBy(); return h.victim.length > 0 && h.others.length > 0 ? h : null; },
      { timeoutMs: 30_000, what: 'the victim and another instance to hold sends at the receiver' });
    // The victim's sockets are read and it is killed in one synchronous step, so it opens no connection in
    // between. Every request that ever came over one of them was held (or, still in the kernel's buffers at
    // the kill, arrives afterwards) and never recorded by the victim: those are the sends it died holding.
    // (Taken from the held list before the kill, this once missed a send the victim made meanwhile.)
    const victimPorts = tcpPortsOf(victim);
    process.kill(victim, 'SIGKILL');
    await waitFor(() => { try { process.kill(victim, 0); return false; } catch { return true; } }, { what: 'the victim to be gone' });
    receiver.release();

    // every withdrawal paid (its two events), every delivery recorded DELIVERED by a survivor
    const accountEvents = await eventsOncePaid(db, acc.account_id, made);
    await everyDeliveryDelivered(db, acc.account_id, accountEvents.length, 90_000);

    // every event arrived; the only repeats are the sends the victim died holding, and each of those came again
    const counts = new Map<string, number>();
    for (const a of receiver.arrivals) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(accountEvents.map((e) => e.id).sort());
    const diedHolding = new Set(receiver.arrivals.filter((a) => victimPorts.has(a.port)).map((a) => a.id));
    expect(diedHolding.size).toBeGreaterThan(0);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(repeated.filter((id) => !diedHolding.has(id))).toEqual([]);
    expect([...diedHolding].filter((id) => counts.get(id)! < 2)).toEqual([]);

    // in order per resource, repeats included: a resource's later event never arrived before its earlier one's last send
    const seqOf = new Map(accountEvents.map((e) => [e.id, { seq: e.seq, resource: e.resourceId }]));
    const lastSeq = new Map<string, number>();
    const outOfOrder: string[] = [];
    for (const a of receiver.arrivals) {
      const e = seqOf.get(a.id)!;
      if ((lastSeq.get(e.resource) ?? -Infinity) > e.seq) outOfOrder.push(a.id);
      lastSeq.set(e.resource, Math.max(lastSeq.get(e.resource) ?? -Infinity, e.seq));
    }
    expect(outOfOrder).toEqual([]);
    console.log(`delivery failover: ${made} withdrawals, ${accountEvents.length} events, the victim died holding ${diedHolding.size}, ${receiver.arrivals.length} requests received`);

    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
    expect(await auditBooks(db.read)).toMatchObject({ ok: true, firstBreak: null });
  }, 240_000);
});
