import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { log } from '../../log';
import type { Stores } from '../../../db';
import { deliveries, deliveryAttempts, events, webhooks } from '../../../db/schema';
import { first, rawChanges, rawExec, rawRows, skipLockedOf } from '../../../db/query';
import { onPostgres } from '../../../db/dialect';
import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { eventEnvelope, type StoredEventCategory } from '../events';
import { decryptSecret } from './secrets';
import { hostOf, pickFairly, rotation, SlotUse } from './fair-share';
import { sendWebhook, type SendWebhookResult } from './sender';
import { signDelivery } from './signing';
import { hasOrphanedWaits, holdBehindEarlier, promoteQueueHeads, releaseOrphanedWaits } from './queues';
import { liveWebhook } from './subscriptions';
import { decodeCursor, encodeCursor } from '../cursor';
import { ID_PREFIX, newId } from '../ids';

/*
 * Delivery rules (docs/decisions.md "Events and deliveries"):
 * - A delivery is one event to one target URL. Deliveries of one resource to one URL form a queue
 *   ordered by event seq: only its head is sent, so a later event waits while an earlier one is
 *   pending or being retried. A FAILED delivery (retries exhausted) no longer holds its queue.
 * - Attempt n+1 waits WEBHOOK_RETRY_SCHEDULE[n] seconds after attempt n failed ([0] is the delay of the
 *   first attempt); after the last entry the delivery is FAILED. Success = a 2xx within the timeout;
 *   a redirect is a failure. The body is the event envelope, the same bytes on every attempt; the
 *   signature headers are fresh per attempt and webhook-id is always the event id (receivers dedupe).
 * - HTTP 410 from a webhook's URL disables the webhook (active=false): that delivery and every other
 *   pending delivery of the webhook become FAILED ("webhook disabled after HTTP 410"). A 410 from a
 *   postback URL fails only that delivery.
 * - A deleted webhook's pending deliveries are FAILED in the delete's own write job; an attempt that
 *   was in flight at that moment is still recorded, and not retried.
 * - A resend by hand queues one immediate attempt keeping the webhook-id; when the delivery had
 *   finished (DELIVERED or FAILED) that attempt is final and starts no new retry schedule; when it was
 *   still pending it just moves its next attempt to now.
 * Sending happens outside write jobs; each result is recorded by its own write job (the writer groups
 * them into one commit). At-least-once: a crash between send and record sends again after a restart.
 */

/** How often the sender checks for waiting deliveries that nothing is ahead of any more (a safety net). */
const SWEEP_EVERY_MS = 60_000;
/** After the database refused to record an attempt, that delivery is not sent again for this long. */
const RECORD_RETRY_MS = 5_000;

interface DueDelivery {
  id: string;
  url: string;
  target: 'webhook' | 'postback';
  event_id: string;
  event_type: string;
  event_category: StoredEventCategory;
  event_created_at: string;
  payload: string;
  secret_enc: string;
  /** The webhook's secret before its last rotation while still honoured (null for postbacks or when expired). */
  previous_secret_enc: string | null;
  /** The request whose change the event reports, for the delivery's log line. */
  request_id: string | null;
  account_id: string;
  /** next_attempt_at: oldest first within an account. */
  due_at: string;
}

export type AttemptOutcomeLabel = 'delivered' | 'http_error' | 'network_error';

const ids = (list: string[]) => sql.join(list.map((id) => sql`${id}`), sql`, `);

/** The columns the sender needs of a delivery, its event and its signing secret (FROM deliveries d …). */
const dueColumns = (now: string) => sql`d.id, d.url, d.target, e.id AS event_id, e.type AS event_type, e.category AS event_category,
           e.created_at AS event_created_at, e.payload, e.request_id,
           CASE WHEN d.target = 'webhook' THEN w.secret_enc ELSE a.postback_secret_enc END AS secret_enc,
           CASE WHEN d.target = 'webhook' AND w.previous_secret_expires_at > ${now} THEN w.previous_secret_enc END AS previous_secret_enc`;

