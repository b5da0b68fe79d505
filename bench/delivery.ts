/**
 * Webhook delivery benchmark: throughput of the dispatcher + sender to a loopback receiver
 * answering 200, and event→delivery latency (receive time − event created_at).
 *
 *   npx tsx bench/delivery.ts [events]        prints the result as JSON
 *   import { benchDelivery } from './delivery'  (bench/run.ts)
 *
 * It runs in this process: its own services over a temp database (the real writer, synchronous=FULL),
 * the 'dispatch' + 'delivery' loops exactly as the server starts them, and a node:http receiver.
 * Two phases:
 *  1. throughput: `events` events recorded as fast as the writer takes them (write jobs of 100 events,
 *     each event its own resource so ordering never serialises them); eventsPerSecond = events /
 *     (last receipt − first record).
 *  2. latency: `events` more events recorded at a steady `ratePerSecond` (default 1,000/s, the target
 *     load) in small write jobs every 10 ms; p50/p99 of receive time − event created_at.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../server/clock';
import { loadConfig } from '../server/config';
import { createAccount } from '../server/domain/accounts';
import { recordEvent } from '../server/domain/events';
import { closeWebhookAgents } from '../server/domain/webhooks/sender';
import { createWebhook } from '../server/domain/webhooks/subscriptions';
import { startDeliveryJobs } from '../server/jobs/delivery';
import { stopJobs } from '../server/jobs';
import { createServices } from '../server/services';
import { log } from '../server/log';

export interface DeliveryBenchResult {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Extra detail for the report. */
  throughputEvents: number;
  latencyEvents: number;
  latencyRatePerSecond: number;
  maxMs: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function benchDelivery(o: { events: number; ratePerSecond?: number; timeoutMs?: number }): Promise<DeliveryBenchResult> {
  const n = o.events;
  const rate = o.ratePerSecond ?? 1000;
  const dir = mkdtempSync(join(tmpdir(), 'bench-delivery-'));
  const received = new Map<string, number>(); // webhook-id → first receive time (dedupe)
  let waiter: { count: number; resolve: () => void } | null = null;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!received.has(id)) received.set(id, Date.now());
      res.writeHead(200, { 'content-length': '2' }).end('ok');
      if (waiter && received.size >= waiter.count) { waiter.resolve(); waiter = null; }
    });
  });
  receiver.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;

  const s = createServices({ config: loadConfig({ databasePath: join(dir, 'bench.db'), webhookAllowPrivateUrls: true, rateLimitRps: 0 }), clock: systemClock });
  const loops = startDeliveryJobs(s);
  for (const l of loops) s.wake[l.name] = l.wake;
  const until = (count: number) => new Promise<void>((resolve, reject) => {
    if (received.size >= count) return resolve();
    const timer = setTimeout(() => reject(new Error(`only ${received.size}/${count} events arrived`)), o.timeoutMs ?? 120_000);
    waiter = { count, resolve: () => { clearTimeout(timer); resolve(); } };
  });
  // one info line per delivery attempt would bury the bench's table under thousands of lines
  const level = log.level;
  log.level = 'warn';
  try {
    const account = await createAccount({ db: s.db, masterKey: s.masterKey, clock: systemClock }, { name: 'Bench' });
    await createWebhook(s, account.account_id, { url: `http://127.0.0.1:${port}/hook`, events: ['transaction'] });
    const payload = (i: number) => ({ id: `txn_bench_${i}`, status: 'APPROVED', total: 1000 + i, method: 'PIX', currency: 'BRL', customer: { name: 'Bench', email: 'b@example.com' } });
    const recordRange = (from: number, to: number) => s.db.write(async (tx) => {
      for (let i = from; i < to; i++) {
        await recordEvent(tx, { accountId: account.account_id, type: 'transaction.approved', resourceId: `txn_bench_${i}`, payload: payload(i), at: new Date() });
      }
    });

    // 1. throughput
    const t0 = Date.now();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < n; i += 100) writes.push(recordRange(i, Math.min(n, i + 100)));
    await Promise.all(writes);
    await until(n);
    const elapsed = Math.max(...received.values()) - t0;
    const eventsPerSecond = Math.round((n / elapsed) * 1000);

    // 2. latency at a steady rate
    const created = new Map<string, number>();
    const perTick = Math.max(1, Math.round(rate / 100));
    const start = Date.now();
    let next = n;
    while (next < 2 * n) {
      const due = n + Math.min(n, Math.floor(((Date.now() - start) / 1000) * rate) + perTick);
      if (due > next) {
        const from = next;
        next = due;
        void s.db.write(async (tx) => {
          for (let i = from; i < due; i++) {
            const e = await recordEvent(tx, { accountId: account.account_id, type: 'transaction.approved', resourceId: `txn_bench_${i}`, payload: payload(i), at: new Date() });
            created.set(e.id, Date.parse(e.createdAt));
          }
        });
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await until(2 * n);
    const latencies = [...created].map(([id, at]) => received.get(id)! - at).sort((a, b) => a - b);
    return {
      eventsPerSecond,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      throughputEvents: n,
      latencyEvents: latencies.length,
      latencyRatePerSecond: rate,
      maxMs: latencies[latencies.length - 1],
    };
  } finally {
    log.level = level;
    await stopJobs(loops);
    closeWebhookAgents();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await s.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const events = Number(process.argv[2] ?? 5000);
  benchDelivery({ events }).then((r) => {
    console.log(JSON.stringify(r, null, 2));
  }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
