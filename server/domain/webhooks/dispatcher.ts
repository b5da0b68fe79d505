import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Stores } from '../../../db';
import { perConnection } from '../../../db/prepared';
import { jsonStringList } from '../../../db/dialect';
import { onPostgres } from '../../../db/dialect';
import { first, tryLockName } from '../../../db/query';
import { deliveries, disputes, events, transactions, webhooks, withdrawalBatches, withdrawals } from '../../../db/schema';
import type { Services } from '../../services';
import type { EventCategory, StoredEventCategory } from '../events';
import { newId } from '../ids';
import { holdBehindEarlier } from './queues';

/** Events fanned out per write job: big enough to amortise a commit, small enough to keep the writer responsive. */
export const DISPATCH_CHUNK = 500;

/** The name of the advisory lock only one instance's dispatcher holds at a time (PostgreSQL). */
const DISPATCHER_LOCK = 'event-dispatcher';

export interface DispatchResult { events: number; deliveries: number }

type NewDelivery = typeof deliveries.$inferInsert & { id: string };

/** A JSON array of ids bound as one value, so a statement over a list of any length is prepared once. */
const idList = (name: string) => jsonStringList(sql.placeholder(name));

// prepared once per connection: the probe runs after every commit of the process, the rest per pass
const statements = perConnection((db) => ({
  probe: db.select({ seq: events.seq }).from(events).where(isNull(events.dispatchedAt)).limit(1).prepare(),
  undispatched: db.select({
    seq: events.seq, id: events.id, accountId: events.accountId, category: events.category, resourceId: events.resourceId,
  }).from(events).where(isNull(events.dispatchedAt)).orderBy(asc(events.seq)).limit(sql.placeholder('limit')).prepare(),
  markDispatched: db.update(events).set({ dispatchedAt: sql.placeholder('at') as unknown as string })
    .where(and(isNull(events.dispatchedAt), lte(events.seq, sql.placeholder('lastSeq')))).prepare(),
  markDispatchedIds: db.update(events).set({ dispatchedAt: sql.placeholder('at') as unknown as string })
    .where(and(isNull(events.dispatchedAt), inArray(events.id, idList('ids')))).prepare(),
  hooksOf: db.select({ id: webhooks.id, accountId: webhooks.accountId, url: webhooks.url, events: webhooks.events })
    .from(webhooks)
    .where(and(inArray(webhooks.accountId, idList('accountIds')), eq(webhooks.active, 1), isNull(webhooks.deletedAt), isNull(webhooks.pausedAt)))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id)).prepare(),
  withdrawalPostbacks: db.select({ id: withdrawals.id, postback: withdrawals.postback }).from(withdrawals)
    .where(inArray(withdrawals.id, idList('ids'))).prepare(),
  batchPostbacks: db.select({ id: withdrawalBatches.id, postback: withdrawals.postback }).from(withdrawalBatches)
    .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId)).where(inArray(withdrawalBatches.id, idList('ids'))).prepare(),
  transactionPostbacks: db.select({ id: transactions.id, postback: transactions.postback }).from(transactions)
    .where(inArray(transactions.id, idList('ids'))).prepare(),
  disputePostbacks: db.select({ id: disputes.id, postback: transactions.postback }).from(disputes)
    .innerJoin(transactions, eq(transactions.id, disputes.transactionId)).where(inArray(disputes.id, idList('ids'))).prepare(),
}));

/**
 * Turns undispatched events (in `seq` order) into deliveries: one per active, not paused, not deleted webhook of
 * the event's account subscribed to its category, plus one to the resource's `postback` URL when it
 * has one. Selecting the events, inserting their deliveries and setting `dispatched_at` happen in one
 * write job, so an event is fanned out exactly once even if two dispatchers ran at the same time:
 * SQLite's single writer runs them one after the other; on PostgreSQL every instance runs a dispatcher
 * and the job first takes a transaction-level advisory lock (pg_try_advisory_xact_lock): a dispatcher
 * that finds it held does nothing this pass (the holder is fanning out), instead of waiting for it.
 */
export async function dispatchPendingEvents(s: Services, limit = DISPATCH_CHUNK): Promise<DispatchResult> {
  // Cheap probe on the read connection first: this runs after every commit of the process.
  const probe = await first(statements(s.db.read).probe.execute());
  if (!probe) return { events: 0, deliveries: 0 };
  return s.db.write((tx) => fanOut(tx, s.clock.now(), s.config.webhookRetryScheduleSeconds, limit));
}

