import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onPostgres } from '../../db/dialect';
import { deliveries, deliveryAttempts, events } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { recordEvent } from '../../server/domain/events';
import { DELIVERY_LEASE_MS, chooseDue, claimDueHeads, renewLeases } from '../../server/domain/webhooks/deliveries/claim';
import { recordAttempts } from '../../server/domain/webhooks/deliveries/attempts';
import { SlotUse } from '../../server/domain/webhooks/fair-share';
import { dispatchPendingEvents } from '../../server/domain/webhooks/dispatcher';
import type { SendWebhookResult } from '../../server/domain/webhooks/sender';
import type { Services } from '../../server/services';
import { startDeliveryJobs } from '../../server/jobs/delivery';
import { callerFor, makeAccount, makeTestServices, secondInstance, waitFor, type TestServices } from '../support/services';

/**
 * Shared state across instances (docs/decisions.md "Engines"), webhook and postback delivery: on PostgreSQL
 * several instances send at once, each claiming the queue heads it sends (FOR UPDATE OF d SKIP LOCKED and a
 * lease). Two instances here: two Services over one database, each with its own pool, on one clock moved by
 * hand. The claim is PostgreSQL's (SQLite's single delivering process keeps what it sends in memory), so
 * those cases run on PostgreSQL only; the late record that must not un-deliver is the same code on both
 * engines.
 */
const SCHEDULE = [0, 60, 600];
let clock: ManualClock;
let a: TestServices;
let b: Services;
let closeB: () => Promise<void>;
let accountId: string;

beforeEach(async () => {
  clock = new ManualClock(new Date('2026-04-01T12:00:00.000Z'));
  a = await makeTestServices({ clock, config: { webhookAllowPrivateUrls: true, webhookRetryScheduleSeconds: SCHEDULE } });
  ({ b, close: closeB } = secondInstance(a, clock));
  accountId = (await makeAccount(a)).account_id;
  await callerFor(a, accountId, 'webhook-api').webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['transaction'] });
});
afterEach(async () => {
  await closeB();
  await a.cleanup();
});

/** `n` resources with one event each, plus resource `ordered` with two: fanned out to the webhook. */
async function queue(n: number) {
  await a.db.write(async (tx) => {
    for (let i = 0; i < n; i++) await recordEvent(tx, { accountId, type: 'transaction.created', resourceId: `r${i}`, payload: { i }, at: clock.now() });
    await recordEvent(tx, { accountId, type: 'transaction.created', resourceId: 'ordered', payload: { n: 1 }, at: clock.now() });
    await recordEvent(tx, { accountId, type: 'transaction.approved', resourceId: 'ordered', payload: { n: 2 }, at: clock.now() });
  });
  const r = await dispatchPendingEvents(a);
  expect(r.deliveries).toBe(n + 2);
  const ordered = await a.db.read.handle.select({ id: deliveries.id }).from(deliveries).where(eq(deliveries.resourceId, 'ordered')).orderBy(asc(deliveries.eventSeq));
  return { firstOrdered: ordered[0].id, secondOrdered: ordered[1].id };
}

const claim = (s: Services, limit: number) => s.db.write((tx) => claimDueHeads(tx, clock.now(), [], limit));
const ok: SendWebhookResult = { ok: true, status: 200, durationMs: 3, responseExcerpt: '', error: null };
const failed: SendWebhookResult = { ok: false, status: null, durationMs: 3, responseExcerpt: '', error: 'connection refused' };
const record = (s: Services, deliveryId: string, result: SendWebhookResult) =>
  s.db.write((tx) => recordAttempts(tx, [{ deliveryId, result, startedAt: clock.now(), finishedAt: clock.now() }], SCHEDULE, clock.now()));
const row = async (id: string) => (await a.db.read.handle.select().from(deliveries).where(eq(deliveries.id, id)))[0];

