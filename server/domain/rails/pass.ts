import { log } from '../../log';

/**
 * One pass of a settlement job over due rows: ask the rail about each order (outside any write job:
 * for a real PSP that is network), then apply every outcome as its own write job, queued together so
 * they share one commit. A rail call that throws becomes "ask again at now + retryMs". Returns how many
 * outcomes were applied, so a failing write cannot make the job loop spin.
 */
export async function settleWithRail<O, R>(o: {
  job: string;
  orders: O[];
  idOf: (order: O) => string;
  ask: (order: O) => Promise<R>;
  later: () => R;
  apply: (order: O, outcome: R) => Promise<boolean>;
}): Promise<number> {
  if (o.orders.length === 0) return 0;
  const outcomes = await Promise.all(o.orders.map(async (order) => {
    try {
      return await o.ask(order);
    } catch (err) {
      log.error({ err, job: o.job, order: o.idOf(order) }, 'the rail failed; retrying later');
      return o.later();
    }
  }));
  const applied = await Promise.allSettled(o.orders.map((order, i) => o.apply(order, outcomes[i])));
  let handled = 0;
  for (const [i, r] of applied.entries()) {
    if (r.status === 'fulfilled') handled += 1;
    else log.error({ err: r.reason, job: o.job, order: o.idOf(o.orders[i]) }, 'could not apply the outcome');
  }
  return handled;
}
