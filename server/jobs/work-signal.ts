import { REFUND_SETTLEMENT_JOB } from '../domain/transactions/refunds';
import type { Services } from '../services';
import type { JobLoop } from './runner';

/** Which job loops a commit on each table may have given work (the tables of db/pg/sql/triggers.sql's notify_work). */
const LOOPS_OF_TABLE: Record<string, string[]> = {
  events: ['dispatch'],
  deliveries: ['delivery'],
  withdrawal_batches: ['settlement'],
  refunds: [REFUND_SETTLEMENT_JOB],
};

/**
 * A commit on another instance wakes this one's loops (PostgreSQL: LISTEN pix_work, db/pg/notify.ts)
 * instead of leaving the work to their next poll; a (re)connect of the listener wakes every loop, as a
 * notification may have been missed. Returns the stop (closes the LISTEN). Nothing on SQLite: one process
 * writes, and its own commits wake its loops directly.
 */
export function wakeOnWork(s: Services, loops: JobLoop[]): () => Promise<void> {
  if (!s.db.listenForWork) return async () => {};
  return s.db.listenForWork((table) => {
    const names = table === null ? null : LOOPS_OF_TABLE[table];
    if (table !== null && !names) return;
    for (const loop of loops) if (names === null || names.includes(loop.name)) loop.wake();
  });
}