/** Due, unpaused queue heads (a paused endpoint's queued deliveries wait until it is resumed). */
const DUE_HEAD = (now: string) => sql`d.status = 'PENDING' AND d.next_attempt_at <= ${now}
      AND (d.target = 'postback' OR w.paused_at IS NULL)
      AND NOT EXISTS (
        SELECT 1 FROM deliveries p
        WHERE p.url = d.url AND p.resource_id = d.resource_id AND p.status = 'PENDING'
          AND (p.event_seq < d.event_seq OR (p.event_seq = d.event_seq AND p.id < d.id)))`;

/** The rows `dueColumns` reads: a delivery, its event, its account and its webhook (if any). */
const dueFrom = () => sql`FROM deliveries d
    JOIN events e ON e.id = d.event_id
    JOIN accounts a ON a.id = d.account_id
    LEFT JOIN webhooks w ON w.id = d.webhook_id`;

/** Leaves out the deliveries this process is already sending. */
const notInFlight = (exclude: string[]) => (exclude.length ? sql`AND d.id NOT IN (${ids(exclude)})` : sql``);

/** No live claim on it: never leased, or its lease has run out (PostgreSQL). */
const leaseFree = (now: string) => sql`(d.lease_expires_at IS NULL OR d.lease_expires_at <= ${now})`;

/**
 * The accounts that have a due delivery (PostgreSQL: one no live lease holds), in account order: a loose
 * index scan over deliveries_account_due_idx (status, account_id, next_attempt_at), one seek per account
 * with PENDING deliveries, so a merchant with a backlog of thousands costs what one without does.
 */
export async function accountsWithDueWork(db: Stores, now: string): Promise<string[]> {
  const rows = await rawRows<{ account_id: string }>(db, sql`
    WITH RECURSIVE pending(account_id) AS (
      SELECT (SELECT account_id FROM deliveries WHERE status = 'PENDING' ORDER BY account_id LIMIT 1)
      UNION ALL
      SELECT (SELECT x.account_id FROM deliveries x WHERE x.status = 'PENDING' AND x.account_id > pending.account_id
              ORDER BY x.account_id LIMIT 1)
      FROM pending WHERE pending.account_id IS NOT NULL)
    SELECT p.account_id FROM pending p
    WHERE p.account_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM deliveries d WHERE d.status = 'PENDING' AND d.account_id = p.account_id AND d.next_attempt_at <= ${now}
        ${onPostgres ? sql`AND ${leaseFree(now)}` : sql``})`);
  return rows.map((r) => r.account_id);
}

/**
 * Each account's oldest due queue heads, at most `limit` of each (leaving out what this process is
 * sending), in one statement: one arm per account, each a seek on deliveries_account_due_idx. On
 * PostgreSQL each arm locks its rows (FOR UPDATE OF d SKIP LOCKED) and leaves out leased ones, so
 * instances claiming at once see disjoint candidates; the caller's write job leases those it starts.
 */
