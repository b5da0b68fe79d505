import { auditReadsInThread, auditReadsRunner } from '../../db/ledger-audit-runner';
import { auditBooksWith, type AuditReport } from '../domain/audit';
import { log } from '../log';
import type { AppDatabase } from '../../db';
import type { Config } from '../config';

/**
 * What the audit needs of the process's services (Services satisfies it): named here rather than
 * imported, since server/services.ts holds a Readiness, which holds a LedgerAudit.
 */
export interface AuditedServices { db: AppDatabase; config: Pick<Config, 'ledgerAuditIntervalMs'> }

/**
 * The ledger audit as /readyz sees it: one audit at a time whoever asks (callers while it
 * runs share it), run in the background every `intervalMs`, and never on the event loop's thread for
 * long. On SQLite its scans run in a worker thread with a read-only connection of its own (one full
 * audit of a million lines holds a thread for seconds); on PostgreSQL they are queries on the read pool,
 * network I/O the loop only waits for. /readyz reads the last result; it never waits for an audit
 * except the first one after start (there is nothing else to say yet).
 */
export interface AuditResult {
  /** When the audit started: what it saw is the ledger as of about then. */
  at: number;
  ok: boolean;
  firstBreak: string | null;
  durationMs: number;
}

export interface LedgerAudit {
  readonly intervalMs: number;
  /** The last audit that ran to its end (null before the first). */
  last(): AuditResult | null;
  /** Whether the latest attempt could not run (the database went away under it): not a result. */
  lastAttemptFailed(): boolean;
  /** Starts an audit unless one runs; callers meanwhile get the same one. Rejects if it could not run. */
  run(): Promise<AuditResult>;
  /** Audits now and then every `intervalMs` after each audit ends, until stop(). */
  start(): void;
  /** Stops the schedule and ends a running audit (before the database closes). */
  stop(): Promise<void>;
}

/** One audit, ending with its report; `signal` asks it to stop early (shutdown). */
export type AuditRunner = (signal: AbortSignal) => Promise<AuditReport>;

/**
 * SQLite: the audit's queries on a reader thread over the file at `path`, a thread per audit (nothing
 * kept open between audits, which are a minute apart); stopping ends the thread.
 */
export function auditInThread(path: string): AuditRunner {
  const run = auditReadsInThread(path);
  return (signal) => run(auditBooksWith, signal);
}

/** The engine's way: a worker thread on SQLite's file, the read pool on PostgreSQL. */
export function defaultAuditRunner(s: AuditedServices): AuditRunner {
  const run = auditReadsRunner(s.db);
  return (signal) => run(auditBooksWith, signal);
}

export function createLedgerAudit(s: AuditedServices, o: { intervalMs?: number; runner?: AuditRunner } = {}): LedgerAudit {
  const intervalMs = o.intervalMs ?? s.config.ledgerAuditIntervalMs;
  const runner = o.runner ?? defaultAuditRunner(s);
  let last: AuditResult | null = null;
  let failed = false;
  let running: Promise<AuditResult> | null = null;
  let abort = new AbortController();
  let scheduled = false;
  let timer: NodeJS.Timeout | null = null;

  function scheduleNext() {
    if (!scheduled) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { void audit.run().catch(() => {}); }, intervalMs);
    timer.unref();
  }

  async function once(): Promise<AuditResult> {
    const at = Date.now();
    try {
      const report = await runner(abort.signal);
      const result = { at, ok: report.ok, firstBreak: report.firstBreak, durationMs: Date.now() - at };
      if (!report.ok) log.error({ check: 'ledger', first_break: report.firstBreak, duration_ms: result.durationMs }, 'ledger audit found a break');
      else log.info({ check: 'ledger', duration_ms: result.durationMs }, 'ledger audit passed');
      last = result;
      failed = false;
      return result;
    } catch (err) {
      failed = true;
      if (!abort.signal.aborted) log.error({ check: 'ledger', err }, 'ledger audit could not run');
      throw err;
    }
  }

  const audit: LedgerAudit = {
    intervalMs,
    last: () => last,
    lastAttemptFailed: () => failed,
    run() {
      running ??= once().finally(() => { running = null; scheduleNext(); });
      return running;
    },
    start() {
      scheduled = true;
      void audit.run().catch(() => {});
    },
    async stop() {
      scheduled = false;
      if (timer) clearTimeout(timer);
      abort.abort();
      await running?.catch(() => {});
      abort = new AbortController();
    },
  };
  return audit;
}
