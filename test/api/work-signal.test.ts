import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onPostgres } from '../../db/dialect';
import { rawRows } from '../../db/query';
import { withdrawalBatches } from '../../db/schema';
import { systemClock } from '../../server/clock';
import { recordEvent } from '../../server/domain/events';
import { closeWebhookAgents } from '../../server/domain/webhooks/sender';
import { startJobs, stopJobs } from '../../server/jobs';
import type { JobLoop } from '../../server/jobs/runner';
import type { Services } from '../../server/services';
import { callerFor, makeAccount, makeTestServices, serverServices, waitFor, type TestServices } from '../support/services';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Shared state across instances (docs/decisions.md "Engines"), "a commit wakes the others
 * (LISTEN/NOTIFY)": two instances over one PostgreSQL
 * database. Instance B runs the background loops with JOB_POLL_MS at one minute, so that only a
 * notification can explain B acting on A's commit within seconds; A runs no loops at all. On SQLite
 * there is no one else to wake: the database offers no listener.
 */
const POLL_MS = 60_000;
/** Far below the poll interval: the notification, not the poll, did it. */
const WOKEN_WITHIN_MS = 5_000;

let a: TestServices;
let b: Services;
let loops: JobLoop[] = [];
let receiver: Receiver;

beforeEach(async () => {
  // A runs no loops here, so B settles A's batches: no settlement affinity to A (JOB_AFFINITY_MS, which
  // background-claims tests), or B would wait for its next poll after it
  a = await makeTestServices({ clock: systemClock, config: { webhookAllowPrivateUrls: true, jobPollMs: POLL_MS, sandboxSettlementDelayMs: 0, jobAffinityMs: 0 } });
  receiver = await startReceiver();
});
afterEach(async () => {
  await stopJobs(loops);
  loops = [];
  if (b && b !== a) await b.db.close();
  await receiver.close();
  await a.cleanup();
  closeWebhookAgents();
});

/** The backends of B's LISTEN connection on this test's database. */
const listeners = () => rawRows<{ pid: number }>(a.db.read, sql`SELECT pid FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = 'pix-work-listener' AND query ILIKE 'listen%'`);

describe.runIf(onPostgres)('LISTEN/NOTIFY across instances (PostgreSQL)', () => {
  beforeEach(() => {
    b = serverServices(a.config.databasePath, { config: a.config, clock: systemClock });
  });

  it("a commit on one instance wakes the other's loops well before their poll; the listener reconnects; stopping the jobs closes it", async () => {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    await callerFor(a, acc.account_id, 'webhook-api').webhooks.create({ url: `${receiver.url}/hook`, events: ['transaction', 'withdraw'] });
    loops = startJobs(b, { dispatcher: true });
    const [first] = await waitFor(async () => { const l = await listeners(); return l.length === 1 && l; }, { what: "B's LISTEN connection" });
    // every loop of B has made its first passes and now waits a minute, or a notification
    await Promise.all(loops.map((l) => l.nextPass()));

    // an event committed on A: B's dispatcher fans it out and B's sender delivers it
    let started = Date.now();
    await a.db.write((tx) => recordEvent(tx, { accountId: acc.account_id, type: 'transaction.created', resourceId: 'tx-1', payload: { n: 1 }, at: new Date() }));
    await waitFor(() => receiver.received.length === 1, { what: 'the first delivery', timeoutMs: 20_000 });
    const eventLatency = Date.now() - started;
    expect(eventLatency).toBeLessThan(WOKEN_WITHIN_MS);

    // a withdrawal accepted by A: B's settlement loop pays its batch
    started = Date.now();
    const created = await callerFor(a, acc.account_id).withdrawals.create({
      amount: 1_000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '529.982.247-25' },
    });
    const batchId = created.data[0].identifier;
    await waitFor(async () => (await a.db.read.handle.select({ status: withdrawalBatches.status }).from(withdrawalBatches)
      .where(eq(withdrawalBatches.id, batchId)))[0]?.status === 'PAID', { what: 'the batch paid by B', timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(WOKEN_WITHIN_MS);

    // the listening connection is cut: B listens again by itself, and is woken as before
    await rawRows(a.db.read, sql`SELECT pg_terminate_backend(${first.pid})`);
    await waitFor(async () => { const l = await listeners(); return l.length === 1 && l[0].pid !== first.pid; }, { what: "B's LISTEN again" });
    const before = receiver.received.length;
    started = Date.now();
    await a.db.write((tx) => recordEvent(tx, { accountId: acc.account_id, type: 'transaction.approved', resourceId: 'tx-1', payload: { n: 2 }, at: new Date() }));
    await waitFor(() => receiver.received.length > before, { what: 'the delivery after the reconnect', timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(WOKEN_WITHIN_MS);
    console.log(`woken through NOTIFY: event delivered ${eventLatency} ms after A's commit (poll interval ${POLL_MS} ms)`);

    // stopping the jobs closes the LISTEN
    await stopJobs(loops);
    loops = [];
    await waitFor(async () => (await listeners()).length === 0, { what: 'the LISTEN closed' });
  });
});

describe.runIf(!onPostgres)('SQLite', () => {
  it('offers no listener: one process writes and its own commits wake its loops', () => {
    expect(a.db.listenForWork).toBeUndefined();
  });
});
