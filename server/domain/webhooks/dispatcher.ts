import type { Stores } from '../../../db';
import type { NewDelivery } from '../../../db/stores/deliveries';
import type { Services } from '../../services';
import type { EventCategory, StoredEventCategory } from '../events';
import { newId } from '../ids';

/** Events fanned out per write job: big enough to amortise a commit, small enough to keep the writer responsive. */
export const DISPATCH_CHUNK = 500;

export interface DispatchResult { events: number; deliveries: number }

/**
 * Turns undispatched events (in `seq` order) into deliveries: one per active, not paused, not deleted webhook of
 * the event's account subscribed to its category, plus one to the resource's `postback` URL when it
 * has one. Selecting the events, inserting their deliveries and setting `dispatched_at` happen in one
 * write job, so an event is fanned out exactly once even if two dispatchers ran at the same time:
 * SQLite's single writer runs them one after the other; on PostgreSQL every instance runs a dispatcher
 * and the job first takes a transaction-level advisory lock (pg_try_advisory_xact_lock): a dispatcher
 * that finds it held does nothing this pass (the holder is fanning out), instead of waiting for it.
 */
export async function dispatchPendingEvents(s: Services, limit = DISPATCH_CHUNK, opts: { recordedBefore?: Date } = {}): Promise<DispatchResult> {
  const before = opts.recordedBefore?.toISOString();
  // Cheap probe on the read connection first: this runs after every commit of the process.
  if (!(await s.db.read.events.anyUndispatched(before))) return { events: 0, deliveries: 0 };
  return s.db.write((tx) => fanOut(tx, s.clock.now(), s.config.webhookRetryScheduleSeconds, limit, before));
}

/** `before`: only the events recorded before that instant (another instance's fresh ones are left to it). */
export async function fanOut(tx: Stores, now: Date, schedule: number[], limit: number, before?: string): Promise<DispatchResult> {
  // one dispatcher at a time across instances (always true on SQLite)
  if (!(await tx.events.takeDispatcherTurn())) return { events: 0, deliveries: 0 };
  const batch = await tx.events.undispatched(limit, before);
  if (batch.length === 0) return { events: 0, deliveries: 0 };

  const accountIds = [...new Set(batch.map((e) => e.accountId))];
  const hooks = await tx.events.subscribersOf(accountIds);
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
      attempts: 0 as const, nextAttemptAt: firstAttemptAt, createdAt: at, updatedAt: at,
    };
    for (const h of hooksByAccount.get(e.accountId) ?? []) {
      if (h.categories.has(e.category)) rows.push({ ...base, id: newId('delivery'), webhookId: h.id, target: 'webhook', url: h.url });
    }
    const postback = postbacks.get(`${e.category}:${e.resourceId}`);
    if (postback) rows.push({ ...base, id: newId('delivery'), webhookId: null, target: 'postback', url: postback });
  }
  await tx.deliveries.insertDeliveries(rows);
  // a resource's later event waits behind its earlier, still pending, deliveries to the same URL
  await tx.deliveries.holdBehindEarlier(rows.map((r) => r.id));
  // exactly the events of this batch (the store knows what "exactly" takes on each engine)
  await tx.events.markDispatched(batch, at);
  return { events: batch.length, deliveries: rows.length };
}

/**
 * `postback` of each event's resource, keyed `category:resourceId`. A withdraw event names the
 * withdrawal (or, tolerated, one of its batches); a dispute event names the dispute, whose transaction
 * carries the postback (or, tolerated, the transaction itself).
 */
async function postbackUrls(tx: Stores, batch: { category: StoredEventCategory; resourceId: string }[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ids = (c: EventCategory) => [...new Set(batch.filter((e) => e.category === c).map((e) => e.resourceId))];
  const put = (c: EventCategory, id: string, url: string | null) => { if (url) out.set(`${c}:${id}`, url); };

  const withdrawIds = ids('withdraw');
  if (withdrawIds.length) {
    const found = await tx.events.withdrawalPostbacks(withdrawIds);
    for (const r of found) put('withdraw', r.id, r.postback);
    const seen = new Set(found.map((r) => r.id));
    const missing = withdrawIds.filter((id) => !seen.has(id));
    if (missing.length) {
      const viaBatch = await tx.events.batchPostbacks(missing);
      for (const r of viaBatch) put('withdraw', r.id, r.postback);
    }
  }
  const transactionIds = ids('transaction');
  if (transactionIds.length) {
    const found = await tx.events.transactionPostbacks(transactionIds);
    for (const r of found) put('transaction', r.id, r.postback);
  }
  const disputeIds = ids('dispute');
  if (disputeIds.length) {
    const found = await tx.events.disputePostbacks(disputeIds);
    for (const r of found) put('dispute', r.id, r.postback);
    const seen = new Set(found.map((r) => r.id));
    const missing = disputeIds.filter((id) => !seen.has(id));
    if (missing.length) {
      const direct = await tx.events.transactionPostbacks(missing);
      for (const r of direct) put('dispute', r.id, r.postback);
    }
  }
  return out;
}
