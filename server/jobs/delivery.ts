import { DeliveryEngine } from '../domain/webhooks/deliveries/scheduler';
import { DISPATCH_CHUNK, dispatchPendingEvents } from '../domain/webhooks/dispatcher';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';

/** How long a stopping process waits for sends in flight before leaving them to the next start. */
const DRAIN_MS = 5_000;

/**
 * The event dispatcher ('dispatch': events → deliveries) and the sender ('delivery': due deliveries →
 * HTTP). In-process commits wake the dispatcher through the writer's onCommit hook. Events written by
 * another process: on SQLite (the API server when this runs in `npm run worker`) they are found by
 * polling every min(JOB_POLL_MS, 20 ms), a cheap indexed probe, which keeps event→delivery latency low
 * either way; on PostgreSQL another instance's commit wakes this one through LISTEN/NOTIFY
 * (server/jobs/work-signal.ts), so the dispatcher polls every JOB_POLL_MS like the other loops.
 */
export function startDeliveryJobs(s: Services, opts: { othersAfterMs?: number } = {}): JobLoop[] {
  const engine = new DeliveryEngine(s, {
    onSettled: () => delivery.wake(),
    onAttempt: (a) => s.metrics?.observeDeliveryAttempt(a),
  });
  const delivery: JobLoop = startJobLoop('delivery', () => engine.tick(), s.config.jobPollMs);
  // othersAfterMs (PostgreSQL, a server whose own commits wake this dispatcher): a pass that no commit of this
  // process asked for (a poll, another instance's notification) takes only events older than that. Each
  // instance then fans out its own events right after its commit, in its own groups, instead of the others
  // racing it with groups of their own for the same events; an event whose instance is busy, stopped or
  // gone is still fanned out by another once it is that old.
  const othersAfterMs = opts.othersAfterMs ?? 0;
  let ownCommit = true;
  const dispatch = startJobLoop('dispatch', async () => {
    const all = othersAfterMs === 0 || ownCommit;
    ownCommit = false;
    const r = await dispatchPendingEvents(s, DISPATCH_CHUNK, all ? {} : { recordedBefore: new Date(s.clock.now().getTime() - othersAfterMs) });
    // a full chunk may have left more of this process's events: the next pass takes all again
    if (all && r.events >= DISPATCH_CHUNK) ownCommit = true;
    if (r.deliveries > 0) delivery.wake();
    return r.events;
  }, s.db.listenForWork ? s.config.jobPollMs : Math.min(s.config.jobPollMs, 20));
  const unsubscribe = s.db.writer.onCommit?.(() => { ownCommit = true; dispatch.wake(); });
  return [
    { ...dispatch, async stop() { unsubscribe?.(); await dispatch.stop(); } },
    { ...delivery, async stop() { await delivery.stop(); await engine.drain(DRAIN_MS); } },
  ];
}
