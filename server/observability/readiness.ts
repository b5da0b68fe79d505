import type { ReadinessResponse as ReadinessReport } from '../routers/status/schemas';
import type { JobLoop } from '../jobs/runner';
import { createLedgerAudit, type AuditedServices, type LedgerAudit } from './ledger-audit';
import { log } from '../log';

/** What readiness needs of the process's services (Services satisfies it; importing it would be a cycle). */
export interface ReadinessServices extends AuditedServices { readiness?: Readiness }

/**
 * /readyz and the dashboard's Status page: the database answers, its migrations are current, the
 * writer takes a job, the background loops are alive, and the last ledger audit passed (the audit runs
 * in the background, ./ledger-audit.ts: a probe reads its last result and never starts one of its own,
 * so neither a flood of probes nor a large ledger slows the answer). A shutdown marks the instance not
 * ready before it stops accepting, so a balancer drains it. Details name no account, resource or credential.
 */
type ReadinessCheck = ReadinessReport['checks'][number];
type ReadinessCheckName = ReadinessCheck['name'];

export type { ReadinessReport };

export interface Readiness {
  check(): Promise<ReadinessReport>;
  markShuttingDown(): void;
  /** The ledger audit it reports (server/main.ts starts its schedule and stops it at shutdown). */
  audit: LedgerAudit;
}

/** The process's readiness (server/main.ts sets one that knows the jobs); a bare one otherwise. */
export function readinessOf(s: ReadinessServices): Readiness {
  return (s.readiness ??= createReadiness(s));
}

const WRITER_PROBE_MS = 2_000;
/** A loop counts as stuck when it has neither started nor finished a pass for its poll interval plus this. */
const JOB_STALL_MS = 60_000;
/** Before the first audit since start has ended there is no result to read: a probe waits this long for it. */
const FIRST_AUDIT_WAIT_MS = 5_000;
/** The audit counts as stuck when none has ended for its interval plus this (a large ledger's takes seconds). */
const AUDIT_OVERDUE_MS = 10 * 60_000;

function timeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_r, reject) => { timer = setTimeout(() => reject(new Error(what)), ms); timer.unref(); }),
  ]).finally(() => clearTimeout(timer));
}

export function createReadiness(s: ReadinessServices, o: { jobs?: () => JobLoop[]; audit?: LedgerAudit } = {}): Readiness {
  const audit = o.audit ?? createLedgerAudit(s);
  let shuttingDown = false;

  async function ledger(): Promise<ReadinessCheck> {
    const seen = audit.last();
    // a probe may start the audit when it is due (joining the one running, never a second) but does not
    // wait for it; the schedule server/main.ts starts runs it anyway, this covers a Readiness without one
    const due = !seen || audit.lastAttemptFailed() || Date.now() - seen.at >= audit.intervalMs;
    const next = due ? audit.run() : null;
    next?.catch(() => {});
    if (!seen && next) await timeout(next, FIRST_AUDIT_WAIT_MS, 'the first audit').catch(() => {});
    // an audit that could not run (the database went away under it) found nothing: it is not kept as a
    // failed audit; the next probe tries again, so an instance whose database is back turns ready at once
    if (audit.lastAttemptFailed()) return { name: 'ledger', ok: false, detail: 'the ledger audit could not run' };
    const last = audit.last();
    if (!last) return { name: 'ledger', ok: false, detail: 'the first ledger audit since start has not finished yet' };
    const age = Date.now() - last.at;
    if (age > audit.intervalMs + AUDIT_OVERDUE_MS) return { name: 'ledger', ok: false, detail: `no ledger audit has finished for ${Math.round(age / 1000)} s` };
    return { name: 'ledger', ok: last.ok, detail: last.ok ? null : 'the ledger audit found a break; run npm run audit' };
  }

  async function run(name: ReadinessCheckName, fn: () => Promise<string | null> | string | null): Promise<ReadinessCheck> {
    try {
      const detail = await fn();
      return { name, ok: detail === null, detail };
    } catch (err) {
      log.warn({ check: name, err }, 'readiness check failed');
      return { name, ok: false, detail: err instanceof Error ? err.message : 'failed' };
    }
  }

  let databaseProbes: Promise<ReadinessCheck[]> | null = null;
  // the three database probes run side by side, each bounded: a balancer's health check must get its
  // answer in about WRITER_PROBE_MS even while the database hangs (a dropped host, not a refused port)
  function probeDatabase(): Promise<ReadinessCheck[]> {
    return Promise.all([
      run('database', async () => {
        await timeout(s.db.read.reports.probeRead(), WRITER_PROBE_MS, `the database did not answer within ${WRITER_PROBE_MS} ms`);
        return null;
      }),
      run('migrations', () => timeout(s.db.read.reports.pendingMigrations(), WRITER_PROBE_MS, `the migrations could not be read within ${WRITER_PROBE_MS} ms`)),
      run('writer', async () => {
        await timeout(s.db.write(() => true), WRITER_PROBE_MS, `the writer did not run a job within ${WRITER_PROBE_MS} ms`);
        return null;
      }),
    ]);
  }

  return {
    audit,
    markShuttingDown() { shuttingDown = true; },
    async check() {
      const checks: ReadinessCheck[] = [];
      checks.push({ name: 'shutdown', ok: !shuttingDown, detail: shuttingDown ? 'shutting down' : null });
      // probes that arrive together share one round of database probes: 50 concurrent /readyz cost the
      // event loop's thread one round, not 50 (each reads and prepares, on SQLite on this very thread)
      databaseProbes ??= probeDatabase().finally(() => { databaseProbes = null; });
      checks.push(...await databaseProbes);
      checks.push(await run('jobs', () => {
        const now = Date.now();
        for (const loop of o.jobs?.() ?? []) {
          const h = loop.health();
          if (!h.running) return `background job ${loop.name} is not running`;
          if (now - h.lastActivityMs > h.pollMs + JOB_STALL_MS) return `background job ${loop.name} has made no pass for ${Math.round((now - h.lastActivityMs) / 1000)} s`;
        }
        return null;
      }));
      // the audit only when everything under it works (it needs the database)
      if (checks.every((c) => c.ok)) checks.push(await ledger());
      const failed = checks.find((c) => !c.ok)?.name ?? null;
      const audited = audit.last();
      return { ready: failed === null, failed, checks, audited_at: audited ? new Date(audited.at).toISOString() : null };
    },
  };
}