export async function fanOut(tx: Stores, now: Date, schedule: number[], limit: number): Promise<DispatchResult> {
  // one dispatcher at a time across instances (always true on SQLite)
  if (!(await tryLockName(tx, DISPATCHER_LOCK))) return { events: 0, deliveries: 0 };
  const st = statements(tx);
  const batch = await st.undispatched.execute({ limit });
  if (batch.length === 0) return { events: 0, deliveries: 0 };

  const accountIds = [...new Set(batch.map((e) => e.accountId))];
  const hooks = await st.hooksOf.execute({ accountIds: JSON.stringify(accountIds) });
  const hooksByAccount = new Map<string, { id: string; url: string; categories: Set<string> }[]>();
  for (const h of hooks) {
    const list = hooksByAccount.get(h.accountId) ?? [];
    list.push({ id: h.id, url: h.url, categories: new Set(JSON.parse(h.events) as string[]) });
    hooksByAccount.set(h.accountId, list);
  }
  const postbacks = await postbackUrls(tx, batch);

  const at = now.toISOString();
  const firstAttemptAt = new Date(now.getTime() + (schedule[0] ?? 0) * 1000).toISOString();
  const rows: NewDelivery[] = [];
  for (const e of batch) {
    const base = {
      eventId: e.id, eventSeq: e.seq, accountId: e.accountId, resourceId: e.resourceId, status: 'PENDING' as const,
      attempts: 0, nextAttemptAt: firstAttemptAt, createdAt: at, updatedAt: at,
    };
    for (const h of hooksByAccount.get(e.accountId) ?? []) {
      if (h.categories.has(e.category)) rows.push({ ...base, id: newId('delivery'), webhookId: h.id, target: 'webhook', url: h.url });
    }
    const postback = postbacks.get(`${e.category}:${e.resourceId}`);
    if (postback) rows.push({ ...base, id: newId('delivery'), webhookId: null, target: 'postback', url: postback });
  }
  // ~14 bound values per row: stay well under SQLite's variable limit
  for (let i = 0; i < rows.length; i += 200) await tx.handle.insert(deliveries).values(rows.slice(i, i + 200));
  // a resource's later event waits behind its earlier, still pending, deliveries to the same URL
  await holdBehindEarlier(tx, rows.map((r) => r.id));
  if (onPostgres) {
    // Exactly the events fanned out: on PostgreSQL an event with a lower seq may have committed after
    // this job read the batch (seqs are taken at insert, not at commit), so "up to lastSeq" could mark
    // one that was never fanned out.
    await st.markDispatchedIds.execute({ at, ids: JSON.stringify(batch.map((e) => e.id)) });
  } else {
    // Exactly the selected events: SQLite's single writer commits in seq order, so every undispatched
    // event up to lastSeq was in this batch.
    await st.markDispatched.execute({ at, lastSeq: batch[batch.length - 1].seq });
  }
  return { events: batch.length, deliveries: rows.length };
}

/**
 * `postback` of each event's resource, keyed `category:resourceId`. A withdraw event names the
 * withdrawal (or, tolerated, one of its batches); a dispute event names the dispute, whose transaction
 * carries the postback (or, tolerated, the transaction itself).
 */
async function postbackUrls(tx: Stores, batch: { category: StoredEventCategory; resourceId: string }[]): Promise<Map<string, string>> {
  const st = statements(tx);
  const out = new Map<string, string>();
  const ids = (c: EventCategory) => [...new Set(batch.filter((e) => e.category === c).map((e) => e.resourceId))];
  const put = (c: EventCategory, id: string, url: string | null) => { if (url) out.set(`${c}:${id}`, url); };

  const withdrawIds = ids('withdraw');
  if (withdrawIds.length) {
    const found = await st.withdrawalPostbacks.execute({ ids: JSON.stringify(withdrawIds) });
    for (const r of found) put('withdraw', r.id, r.postback);
    const seen = new Set(found.map((r) => r.id));
    const missing = withdrawIds.filter((id) => !seen.has(id));
    if (missing.length) {
      const viaBatch = await st.batchPostbacks.execute({ ids: JSON.stringify(missing) });
      for (const r of viaBatch) put('withdraw', r.id, r.postback);
    }
  }
  const transactionIds = ids('transaction');
  if (transactionIds.length) {
    const found = await st.transactionPostbacks.execute({ ids: JSON.stringify(transactionIds) });
    for (const r of found) put('transaction', r.id, r.postback);
  }
  const disputeIds = ids('dispute');
  if (disputeIds.length) {
    const found = await st.disputePostbacks.execute({ ids: JSON.stringify(disputeIds) });
    for (const r of found) put('dispute', r.id, r.postback);
    const seen = new Set(found.map((r) => r.id));
    const missing = disputeIds.filter((id) => !seen.has(id));
    if (missing.length) {
      const direct = await st.transactionPostbacks.execute({ ids: JSON.stringify(missing) });
      for (const r of direct) put('dispute', r.id, r.postback);
    }
  }
  return out;
}
