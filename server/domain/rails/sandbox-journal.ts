import { appendFileSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** What the sandbox rail decided for one batch or refund, as the journal keeps it (one JSON file per id). */
export interface JournalRecord<T> {
  kind: 'batch' | 'refund';
  id: string;
  amount: number;
  outcome: T;
  /** The process that made the call that decided it. */
  pid: number;
  at: string;
}

/** One line of calls.log per rail call: `first` decided the outcome, `again` was answered from the journal. */
export const JOURNAL_CALLS = 'calls.log';

/**
 * The sandbox rail's memory of what it paid, in a directory every instance on the machine shares
 * (SANDBOX_RAIL_JOURNAL): a real PSP takes the batch's (or refund's) id as an idempotency key and answers
 * a second call with the first one's outcome instead of paying again; this gives the sandbox that behaviour
 * across processes, and leaves a record a fault campaign can hold the database against. The first call's
 * decision is published with link(2), which fails if the file exists, so two instances calling at once
 * agree on one outcome. A PENDING answer decides nothing and is not kept.
 */
export function sandboxJournal(dir: string) {
  mkdirSync(dir, { recursive: true });
  return {
    once<T extends { status: string }>(kind: 'batch' | 'refund', id: string, amount: number, decide: () => T): T {
      if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`sandbox journal: unexpected id ${id}`);
      const file = join(dir, `${kind}-${id}.json`);
      const calls = join(dir, JOURNAL_CALLS);
      const answered = () => {
        const kept = (JSON.parse(readFileSync(file, 'utf8')) as JournalRecord<T>).outcome;
        appendFileSync(calls, `${kind} ${id} again ${process.pid}\n`);
        return kept;
      };
      try {
        return answered();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      const outcome = decide();
      if (outcome.status === 'PENDING') return outcome;
      const record: JournalRecord<T> = { kind, id, amount, outcome, pid: process.pid, at: new Date().toISOString() };
      const tmp = join(dir, `.${kind}-${id}.${randomBytes(6).toString('hex')}`);
      writeFileSync(tmp, JSON.stringify(record));
      try {
        linkSync(tmp, file);
        appendFileSync(calls, `${kind} ${id} first ${process.pid}\n`);
        return outcome;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return answered();
      } finally {
        rmSync(tmp, { force: true });
      }
    },
  };
}
