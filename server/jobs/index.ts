import { purgeExpiredIdempotencyKeys } from '../domain/idempotency';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';

/** Starts every background loop of the process; each is registered under `services.wake`. */
export function startJobs(s: Services, opts: { dispatcher?: boolean } = {}): JobLoop[] {
  const loops: JobLoop[] = [];
  const add = (loop: JobLoop) => { loops.push(loop); s.wake[loop.name] = loop.wake; };
  let lastPurge = 0;
  add(startJobLoop('idempotency-cleanup', async () => {
    const now = s.clock.now();
    if (now.getTime() - lastPurge < 60_000) return 0;
    lastPurge = now.getTime();
    await purgeExpiredIdempotencyKeys(s.db, now);
    return 0;
  }, 60_000));
  void opts;
  return loops;
}

export async function stopJobs(loops: JobLoop[]) {
  await Promise.all(loops.map((l) => l.stop()));
}