async function dueCandidates(db: Stores, now: string, accounts: { id: string; limit: number }[], exclude: string[]): Promise<DueDelivery[]> {
  if (accounts.length === 0) return [];
  const arms = accounts.map((a, i) => sql`SELECT * FROM (
    SELECT ${dueColumns(now)}, d.account_id, d.next_attempt_at AS due_at
    ${dueFrom()}
    WHERE d.account_id = ${a.id} AND ${DUE_HEAD(now)} ${onPostgres ? sql`AND ${leaseFree(now)}` : sql``} ${notInFlight(exclude)}
    ORDER BY d.next_attempt_at, d.id
    LIMIT ${a.limit}
    ${skipLockedOf('d')}) ${sql.raw(`c${i}`)}`);
  const rows = await rawRows<DueDelivery>(db, sql.join(arms, sql` UNION ALL `));
  // oldest first within each account (the arms' order is not the compound's promise)
  return rows.sort((x, y) => (x.due_at < y.due_at ? -1 : x.due_at > y.due_at ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

/** One pass of the fair scheduler: what is in flight, and the account served last (the rotation goes on after it). */
export interface FairPass {
  use: SlotUse;
  after: string | null;
  /** The accounts with due work, when the caller has just read them. */
  accounts?: string[];
}

/** A pass that only bounds the total (the claim on its own, as tests call it): one account may take every slot. */
const soloPass = (limit: number): FairPass => ({ use: new SlotUse({ total: limit, perAccount: limit, perHost: limit }), after: null });

/** Up to the pass's free slots of due heads, round-robin between accounts within their caps and their hosts' (fair-share.ts). */
export async function chooseDue(db: Stores, now: string, exclude: string[], pass: FairPass): Promise<DueDelivery[]> {
  const { use } = pass;
  if (use.room === 0) return [];
  const accounts = rotation(pass.accounts ?? await accountsWithDueWork(db, now), pass.after, use, use.room);
  // An account's room, and a few more while some host is full (its heads are passed over, left due). No
  // more than that: on PostgreSQL every candidate is locked until the claim commits, and a concurrent
  // claim skips what this one locked and did not take.
  const extra = use.anyHostFull() ? 4 : 0;
  const candidates = await dueCandidates(db, now, accounts.map((id) => ({ id, limit: Math.min(use.accountRoom(id), use.room) + extra })), exclude);
  return pickFairly(accounts, candidates, use);
}

/** How long a claimed delivery stays out of the other instances' reach (PostgreSQL), renewed while its send is in flight. */
export const DELIVERY_LEASE_MS = 10_000;
/** How often the leases of the sends in flight are renewed: three renewals fit in one lease. */
export const DELIVERY_LEASE_RENEW_MS = 3_300;

/**
 * PostgreSQL, several instances: in one write job, takes up to `limit` due queue heads whose lease (if
 * any) has run out, chosen fairly between accounts (`pass`: this instance's caps and what it has in
 * flight), skipping the rows another instance's claim holds (FOR UPDATE OF d SKIP LOCKED), stamps their
 * lease and returns what sending them needs. A claimed head stays PENDING, so the next delivery of its
 * queue is not due before this one is recorded: per-resource order holds across instances. When the
 * instance dies mid-send, the lease runs out and another instance's claim takes the delivery over.
 * The caps hold per instance: N instances send at most N times one account's cap at once.
 */
export async function claimDueHeads(tx: Stores, now: Date, exclude: string[], limit: number, leaseMs = DELIVERY_LEASE_MS, pass: FairPass = soloPass(limit)): Promise<DueDelivery[]> {
  const at = now.toISOString();
  const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
  const chosen = (await chooseDue(tx, at, exclude, pass)).slice(0, limit);
  if (chosen.length === 0) return [];
  // (the candidates' row locks, taken above, hold until this job commits)
  await rawExec(tx, sql`UPDATE deliveries SET lease_expires_at = ${leaseUntil} WHERE id IN (${ids(chosen.map((c) => c.id))})`);
  return chosen;
}

/** Moves the leases of these deliveries, still being sent by this instance, to now + lease (PostgreSQL). */
export async function renewLeases(tx: Stores, deliveryIds: string[], now: Date, leaseMs = DELIVERY_LEASE_MS): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
  return rawChanges(tx, sql`UPDATE deliveries SET lease_expires_at = ${leaseUntil}
    WHERE id IN (${ids(deliveryIds)}) AND status = 'PENDING' AND lease_expires_at IS NOT NULL`);
}

export type { DeliveryStatus } from '../../../contract/enums';
import type { DeliveryStatus } from '../../../contract/enums';
import type { z } from 'zod';
import type { deliveryAttemptView, deliveryView } from '../../routers/webhooks/schemas';

export interface AttemptOutcome { deliveryId: string; result: SendWebhookResult; startedAt: Date; finishedAt: Date }

/**
 * Records attempts and each delivery's next state, all in the caller's one write job: the attempt
 * rows in one insert, the state changes grouped into as few updates as there are distinct outcomes
 * (typically one: every delivery that got its 2xx).
 */
export async function recordAttempts(tx: Stores, outcomes: AttemptOutcome[], schedule: number[], now: Date): Promise<Map<string, DeliveryStatus>> {
  const out = new Map<string, DeliveryStatus>();
  if (outcomes.length === 0) return out;
  const rows = await tx.handle.select({
    id: deliveries.id, status: deliveries.status, attempts: deliveries.attempts, manual: deliveries.manual, target: deliveries.target,
    webhookId: deliveries.webhookId, webhookActive: webhooks.active, webhookDeletedAt: webhooks.deletedAt,
  }).from(deliveries).leftJoin(webhooks, eq(webhooks.id, deliveries.webhookId))
    .where(inArray(deliveries.id, outcomes.map((o) => o.deliveryId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const known = outcomes.filter((o) => byId.has(o.deliveryId));
  for (let i = 0; i < known.length; i += 500) {
    await tx.handle.insert(deliveryAttempts).values(known.slice(i, i + 500).map(({ deliveryId, result, startedAt }) => ({
      deliveryId, attemptedAt: startedAt.toISOString(), statusCode: result.status, durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt, error: result.error,
    })));
  }

  // 410 first: it disables the webhook, which stops the other deliveries of this batch to it too.
  const disabled = new Set<string>();
  const left: string[] = []; // deliveries that leave PENDING here: their queues move on
  const iso = now.toISOString();
  for (const { deliveryId, result } of known) {
    const d = byId.get(deliveryId)!;
    if (result.status !== 410 || d.target !== 'webhook' || !d.webhookId || disabled.has(d.webhookId)) continue;
    disabled.add(d.webhookId);
    await tx.handle.update(webhooks).set({ active: 0, updatedAt: iso }).where(and(eq(webhooks.id, d.webhookId), eq(webhooks.active, 1)));
    const stopped = await tx.handle.update(deliveries).set({ status: 'FAILED', nextAttemptAt: null, manual: 0, lastError: DISABLED_410, updatedAt: iso })
      .where(and(eq(deliveries.webhookId, d.webhookId), eq(deliveries.status, 'PENDING'))).returning({ id: deliveries.id });
    left.push(...stopped.map((x) => x.id));
  }

  const groups = new Map<string, { set: Partial<typeof deliveries.$inferInsert>; ids: string[] }>();
  for (const { deliveryId, result, finishedAt } of known) {
    const d = byId.get(deliveryId)!;
    if (d.status === 'DELIVERED') {
      // A late record: this instance stalled past its lease and another one took the delivery over and
      // delivered it meanwhile. The attempt is logged; the delivery stays DELIVERED.
      out.set(deliveryId, 'DELIVERED');
      const set = { updatedAt: iso };
      const key = JSON.stringify(set);
      const g = groups.get(key) ?? { set, ids: [] as string[] };
      g.ids.push(deliveryId);
      groups.set(key, g);
      continue;
    }
    const attempts = d.attempts + 1;
    const stopped = d.target === 'webhook' && (d.webhookActive !== 1 || d.webhookDeletedAt !== null || disabled.has(d.webhookId ?? ''));
    let status: DeliveryStatus;
    let nextAttemptAt: string | null = null;
    let lastError = result.error;
    if (result.ok) {
      status = 'DELIVERED';
      lastError = null;
    } else if (result.status === 410) {
      status = 'FAILED';
      if (d.target === 'webhook') lastError = DISABLED_410;
    } else if (d.status !== 'PENDING' || stopped || d.manual === 1 || attempts >= schedule.length) {
      // stopped meanwhile (webhook deleted or disabled), a by-hand resend, or the schedule is exhausted
      status = 'FAILED';
    } else {
      status = 'PENDING';
      nextAttemptAt = new Date(finishedAt.getTime() + (schedule[attempts] ?? 0) * 1000).toISOString();
    }
    out.set(deliveryId, status);
    if (status !== 'PENDING') left.push(deliveryId);
    // (recording the attempt ends this instance's claim on the delivery: PostgreSQL's lease)
    const set = { status, nextAttemptAt, lastStatusCode: result.status, lastError, manual: 0, leaseExpiresAt: null, updatedAt: iso };
    const key = JSON.stringify(set);
    const g = groups.get(key) ?? { set, ids: [] as string[] };
    g.ids.push(deliveryId);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    for (let i = 0; i < g.ids.length; i += 500) {
      await tx.handle.update(deliveries).set({ ...g.set, attempts: sql`${deliveries.attempts} + 1` })
        .where(inArray(deliveries.id, g.ids.slice(i, i + 500)));
    }
  }
  await promoteQueueHeads(tx, left, iso);
  return out;
}

const DISABLED_410 = 'webhook disabled after HTTP 410';

/**
 * Sends due deliveries, each outside any write job, within the caps of fair-share.ts (WEBHOOK_MAX_IN_FLIGHT
 * in all, …_PER_ACCOUNT, …_PER_HOST), taking accounts round-robin; finished attempts are recorded
 * together in one write job per flush.
 * - SQLite: which deliveries are in flight lives in memory: run one delivering process per database
 *   (the server, or `npm run worker` with RUN_DISPATCHER=false in the server).
 * - PostgreSQL: any number of instances deliver at once. Each claims the heads it sends (claimDueHeads:
 *   FOR UPDATE SKIP LOCKED and a lease of DELIVERY_LEASE_MS, renewed every DELIVERY_LEASE_RENEW_MS while
 *   the send is in flight); recording the attempt clears the lease. An instance that dies mid-send
 *   leaves leases that run out, and another instance takes those deliveries over (sent again:
 *   at-least-once, receivers dedupe on webhook-id).
 */
export class DeliveryEngine {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly secrets = new Map<string, string>();
  private finished: (AttemptOutcome & { done: () => void })[] = [];
  private flushing = false;
  private lastSweep = 0;
  /** PostgreSQL: the deliveries this instance has claimed and not yet recorded, whose leases it renews. */
  private readonly leased = new Set<string>();
  private renewTimer: NodeJS.Timeout | null = null;
  /** The slots held by sends in flight, by account and by host (a slot is given back once its attempt is recorded). */
  private readonly slots: SlotUse;
  /** The account served last: the next pass's rotation starts after it. */
  private lastServed: string | null = null;

  constructor(
    private readonly s: Services,
    private readonly opts: { maxInFlight?: number; onSettled?: () => void; onAttempt?: (a: { target: 'webhook' | 'postback'; outcome: AttemptOutcomeLabel }) => void } = {},
  ) {
    const c = s.config;
    this.slots = new SlotUse({
      total: opts.maxInFlight ?? c.webhookMaxInFlight,
      perAccount: c.webhookMaxInFlightPerAccount,
      perHost: c.webhookMaxInFlightPerHost,
    });
  }

  get busy(): number { return this.inFlight.size; }

  /** Starts sends for due queue heads; returns how many it started. */
  async tick(): Promise<number> {
    if (Date.now() - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      if (await hasOrphanedWaits(this.s.db.read)) {
        const at = this.s.clock.now().toISOString();
        const released = await this.s.db.write((tx) => releaseOrphanedWaits(tx, at));
        if (released) log.warn({ job: 'delivery', released }, 'released waiting deliveries with nothing ahead of them');
      }
    }
    const room = this.slots.room;
    if (room <= 0) return 0;
    const now = this.s.clock.now();
    const at = now.toISOString();
    // which accounts have due work: a read, so an idle pass (or one where only full accounts wait) writes nothing
    const accounts = await accountsWithDueWork(this.s.db.read, at);
    const pass: FairPass = { use: this.slots, after: this.lastServed, accounts };
    if (rotation(accounts, pass.after, this.slots, room).length === 0) return 0;
    let due: DueDelivery[];
    if (onPostgres) {
      due = await this.s.db.write((tx) => claimDueHeads(tx, now, [...this.inFlight.keys()], room, DELIVERY_LEASE_MS, pass));
      for (const d of due) this.leased.add(d.id);
      if (this.leased.size > 0) this.keepLeases();
    } else {
      due = await chooseDue(this.s.db.read, at, [...this.inFlight.keys()], pass);
    }
    let started = 0;
    // (a tick that overlapped this one's read may have started some of them already)
    for (const d of due) {
      if (this.inFlight.has(d.id)) continue;
      this.slots.take(d.id, d.account_id, hostOf(d.url));
      this.lastServed = d.account_id;
      this.inFlight.set(d.id, this.deliver(d));
      started += 1;
    }
    return started;
  }

  /** While this instance has claimed deliveries, renews their leases every DELIVERY_LEASE_RENEW_MS (PostgreSQL). */
  private keepLeases(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => {
      const ids = [...this.leased];
      if (ids.length === 0) {
        clearInterval(this.renewTimer!);
        this.renewTimer = null;
        return;
      }
      this.s.db.write((tx) => renewLeases(tx, ids, this.s.clock.now()))
        .catch((err) => log.error({ job: 'delivery', err, deliveries: ids.length }, 'could not renew delivery leases'));
    }, DELIVERY_LEASE_RENEW_MS);
    this.renewTimer.unref();
  }

  /** Waits for sends in flight, at most `timeoutMs`; unrecorded ones are simply sent again later. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()]),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); }),
    ]);
    clearTimeout(timer);
    // what is still unrecorded is left to the lease: another instance takes it over when it runs out
    this.leased.clear();
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  private secret(enc: string): string {
    let plain = this.secrets.get(enc);
    if (plain === undefined) {
      plain = decryptSecret(enc, this.s.masterKey);
      if (this.secrets.size >= 10_000) this.secrets.clear();
      this.secrets.set(enc, plain);
    }
    return plain;
  }

  private async deliver(d: DueDelivery): Promise<void> {
    const { config } = this.s;
    const body = eventEnvelope({ id: d.event_id, type: d.event_type, category: d.event_category, createdAt: d.event_created_at, payload: d.payload });
    let result: SendWebhookResult;
    const startedAt = this.s.clock.now();
    try {
      const headers = signDelivery({
        eventId: d.event_id, timestamp: this.s.clock.now(), body, secret: this.secret(d.secret_enc),
        previousSecret: d.previous_secret_enc ? this.secret(d.previous_secret_enc) : null, eventCategory: d.event_category,
      });
      result = await sendWebhook({
        url: d.url, headers, body, allowPrivate: config.webhookAllowPrivateUrls,
        timeoutMs: config.webhookTimeoutMs, connectTimeoutMs: config.webhookConnectTimeoutMs, headersTimeoutMs: config.webhookHeadersTimeoutMs,
      });
    } catch {
      result = { ok: false, status: null, durationMs: 0, responseExcerpt: '', error: 'cannot sign: the signing secret is unreadable' };
    }
    const outcome: AttemptOutcomeLabel = result.ok ? 'delivered' : result.status !== null ? 'http_error' : 'network_error';
    this.opts.onAttempt?.({ target: d.target, outcome });
    // never the URL (it may carry a token) nor any header: ids, outcome and timing only
    log.info({
      job: 'delivery', delivery_id: d.id, event_id: d.event_id, event_type: d.event_type, target: d.target, outcome,
      status_code: result.status, duration_ms: result.durationMs, error: result.error ?? undefined, req_id: d.request_id ?? undefined,
    }, 'delivery attempt');
    await new Promise<void>((done) => {
      this.finished.push({ deliveryId: d.id, result, startedAt, finishedAt: this.s.clock.now(), done });
      void this.flush();
    });
  }

  /** One write job for every attempt finished since the last one; the writer's group commit does the rest. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.finished.length) {
        const batch = this.finished.splice(0);
        let recorded = true;
        try {
          await this.s.db.write((tx) => recordAttempts(tx, batch, this.s.config.webhookRetryScheduleSeconds, this.s.clock.now()));
        } catch (err) {
          // e.g. the writer closed at shutdown: these stay PENDING and are sent again (at-least-once)
          recorded = false;
          log.error({ job: 'delivery', err, attempts: batch.length }, 'could not record delivery attempts; they will be sent again');
        }
        // Only now, with the results committed, may each queue's next delivery become its head.
        for (const b of batch) {
          // recorded: the lease is cleared; not recorded: it is left to run out
          this.leased.delete(b.deliveryId);
          // either way the send is over: its account's and host's slot goes to the next due delivery
          this.slots.give(b.deliveryId);
          if (recorded) {
            this.inFlight.delete(b.deliveryId);
          } else {
            // hold it back a while rather than resending in a tight loop while the database fails
            this.inFlight.set(b.deliveryId, Promise.resolve());
            setTimeout(() => this.inFlight.delete(b.deliveryId), RECORD_RETRY_MS).unref();
          }
          b.done();
        }
        this.opts.onSettled?.();
      }
    } finally {
      this.flushing = false;
    }
  }
}

// ---- the delivery log (REST, dashboard) and resend by hand ----

export type DeliveryAttemptView = z.infer<typeof deliveryAttemptView>;

export type DeliveryView = z.infer<typeof deliveryView>;

const deliveryColumns = {
  id: deliveries.id, webhookId: deliveries.webhookId, target: deliveries.target, url: deliveries.url, eventId: deliveries.eventId,
  eventType: events.type, resourceId: deliveries.resourceId, status: deliveries.status, attempts: deliveries.attempts,
  nextAttemptAt: deliveries.nextAttemptAt, lastStatusCode: deliveries.lastStatusCode, lastError: deliveries.lastError,
  createdAt: deliveries.createdAt, updatedAt: deliveries.updatedAt,
};

interface DeliveryRow {
  id: string; webhookId: string | null; target: 'webhook' | 'postback'; url: string; eventId: string; eventType: string;
  resourceId: string; status: DeliveryStatus; attempts: number; nextAttemptAt: string | null; lastStatusCode: number | null;
  lastError: string | null; createdAt: string; updatedAt: string;
}

async function withAttempts(db: Stores, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? await db.handle.select().from(deliveryAttempts).where(inArray(deliveryAttempts.deliveryId, ids)).orderBy(asc(deliveryAttempts.id))
    : [];
  const byDelivery = new Map<string, DeliveryAttemptView[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId) ?? [];
    list.push({ at: a.attemptedAt, attempted_at: a.attemptedAt, status_code: a.statusCode, duration_ms: a.durationMs, response_excerpt: a.responseExcerpt, error: a.error });
    byDelivery.set(a.deliveryId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    event_id: r.eventId,
    event_type: r.eventType,
    status: r.status,
    attempts: byDelivery.get(r.id) ?? [],
    next_attempt_at: r.nextAttemptAt,
    created_at: r.createdAt,
    webhook_id: r.webhookId,
    target: r.target,
    url: r.url,
    resource_id: r.resourceId,
    attempt_count: r.attempts,
    last_status_code: r.lastStatusCode,
    last_error: r.lastError,
    updated_at: r.updatedAt,
  }));
}

/** One page of deliveries matching `where`, newest first, each with its attempts (oldest first). */
async function deliveryPage(db: Stores, where: SQL | undefined, q: { cursor?: string | null; limit?: number }) {
  const limit = q.limit ?? 20;
  const after = q.cursor ? decodeCursor(q.cursor, ID_PREFIX.delivery) : null;
  const rows = await db.handle.select(deliveryColumns).from(deliveries).innerJoin(events, eq(events.id, deliveries.eventId))
    .where(and(
      where,
      after ? or(lt(deliveries.createdAt, after.createdAt), and(eq(deliveries.createdAt, after.createdAt), lt(deliveries.id, after.id))) : undefined,
    ))
    .orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: await withAttempts(db, page),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/**
 * A webhook's deliveries, newest first, each with its attempts (oldest first), optionally only those
 * in one status (the dashboard's "failed only"), one page and its `next_cursor`.
 */
export async function listDeliveries(s: Services, accountId: string, q: { magic_id: string; status?: DeliveryStatus; cursor?: string | null; limit?: number }) {
  // deliveries and their attempts from one snapshot: a record committing between the reads would show an attempt beside a stale status
  return s.db.read.snapshot(async (db) => {
    await liveWebhook(db, accountId, q.magic_id);
    return deliveryPage(db, and(eq(deliveries.webhookId, q.magic_id), q.status ? eq(deliveries.status, q.status) : undefined), q);
  });
}

/** One delivery of the account with its attempts and the exact body every attempt sent. */
export async function getDelivery(s: Services, accountId: string, deliveryId: string) {
  return s.db.read.snapshot(async (db) => {
    const view = await deliveryOf(db, accountId, deliveryId);
    const e = await first(db.handle.select({ id: events.id, type: events.type, category: events.category, createdAt: events.createdAt, payload: events.payload })
      .from(events).where(eq(events.id, view.event_id)));
    return { ...view, payload: eventEnvelope(e!) };
  });
}

/**
 * The account's postback deliveries (optionally of one resource: a withdrawal, transaction or dispute
 * id), newest first: the only way to find a postback delivery's attempts and id, to resend it by hand.
 */
export async function listPostbackDeliveries(s: Services, accountId: string, q: { resourceId?: string | null; cursor?: string | null; limit?: number }) {
  return s.db.read.snapshot((db) => deliveryPage(db, and(
    eq(deliveries.accountId, accountId), eq(deliveries.target, 'postback'),
    q.resourceId ? eq(deliveries.resourceId, q.resourceId) : undefined,
  ), q));
}

async function deliveryOf(db: Stores, accountId: string, id: string): Promise<DeliveryView> {
  const row = await first(db.handle.select(deliveryColumns).from(deliveries).innerJoin(events, eq(events.id, deliveries.eventId))
    .where(and(eq(deliveries.id, id), eq(deliveries.accountId, accountId))));
  if (!row) throw new DomainError('NOT_FOUND', 'delivery not found');
  return (await withAttempts(db, [row]))[0];
}

/**
 * Queues a delivery again by hand: a new attempt soon, same event, same webhook-id. A finished
 * delivery gets exactly one more attempt; a pending one has its next attempt moved to now. The
 * webhook must still exist, be active and not paused; the attempt goes to its current URL.
 */
export async function resendDelivery(s: Services, accountId: string, deliveryId: string) {
  const content = await s.db.write(async (tx) => {
    const d = await first(tx.handle.select({ status: deliveries.status, target: deliveries.target, webhookId: deliveries.webhookId })
      .from(deliveries).where(and(eq(deliveries.id, deliveryId), eq(deliveries.accountId, accountId))));
    if (!d) throw new DomainError('NOT_FOUND', 'delivery not found');
    let url: string | undefined;
    if (d.target === 'webhook' && d.webhookId) {
      const hook = await first(tx.handle.select({ active: webhooks.active, deletedAt: webhooks.deletedAt, pausedAt: webhooks.pausedAt, url: webhooks.url }).from(webhooks).where(eq(webhooks.id, d.webhookId)));
      if (!hook || hook.deletedAt) throw new DomainError('INVALID_STATE', 'the webhook of this delivery was deleted');
      if (hook.active !== 1) throw new DomainError('INVALID_STATE', 'the webhook of this delivery is inactive');
      if (hook.pausedAt) throw new DomainError('INVALID_STATE', 'the webhook of this delivery is paused; resume it first');
      // the merchant may have fixed the URL since: a resend goes where the webhook points now
      url = hook.url;
    }
    const at = s.clock.now().toISOString();
    await tx.handle.update(deliveries).set(d.status === 'PENDING'
      ? { nextAttemptAt: at, updatedAt: at, url }
      : { status: 'PENDING', nextAttemptAt: at, manual: 1, updatedAt: at, url }).where(eq(deliveries.id, deliveryId));
    return deliveryOf(tx, accountId, deliveryId);
  });
  s.wake.delivery?.();
  return content;
}

/**
 * Sends a signed `webhook.test` event to one webhook only: the event is recorded already dispatched (the
 * fan-out never sees it) together with its single delivery, in one write job; the sender picks it up
 * like any other delivery (same signing, timeout, attempt log and retry schedule).
 */
export async function sendTestEvent(s: Services, accountId: string, webhookId: string) {
  const deliveryId = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, webhookId);
    if (hook.active !== 1) throw new DomainError('INVALID_STATE', 'the webhook is inactive (its receiver answered 410); resume it first');
    if (hook.pausedAt) throw new DomainError('INVALID_STATE', 'the webhook is paused; resume it first');
    const now = s.clock.now();
    const at = now.toISOString();
    const eventId = newId('event');
    const payload = JSON.stringify({ magic_id: hook.id, url: hook.url, events: JSON.parse(hook.events) as string[] });
    const [e] = await tx.handle.insert(events).values({
      id: eventId, accountId, type: 'webhook.test', category: 'webhook', resourceId: hook.id, payload, createdAt: at, dispatchedAt: at,
    }).returning({ seq: events.seq });
    const id = newId('delivery');
    await tx.handle.insert(deliveries).values({
      id, eventId, eventSeq: e.seq, accountId, webhookId: hook.id, target: 'webhook', url: hook.url, resourceId: hook.id,
      status: 'PENDING', attempts: 0, nextAttemptAt: at, createdAt: at, updatedAt: at,
    });
    await holdBehindEarlier(tx, [id]);
    return id;
  });
  s.wake.delivery?.();
  return { delivery_id: deliveryId };
}
