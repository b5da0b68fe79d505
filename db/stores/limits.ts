import type { RateLimits } from '../../contract/rate-limits';
import { onPostgres } from '../dialect';
import { MemoryRateLimits } from '../memory-rate-limits';
import type { OnHandle } from './handle-of';

// On PostgreSQL the limits are rows every instance shares (docs/decisions.md "Engines"); loaded only
// there, like its driver
const pgLimits = onPostgres ? await import('../pg/rate-limits') : null;

/**
 * The request and credential limits of this process, at `rps` requests per second per account and on
 * the clock `now` (ms): in memory on SQLite, whose one process serves everything; on PostgreSQL rows
 * shared by every instance, read and written over `db` (the read side's pool).
 */
export function openLimits(db: OnHandle, rps: number, now: () => number): RateLimits {
  return pgLimits ? new pgLimits.PgRateLimits(db, rps, now) : new MemoryRateLimits(rps, now);
}