describe.runIf(onPostgres)('delivery claims across instances (PostgreSQL)', () => {
  it('two instances claiming at once take disjoint queue heads, and a queue\'s next delivery is never claimed while its head is out', async () => {
    const { firstOrdered, secondOrdered } = await queue(40);
    // 41 heads are due (40 resources, and the first of "ordered"); both instances claim at the same moment, twice
    const rounds = await Promise.all([claim(a, 15), claim(b, 15), claim(a, 15), claim(b, 15)]);
    const ids = rounds.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(41);
    expect(ids).toContain(firstOrdered);
    expect(ids).not.toContain(secondOrdered);
    // every head is leased now: nothing is left to claim
    expect(await claim(b, 100)).toEqual([]);
    const leased = await a.db.read.handle.select({ lease: deliveries.leaseExpiresAt }).from(deliveries).where(eq(deliveries.id, firstOrdered));
    expect(leased[0].lease).toBe(new Date(clock.now().getTime() + DELIVERY_LEASE_MS).toISOString());
    // recording the head clears its lease and lets the queue's next delivery be claimed (by either instance)
    await record(a, firstOrdered, ok);
    expect((await row(firstOrdered)).leaseExpiresAt).toBeNull();
    expect((await claim(b, 100)).map((d) => d.id)).toEqual([secondOrdered]);
  });

  it('the lease of an instance that stalls runs out and another instance takes the delivery over; a renewed lease holds', async () => {
    await queue(2);
    // instance A claims every head (2 resources and the first of "ordered") and starts sending them
    const mine = (await claim(a, 100)).map((d) => d.id).sort();
    expect(mine).toHaveLength(3);
    clock.advance(DELIVERY_LEASE_MS - 1);
    expect(await claim(b, 100)).toEqual([]);
    // a renewal (the sends still in flight) moves the leases on
    expect(await a.db.write((tx) => renewLeases(tx, mine, clock.now()))).toBe(3);
    clock.advance(DELIVERY_LEASE_MS - 1);
    expect(await claim(b, 100)).toEqual([]);
    // no renewal came (A stalled or died): past the lease, instance B takes them over
    clock.advance(2);
    expect((await claim(b, 100)).map((d) => d.id).sort()).toEqual(mine);
  });
});

describe('fair claims between accounts (one merchant\'s backlog cannot take every delivery slot)', () => {
  it("an account's backlog gets at most its cap per pass and another account's due head is taken beside it; on PostgreSQL two instances take disjoint ones", async () => {
    await queue(40);
    const other = (await makeAccount(a)).account_id;
    await callerFor(a, other, 'webhook-api').webhooks.create({ url: 'http://127.0.0.1:8/other', events: ['transaction'] });
    await a.db.write((tx) => recordEvent(tx, { accountId: other, type: 'transaction.created', resourceId: 'other-1', payload: {}, at: clock.now() }));
    expect((await dispatchPendingEvents(a)).deliveries).toBe(1);
    const pass = () => ({ use: new SlotUse({ total: 10, perAccount: 4, perHost: 100 }), after: null });
    const byAccount = async (ids: string[]) => {
      const rows = await a.db.read.handle.select({ id: deliveries.id, accountId: deliveries.accountId }).from(deliveries);
      const owner = new Map(rows.map((r) => [r.id, r.accountId]));
      return { mine: ids.filter((id) => owner.get(id) === accountId).length, other: ids.filter((id) => owner.get(id) === other).length };
    };
    if (!onPostgres) {
      const chosen = await chooseDue(a.db.read, clock.now().toISOString(), [], pass());
      expect(await byAccount(chosen.map((d) => d.id))).toEqual({ mine: 4, other: 1 });
      return;
    }
    const claimWith = (s: Services) => s.db.write((tx) => claimDueHeads(tx, clock.now(), [], 10, DELIVERY_LEASE_MS, pass()));
    const [x, y] = await Promise.all([claimWith(a), claimWith(b)]);
    const ids = [...x, ...y].map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    // each instance within its own caps: at most 4 of the backlog each, and the other account's one head claimed once
    expect((await byAccount(x.map((d) => d.id))).mine).toBeLessThanOrEqual(4);
    expect((await byAccount(y.map((d) => d.id))).mine).toBeLessThanOrEqual(4);
    expect((await byAccount(ids)).other).toBe(1);
    // what was not claimed stays due and unleased: the next pass takes it
    const left = await a.db.read.handle.select({ id: deliveries.id }).from(deliveries).where(and(isNull(deliveries.leaseExpiresAt), eq(deliveries.status, 'PENDING'), isNotNull(deliveries.nextAttemptAt)));
    expect(left.length).toBe(41 - ids.length + 1);
  });
});

