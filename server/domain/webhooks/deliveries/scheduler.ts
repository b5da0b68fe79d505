import { log } from '../../../log';
import type { DueDelivery } from '../../../../db/stores/deliveries';
import type { Services } from '../../../services';
import { deliveryBody } from '../../events';
import type { DeliveryTarget } from '../../../../contract/enums';
import { decryptSecret } from '../secrets';
import { hostOf, rotation, SlotUse } from '../fair-share';
import { sendWebhook, type SendWebhookResult } from '../sender';
import { signDelivery } from '../signing';
import { recordAttempts, type AttemptOutcome } from './attempts';
import { chooseDue, claimDueHeads, DELIVERY_LEASE_MS, DELIVERY_LEASE_RENEW_MS, renewLeases, type FairPass } from './claim';

/*
 * The sender (docs/decisions.md "Events and deliveries"): a delivery is one event to one target URL.
 * Deliveries of one resource to one URL form a queue ordered by event seq: only its head is sent, so a
 * later event waits while an earlier one is pending or being retried. The body is the event envelope,
 * the same bytes on every attempt; the signature headers are fresh per attempt and webhook-id is always
 * the event id (receivers dedupe). Sending happens outside write jobs; each result is recorded by its
 * own write job (the writer groups them into one commit). At-least-once: a crash between send and record
 * sends again after a restart.
 */

/** How often the sender checks for waiting deliveries that nothing is ahead of any more (a safety net). */
const SWEEP_EVERY_MS = 60_000;
/** After the database refused to record an attempt, that delivery is not sent again for this long. */
const RECORD_RETRY_MS = 5_000;

export type AttemptOutcomeLabel = 'delivered' | 'http_error' | 'network_error';

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
    private readonly opts: { maxInFlight?: number; onSettled?: () => void; onAttempt?: (a: { target: DeliveryTarget; outcome: AttemptOutcomeLabel }) => void } = {},
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
      if (await this.s.db.read.deliveries.hasOrphanedWaits()) {
        const at = this.s.clock.now().toISOString();
        const released = await this.s.db.write((tx) => tx.deliveries.releaseOrphanedWaits(at));
        if (released) log.warn({ job: 'delivery', released }, 'released waiting deliveries with nothing ahead of them');
      }
    }
    const room = this.slots.room;
    if (room <= 0) return 0;
    const now = this.s.clock.now();
    const at = now.toISOString();
    // which accounts have due work: a read, so an idle pass (or one where only full accounts wait) writes nothing
    const accounts = await this.s.db.read.deliveries.accountsWithDueWork(at);
    const pass: FairPass = { use: this.slots, after: this.lastServed, accounts };
    if (rotation(accounts, pass.after, this.slots, room).length === 0) return 0;
    let due: DueDelivery[];
    if (this.s.db.read.deliveries.claimsAcrossInstances) {
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
    const body = deliveryBody(d.target, { id: d.event_id, type: d.event_type, category: d.event_category, createdAt: d.event_created_at, payload: d.payload });
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
