import { purgeExpiredIdempotencyKeys } from '../domain/idempotency';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';
import { startDeliveryJobs } from './delivery';
import { startExpiryLoop } from './expiry';
import { startRefundSettlementLoop } from './refunds';
import { startSettlementLoop } from './settlement';
import { railFor } from '../domain/rails';
import { log } from '../log';
import { wakeOnWork } from './work-signal';

/** Starts every background loop of the process; each is registered under `services.wake`. */
export function startJobs(s: Services, opts: { dispatcher?: boolean } = {}): JobLoop[] {
  const loops: JobLoop[] = [];
  const add = (loop: JobLoop) => { loops.push(loop); s.wake[loop.name] = loop.wake; };
  let lastPurge = 0;
  add(startJobLoop('idempotency-cleanup', async () => {
    const now = s.clock.now();
    if (now.getTime() - lastPurge < 60_000) return 0;
    lastPurge = now.getTime();
    await purgeExpiredIdempotencyKeys(s, now);
    return 0;
  }, 60_000));
  add(startExpiryLoop(s));
  const rail = railFor(s.config);
  if (rail) {
    add(startSettlementLoop(s, rail));
    add(startRefundSettlementLoop(s, rail));
  } else log.warn('SANDBOX=false and no Pix rail configured: withdrawals are accepted and wait PENDING until one is');
  // event dispatcher + webhook/postback sender (off when `npm run worker` runs them)
  // (on PostgreSQL each server fans out its own events first: see startDeliveryJobs)
  if (opts.dispatcher) for (const loop of startDeliveryJobs(s, { othersAfterMs: s.db.listenForWork ? s.config.jobAffinityMs : 0 })) add(loop);
  // PostgreSQL: other instances' commits wake these loops (LISTEN/NOTIFY); closed by stopJobs
  listening.set(loops, wakeOnWork(s, loops));
  return loops;
}

/** The LISTEN of each set of loops startJobs started. */
const listening = new WeakMap<JobLoop[], () => Promise<void>>();

/** Stops the loops (and the LISTEN that wakes them, when startJobs started them). */
export async function stopJobs(loops: JobLoop[]) {
  const stopListening = listening.get(loops);
  listening.delete(loops);
  await Promise.all([...loops.map((l) => l.stop()), stopListening?.()]);
}

/** Loops started one by one (the worker, tests): other instances' commits wake them too, until stopJobs. */
export function listenForOtherInstances(s: Services, loops: JobLoop[]): void {
  listening.set(loops, wakeOnWork(s, loops));
}
