import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { deliveries, deliveryAttempts, events, webhooks } from '../schema';
import { first, lockNames, rawChanges, rawExec, rawRows, skipLockedOf } from '../query';
import { onPostgres } from '../dialect';
import type { DeliveryStatus, DeliveryTarget, StoredEventCategory } from '../../contract/enums';

/** A due queue head with what sending it needs: its event, its signing secret(s) and its account. */
export interface DueDelivery {
  id: string;
  url: string;
  target: DeliveryTarget;
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

/** A delivery as recording an attempt on it needs it, with its webhook's state (null for postbacks). */
export interface AttemptTarget {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  manual: number;
  target: DeliveryTarget;
  webhookId: string | null;
  webhookActive: number | null;
  webhookDeletedAt: string | null;
}

/** One attempt's row in the delivery log. */
export interface NewAttempt {
  deliveryId: string;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string | null;
}

/** A recorded attempt, as the delivery log reads it. */
export interface AttemptRow {
  id: number;
  deliveryId: string;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** A delivery's new state: after an attempt (status, schedule, outcome) or a resend by hand. */
export interface DeliveryChange {
  status?: DeliveryStatus;
  nextAttemptAt?: string | null;
  lastStatusCode?: number | null;
  lastError?: string | null;
  manual?: 0 | 1;
  leaseExpiresAt?: null;
  url?: string;
  updatedAt: string;
}

/** A delivery to queue (fan-out, a test event). */
export interface NewDelivery {
  id: string;
  eventId: string;
  eventSeq: number;
  accountId: string;
  webhookId: string | null;
  target: DeliveryTarget;
  url: string;
  resourceId: string;
  status: 'PENDING';
  attempts: 0;
  nextAttemptAt: string;
  createdAt: string;
  updatedAt: string;
}

/** A delivery as the delivery log shows it, with its event's type. */
export interface DeliveryRow {
  id: string; webhookId: string | null; target: DeliveryTarget; url: string; eventId: string; eventType: string;
  resourceId: string; status: DeliveryStatus; attempts: number; nextAttemptAt: string | null; lastStatusCode: number | null;
  lastError: string | null; createdAt: string; updatedAt: string;
}

/**
 * Which deliveries a page of the log lists: a webhook's (optionally in one status), or an account's
 * postbacks, or its API Pix notifications (`target` 'pix'), optionally of one resource.
 */
export type DeliveryLog =
  | { webhookId: string; status?: DeliveryStatus }
  | { postbacksOf: string; resourceId?: string | null; target?: Exclude<DeliveryTarget, 'webhook'> };

const ids = (list: string[]) => sql.join(list.map((id) => sql`${id}`), sql`, `);

function chunks<T>(list: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

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

/** A delivery with an earlier PENDING delivery in its queue (same URL and resource, lower seq). */
const EARLIER_PENDING = sql`SELECT 1 FROM deliveries p
  WHERE p.url = deliveries.url AND p.resource_id = deliveries.resource_id AND p.status = 'PENDING'
    AND (p.event_seq < deliveries.event_seq OR (p.event_seq = deliveries.event_seq AND p.id < deliveries.id))`;

const deliveryColumns = {
  id: deliveries.id, webhookId: deliveries.webhookId, target: deliveries.target, url: deliveries.url, eventId: deliveries.eventId,
  eventType: events.type, resourceId: deliveries.resourceId, status: deliveries.status, attempts: deliveries.attempts,
  nextAttemptAt: deliveries.nextAttemptAt, lastStatusCode: deliveries.lastStatusCode, lastError: deliveries.lastError,
  createdAt: deliveries.createdAt, updatedAt: deliveries.updatedAt,
};

/**
 * Deliveries and their attempts: the sender's claim of due queue heads (round-robin input per account,
 * SKIP LOCKED and leases on PostgreSQL), recording attempts, the ordering queues, and the delivery log.
 *
 * Ordering queues: the PENDING deliveries of one resource to one URL, in event order. Only the head of a
 * queue is ever due; the others wait with next_attempt_at NULL, so the sender's due query never has to
 * wade through deliveries stuck behind a receiver that is down. Whenever a delivery leaves PENDING, the
 * head of its queue is promoted (next_attempt_at = now) in the same write job. The due query still checks
 * "no earlier PENDING delivery in the queue" itself, so a resend of an older delivery, or any slip here,
 * can never reorder a queue.
 */
export class DeliveryStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Whether several instances may send deliveries at once, so that each claims what it sends under a
   * lease (PostgreSQL). SQLite's single delivering process keeps what it sends in memory and reads its
   * due heads without a claim.
   */
  get claimsAcrossInstances(): boolean {
    return onPostgres;
  }

  // ---- the sender's claim ----

  /**
   * The accounts that have a due delivery (PostgreSQL: one no live lease holds), in account order: a loose
   * index scan over deliveries_account_due_idx (status, account_id, next_attempt_at), one seek per account
   * with PENDING deliveries, so a merchant with a backlog of thousands costs what one without does.
   */
  async accountsWithDueWork(now: string): Promise<string[]> {
    const rows = await rawRows<{ account_id: string }>(this.db, sql`
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
   * Each account's oldest due queue heads, at most `limit` of each (leaving out `exclude`, what this
   * process is sending), in one statement: one arm per account, each a seek on deliveries_account_due_idx.
   * On PostgreSQL each arm locks its rows (FOR UPDATE OF d SKIP LOCKED) until the job commits and leaves
   * out leased ones, so instances claiming at once see disjoint candidates. Oldest first within each account.
   */
  async dueHeads(now: string, accounts: { id: string; limit: number }[], exclude: string[]): Promise<DueDelivery[]> {
    if (accounts.length === 0) return [];
    const arms = accounts.map((a, i) => sql`SELECT * FROM (
    SELECT ${dueColumns(now)}, d.account_id, d.next_attempt_at AS due_at
    ${dueFrom()}
    WHERE d.account_id = ${a.id} AND ${DUE_HEAD(now)} ${onPostgres ? sql`AND ${leaseFree(now)}` : sql``} ${notInFlight(exclude)}
    ORDER BY d.next_attempt_at, d.id
    LIMIT ${a.limit}
    ${skipLockedOf('d')}) ${sql.raw(`c${i}`)}`);
    const rows = await rawRows<DueDelivery>(this.db, sql.join(arms, sql` UNION ALL `));
    // oldest first within each account (the arms' order is not the compound's promise)
    return rows.sort((x, y) => (x.due_at < y.due_at ? -1 : x.due_at > y.due_at ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  }

  /** Stamps the lease of deliveries just claimed (their row locks, taken by `dueHeads`, hold until the job commits). */
  async lease(deliveryIds: string[], until: string): Promise<void> {
    if (deliveryIds.length === 0) return;
    await rawExec(this.db, sql`UPDATE deliveries SET lease_expires_at = ${until} WHERE id IN (${ids(deliveryIds)})`);
  }

  /** Moves the leases of these deliveries, still PENDING and leased, to `until`; how many it moved. */
  async renewLeases(deliveryIds: string[], until: string): Promise<number> {
    if (deliveryIds.length === 0) return 0;
    return rawChanges(this.db, sql`UPDATE deliveries SET lease_expires_at = ${until}
    WHERE id IN (${ids(deliveryIds)}) AND status = 'PENDING' AND lease_expires_at IS NOT NULL`);
  }

  // ---- recording attempts ----

  /** These deliveries (those that exist) with their webhook's state, to record an attempt on each. */
  async attemptTargets(deliveryIds: string[]): Promise<AttemptTarget[]> {
    return this.db.select({
      id: deliveries.id, status: deliveries.status, attempts: deliveries.attempts, manual: deliveries.manual, target: deliveries.target,
      webhookId: deliveries.webhookId, webhookActive: webhooks.active, webhookDeletedAt: webhooks.deletedAt,
    }).from(deliveries).leftJoin(webhooks, eq(webhooks.id, deliveries.webhookId))
      .where(inArray(deliveries.id, deliveryIds));
  }

  /** Adds attempts to the delivery log (500 rows a statement). */
  async insertAttempts(attempts: NewAttempt[]): Promise<void> {
    for (const part of chunks(attempts)) await this.db.insert(deliveryAttempts).values(part);
  }

  /** Counts one more attempt on each of these deliveries and sets their new state (500 a statement). */
  async recordAttempt(deliveryIds: string[], change: DeliveryChange): Promise<void> {
    for (const part of chunks(deliveryIds)) {
      await this.db.update(deliveries).set({ ...change, attempts: sql`${deliveries.attempts} + 1` })
        .where(inArray(deliveries.id, part));
    }
  }

  /** Stops a webhook's PENDING deliveries: FAILED with `lastError`. Returns their ids (their queues move on). */
  async failPendingOfWebhook(webhookId: string, lastError: string, at: string): Promise<string[]> {
    const stopped = await this.db.update(deliveries).set({ status: 'FAILED', nextAttemptAt: null, manual: 0, lastError, updatedAt: at })
      .where(and(eq(deliveries.webhookId, webhookId), eq(deliveries.status, 'PENDING'))).returning({ id: deliveries.id });
    return stopped.map((d) => d.id);
  }

  /** A webhook's PENDING deliveries go to its new URL (their queue, which is per URL, moves with them). */
  async moveQueuedTo(webhookId: string, url: string, at: string): Promise<void> {
    await this.db.update(deliveries).set({ url, updatedAt: at }).where(and(eq(deliveries.webhookId, webhookId), eq(deliveries.status, 'PENDING')));
  }

  /**
   * Stops the account's PENDING deliveries of `target` to `url` (a Pix key's webhook removed): FAILED
   * with `lastError`. Returns their ids (their queues move on).
   */
  async failPendingTo(accountId: string, target: DeliveryTarget, url: string, lastError: string, at: string): Promise<string[]> {
    const stopped = await this.db.update(deliveries).set({ status: 'FAILED', nextAttemptAt: null, manual: 0, lastError, updatedAt: at })
      .where(and(eq(deliveries.accountId, accountId), eq(deliveries.target, target), eq(deliveries.url, url), eq(deliveries.status, 'PENDING')))
      .returning({ id: deliveries.id });
    return stopped.map((d) => d.id);
  }

  /** The account's PENDING deliveries of `target` to `from` go to `to` (a Pix key's webhook moved; the queue moves with them). */
  async moveQueuedOfUrl(accountId: string, target: DeliveryTarget, from: string, to: string, at: string): Promise<void> {
    await this.db.update(deliveries).set({ url: to, updatedAt: at })
      .where(and(eq(deliveries.accountId, accountId), eq(deliveries.target, target), eq(deliveries.url, from), eq(deliveries.status, 'PENDING')));
  }

  // ---- queuing ----

  /** Queues new deliveries (200 rows a statement: ~14 bound values each, well under SQLite's variable limit). */
  async insertDeliveries(rows: NewDelivery[]): Promise<void> {
    for (const part of chunks(rows, 200)) await this.db.insert(deliveries).values(part);
  }

  /** A delivery of the account, as a resend by hand needs it. */
  async forResend(accountId: string, deliveryId: string): Promise<{ status: DeliveryStatus; target: DeliveryTarget; webhookId: string | null; url: string } | undefined> {
    return first(this.db.select({ status: deliveries.status, target: deliveries.target, webhookId: deliveries.webhookId, url: deliveries.url })
      .from(deliveries).where(and(eq(deliveries.id, deliveryId), eq(deliveries.accountId, accountId))));
  }

  /** Queues a delivery again by hand (its next attempt, and for a finished one its status and `manual`). */
  async requeue(deliveryId: string, change: DeliveryChange): Promise<void> {
    await this.db.update(deliveries).set(change).where(eq(deliveries.id, deliveryId));
  }

  /**
   * Holds the queues of these deliveries until the job commits. On PostgreSQL a job that queues a new
   * delivery and a job that finishes the one ahead of it can run at once; without this each would miss
   * the other's uncommitted row and the new delivery would wait for the sweep instead of going next.
   * SQLite's single writer already runs them one after the other.
   */
  private async lockQueuesOf(deliveryIds: string[]): Promise<void> {
    if (!onPostgres || deliveryIds.length === 0) return;
    const keys: { url: string; resource_id: string }[] = [];
    for (const part of chunks(deliveryIds)) {
      keys.push(...await rawRows<{ url: string; resource_id: string }>(this.db, sql`SELECT url, resource_id FROM deliveries WHERE id IN (${ids(part)})`));
    }
    await lockNames(this.db, keys.map((k) => `delivery-queue\n${k.url}\n${k.resource_id}`));
  }

  /** New deliveries that are not the head of their queue wait (next_attempt_at NULL). */
  async holdBehindEarlier(deliveryIds: string[]): Promise<void> {
    await this.lockQueuesOf(deliveryIds);
    for (const part of chunks(deliveryIds)) {
      await rawExec(this.db, sql`UPDATE deliveries SET next_attempt_at = NULL
      WHERE id IN (${ids(part)}) AND status = 'PENDING' AND EXISTS (${EARLIER_PENDING})`);
    }
  }

  /** After these deliveries left PENDING: the head of each of their queues becomes due now, if it was waiting. */
  async promoteQueueHeads(finishedIds: string[], at: string): Promise<void> {
    await this.lockQueuesOf(finishedIds);
    for (const part of chunks(finishedIds)) {
      await rawExec(this.db, sql`UPDATE deliveries SET next_attempt_at = ${at}, updated_at = ${at}
      WHERE status = 'PENDING' AND next_attempt_at IS NULL AND id IN (
        SELECT (SELECT p.id FROM deliveries p
                WHERE p.url = q.url AND p.resource_id = q.resource_id AND p.status = 'PENDING'
                ORDER BY p.event_seq, p.id LIMIT 1)
        FROM deliveries q WHERE q.id IN (${ids(part)}))`);
    }
  }

  /** Safety net: waiting deliveries with nothing ahead of them become due (returns how many). */
  async releaseOrphanedWaits(at: string): Promise<number> {
    return rawChanges(this.db, sql`UPDATE deliveries SET next_attempt_at = ${at}, updated_at = ${at}
    WHERE status = 'PENDING' AND next_attempt_at IS NULL AND NOT EXISTS (${EARLIER_PENDING})`);
  }

  /** Whether any waiting delivery has nothing ahead of it (a cheap read before the write above). */
  async hasOrphanedWaits(): Promise<boolean> {
    return (await rawRows(this.db, sql`SELECT 1 FROM deliveries WHERE status = 'PENDING' AND next_attempt_at IS NULL
    AND NOT EXISTS (${EARLIER_PENDING}) LIMIT 1`)).length > 0;
  }

  // ---- the delivery log (REST, dashboard) ----

  /** Up to `take` deliveries of the log, newest first, older than `after` (the page's cursor) when given. */
  async logPage(log: DeliveryLog, after: { createdAt: string; id: string } | null, take: number): Promise<DeliveryRow[]> {
    const where: (SQL | undefined)[] = 'webhookId' in log
      ? [eq(deliveries.webhookId, log.webhookId), log.status ? eq(deliveries.status, log.status) : undefined]
      : [eq(deliveries.accountId, log.postbacksOf), eq(deliveries.target, log.target ?? 'postback'), log.resourceId ? eq(deliveries.resourceId, log.resourceId) : undefined];
    return this.db.select(deliveryColumns).from(deliveries).innerJoin(events, eq(events.id, deliveries.eventId))
      .where(and(
        and(...where),
        after ? or(lt(deliveries.createdAt, after.createdAt), and(eq(deliveries.createdAt, after.createdAt), lt(deliveries.id, after.id))) : undefined,
      ))
      .orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(take);
  }

  /** One delivery of the account, as the log shows it. */
  async ofAccount(accountId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    return first(this.db.select(deliveryColumns).from(deliveries).innerJoin(events, eq(events.id, deliveries.eventId))
      .where(and(eq(deliveries.id, deliveryId), eq(deliveries.accountId, accountId))));
  }

  /** The attempts of these deliveries, oldest first. */
  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return this.db.select().from(deliveryAttempts).where(inArray(deliveryAttempts.deliveryId, deliveryIds)).orderBy(asc(deliveryAttempts.id));
  }
}