describe('the event dispatcher on every instance', () => {
  it('fans each event out exactly once while two instances dispatch at the same time', async () => {
    const N = 300;
    await a.db.write(async (tx) => {
      for (let i = 0; i < N; i++) await recordEvent(tx, { accountId, type: 'transaction.created', resourceId: `r${i % 7}`, payload: { i }, at: clock.now() });
    });
    let fannedOut = 0;
    for (let round = 0; round < 1_000; round++) {
      const [x, y] = await Promise.all([dispatchPendingEvents(a, 40), dispatchPendingEvents(b, 40)]);
      fannedOut += x.events + y.events;
      if (fannedOut >= N) break;
    }
    expect(fannedOut).toBe(N);
    const perEvent = await a.db.read.handle.select({ eventId: deliveries.eventId, n: sql<number>`count(*)` }).from(deliveries).groupBy(deliveries.eventId);
    expect(perEvent).toHaveLength(N);
    expect(perEvent.every((r) => Number(r.n) === 1)).toBe(true);
    expect((await a.db.read.handle.select({ id: events.id }).from(events).where(isNull(events.dispatchedAt)))).toEqual([]);
  });

  // Otherwise the instance that did not write the events races the one that did, each with groups of its own
  // (measured: with one merchant routed to instance A, B fanned out about half of A's events, 1 job per group)
  it.runIf(onPostgres)("each instance fans out its own events at once, and another instance's only once they are JOB_AFFINITY_MS old", async () => {
    const AFFINITY = 2_000;
    const loops = startDeliveryJobs(b, { othersAfterMs: AFFINITY });
    const dispatch = loops.find((l) => l.name === 'dispatch')!;
    const dispatched = async (resourceId: string) => (await a.db.read.handle.select({ at: events.dispatchedAt }).from(events)
      .where(eq(events.resourceId, resourceId)))[0]?.at ?? null;
    try {
      await dispatch.nextPass();
      // recorded by A, which runs no dispatcher here: B's passes leave it while it is fresh
      await a.db.write((tx) => recordEvent(tx, { accountId, type: 'transaction.created', resourceId: 'from-a', payload: { n: 1 }, at: clock.now() }));
      await dispatch.nextPass();
      await dispatch.nextPass();
      expect(await dispatched('from-a')).toBeNull();
      // once it is that old, B's next pass (a poll, or any wake) takes it: A may be busy, stopped or gone
      clock.advance(AFFINITY);
      await waitFor(async () => (await dispatched('from-a')) !== null, { what: "A's event fanned out by B" });
      // B's own commit: fanned out by B at once, though the clock has not moved
      await b.db.write((tx) => recordEvent(tx, { accountId, type: 'transaction.created', resourceId: 'from-b', payload: { n: 2 }, at: clock.now() }));
      await waitFor(async () => (await dispatched('from-b')) !== null, { what: "B's own event fanned out by B" });
      expect(Number((await a.db.read.handle.select({ n: sql<number>`count(*)` }).from(deliveries))[0].n)).toBe(2);
    } finally {
      await Promise.all(loops.map((l) => l.stop()));
    }
  });
});

describe('a late record', () => {
  it('from an instance whose lease was taken over does not un-deliver: a DELIVERED delivery stays DELIVERED', async () => {
    await queue(0);
    const [head] = await a.db.read.handle.select({ id: deliveries.id }).from(deliveries).where(eq(deliveries.resourceId, 'ordered')).orderBy(asc(deliveries.eventSeq)).limit(1);
    if (onPostgres) {
      expect((await claim(a, 1)).map((d) => d.id)).toEqual([head.id]);
      clock.advance(DELIVERY_LEASE_MS + 1);
      expect((await claim(b, 1)).map((d) => d.id)).toEqual([head.id]);
    }
    // the instance that took over delivers it
    expect((await record(b, head.id, ok)).get(head.id)).toBe('DELIVERED');
    // then the stalled one's attempt, a failure, is recorded late
    expect((await record(a, head.id, failed)).get(head.id)).toBe('DELIVERED');
    const d = await row(head.id);
    expect(d.status).toBe('DELIVERED');
    expect(d.nextAttemptAt).toBeNull();
    expect(d.lastError).toBeNull();
    expect(d.leaseExpiresAt).toBeNull();
    expect(d.attempts).toBe(2);
    expect(await a.db.read.handle.select({ id: deliveryAttempts.id }).from(deliveryAttempts).where(eq(deliveryAttempts.deliveryId, head.id))).toHaveLength(2);
  });
});
