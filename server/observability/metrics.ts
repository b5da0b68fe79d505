import client from 'prom-client';
import type { AppDatabase } from '../../db';
import { onOutcome } from '../domain/outcomes';
import type { Clock } from '../clock';
import type { DeliveryTarget } from '../../contract/enums';

/**
 * Prometheus metrics of one process (prom-client). Labels are route templates, methods, statuses and
 * outcomes only: never an account id, a key or a raw URL, so the series stay few.
 */
export interface Metrics {
  registry: client.Registry;
  observeRequest(o: { route: string; method: string; status: number; seconds: number }): void;
  observeDeliveryAttempt(o: { target: DeliveryTarget; outcome: DeliveryOutcome }): void;
  render(): Promise<string>;
  contentType: string;
}

export type DeliveryOutcome = 'delivered' | 'http_error' | 'network_error';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export function createMetrics(o: { db: AppDatabase; clock: Clock }): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });

  const requests = new client.Counter({
    name: 'http_requests_total', help: 'HTTP requests by route template, method and status.',
    labelNames: ['route', 'method', 'status'], registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency by route template, method and status.',
    labelNames: ['route', 'method', 'status'], registers: [registry],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const groupSize = new client.Histogram({
    name: 'db_writer_group_jobs', help: 'Write jobs committed together in one group (one COMMIT).',
    registers: [registry], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  });
  const commitSeconds = new client.Histogram({
    name: 'db_writer_commit_duration_seconds', help: 'Duration of the writer\'s COMMIT (the fsync) per group.',
    registers: [registry], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  });
  const retries = new client.Counter({
    name: 'db_writer_retries_total', help: 'Write jobs run again because another transaction moved what they read (PostgreSQL), by reason; 0 on the normal path.',
    labelNames: ['reason'], registers: [registry],
  });
  for (const reason of ['serialization', 'deadlock', 'unique', 'other']) retries.inc({ reason }, 0);
  const attempts = new client.Counter({
    name: 'webhook_delivery_attempts_total', help: 'Webhook and postback delivery attempts by outcome.',
    labelNames: ['target', 'outcome'], registers: [registry],
  });
  const withdrawals = new client.Counter({
    name: 'withdrawals_finished_total', help: 'Withdrawals whose batches all settled, by final status.',
    labelNames: ['status'], registers: [registry],
  });
  const transactions = new client.Counter({
    name: 'transactions_finished_total', help: 'Transactions that reached a final status (an expired charge is REFUSED).',
    labelNames: ['status'], registers: [registry],
  });
  // initialise the known label sets so a scrape shows zeros rather than nothing
  for (const s of ['PAID', 'PARTIALLY_PAID', 'ERROR']) withdrawals.inc({ status: s }, 0);
  for (const s of ['APPROVED', 'REFUSED']) transactions.inc({ status: s }, 0);
  for (const target of ['webhook', 'postback']) for (const outcome of ['delivered', 'http_error', 'network_error']) attempts.inc({ target, outcome }, 0);

  // Queue depths and ages are read from the database at scrape time: the queues are rows, shared
  // with any other process (the worker) working on them.
  const queue = async () => {
    const now = o.clock.now();
    const iso = now.toISOString();
    const { batches, due, undispatched } = await o.db.read.reports.pendingWork(iso);
    const age = (t: string | null) => (t ? Math.max(0, (now.getTime() - Date.parse(t)) / 1000) : 0);
    return { batches, due, undispatched, age };
  };
  type Queue = Awaited<ReturnType<typeof queue>>;
  let snapshot: Promise<Queue> | null = null;
  const gauge = (name: string, help: string, read: (q: Queue) => number, first = false) => new client.Gauge({
    name, help, registers: [registry],
    async collect() {
      // one set of queries per scrape, shared by the queue gauges (the first one refreshes it)
      if (first || !snapshot) snapshot = queue();
      this.set(read(await snapshot));
    },
  });
  gauge('withdrawal_batches_pending', 'Withdrawal batches waiting for the rail.', (q) => q.batches.n, true);
  gauge('withdrawal_batches_oldest_pending_age_seconds', 'How long the oldest pending batch has been due (0 when none is due).',
    (q) => (q.batches.oldest && Date.parse(q.batches.oldest) <= o.clock.now().getTime() ? q.age(q.batches.oldest) : 0));
  gauge('webhook_deliveries_due', 'Deliveries due now (pending, next attempt in the past).', (q) => q.due.n);
  gauge('webhook_deliveries_oldest_due_age_seconds', 'How overdue the oldest due delivery is.', (q) => q.age(q.due.oldest));
  gauge('events_undispatched', 'Events not yet fanned out into deliveries.', (q) => q.undispatched);

  o.db.writer.onGroup?.((g) => {
    groupSize.observe(g.jobs);
    commitSeconds.observe(g.commitSeconds);
  });
  o.db.writer.onRetry?.((r) => retries.inc({ reason: r.reason }, r.jobs));
  onOutcome((x) => (x.resource === 'withdrawal' ? withdrawals : transactions).inc({ status: x.status }));

  return {
    registry,
    contentType: registry.contentType,
    observeRequest({ route, method, status, seconds }) {
      const labels = { route, method: METHODS.has(method) ? method : 'OTHER', status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    observeDeliveryAttempt({ target, outcome }) { attempts.inc({ target, outcome }); },
    render: () => registry.metrics(),
  };
}
