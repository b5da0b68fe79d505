import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../server/domain/audit';
import { auditInThread, createLedgerAudit, type AuditRunner } from '../../server/observability/ledger-audit';
import { createReadiness } from '../../server/observability/readiness';
import { makeAccount, makeTestServices, waitFor, type TestServices } from '../support/services';

/**
 * The ledger audit behind /readyz: one at a time whoever asks, on a schedule, and a probe
 * reads its last result instead of waiting for it. The runner is injected: each audit it starts waits
 * until the test lets it finish, so "still running" is a state the test holds, not a race.
 */
let s: TestServices;
beforeEach(async () => { s = await makeTestServices(); });
afterEach(async () => { await s.cleanup(); });

const clean: AuditReport = { ok: true, checks: [], firstBreak: null };
const broken: AuditReport = { ok: false, checks: [], firstBreak: 'book_balances: book lbk_x (available): balance 1 but its lines sum to 0' };

/** A runner whose audits end only when `finish` is called; `started` counts them. */
function heldRunner() {
  const pending: ((r: AuditReport) => void)[] = [];
  const state = {
    started: 0,
    runner: (() => { state.started += 1; return new Promise<AuditReport>((resolve) => pending.push(resolve)); }) as AuditRunner,
    finish(report: AuditReport = clean) { for (const f of pending.splice(0)) f(report); },
    get running() { return pending.length; },
  };
  return state;
}

describe('the ledger audit', () => {
  it('runs one audit for any number of concurrent callers', async () => {
    const held = heldRunner();
    const audit = createLedgerAudit(s, { intervalMs: 60_000, runner: held.runner });
    const all = Promise.all(Array.from({ length: 50 }, () => audit.run()));
    expect(held.started).toBe(1);
    held.finish();
    const results = await all;
    expect(new Set(results).size).toBe(1);
    expect(audit.last()).toMatchObject({ ok: true });
  });

  it('readiness reads the last result while the next audit runs, and starts no second one', async () => {
    const held = heldRunner();
    const audit = createLedgerAudit(s, { intervalMs: 100, runner: held.runner });
    const readiness = createReadiness(s, { audit });
    // the very first probe waits for the first audit (there is nothing else to report)
    const first = readiness.check();
    await waitFor(() => held.running === 1, { what: 'the first audit to start' });
    held.finish();
    expect(await first).toMatchObject({ ready: true, failed: null });
    const auditedAt = audit.last()!.at;
    // once the result is older than the interval, probes start the next audit and answer at once
    await waitFor(() => Date.now() - auditedAt > 100, { what: 'the result to age past the interval' });
    const probes = await Promise.all(Array.from({ length: 50 }, () => readiness.check()));
    expect(held.started).toBe(2);
    expect(held.running).toBe(1);
    for (const p of probes) expect(p).toMatchObject({ ready: true, audited_at: new Date(auditedAt).toISOString() });
    // that audit finds a break: the next probe says so
    held.finish(broken);
    await waitFor(() => audit.last()!.at > auditedAt, { what: 'the second audit to finish' });
    const after = await readiness.check();
    expect(after).toMatchObject({ ready: false, failed: 'ledger' });
    expect(JSON.stringify(after)).not.toContain('lbk_x');
  });

  it('runs on its schedule until stopped', async () => {
    let runs = 0;
    const audit = createLedgerAudit(s, { intervalMs: 100, runner: async () => { runs += 1; return clean; } });
    audit.start();
    await waitFor(() => runs >= 3, { what: 'three scheduled audits' });
    await audit.stop();
    const stoppedAt = runs;
    // a pass of the schedule would be due every 100 ms: one more audit, run by hand, is all there is
    await audit.run();
    expect(runs).toBe(stoppedAt + 1);
  });

  it('reports an audit that could not run, and tries again at the next probe', async () => {
    let fail = true;
    const audit = createLedgerAudit(s, { intervalMs: 60_000, runner: async () => { if (fail) throw new Error('database gone'); return clean; } });
    const readiness = createReadiness(s, { audit });
    expect((await readiness.check()).checks.at(-1)).toEqual({ name: 'ledger', ok: false, detail: 'the ledger audit could not run' });
    fail = false;
    await waitFor(async () => (await readiness.check()).ready, { what: 'readiness once the audit runs again' });
  });

  it('on SQLite runs the real audit on a reader thread, which finds a tampered balance', async () => {
    const acc = await makeAccount(s, { balance: 10_000 });
    const run = auditInThread(s.db.path);
    expect(await run(new AbortController().signal)).toMatchObject({ ok: true, firstBreak: null });
    const raw = new Database(s.config.databasePath);
    try {
      // the database refuses this itself (a trigger): take that guard away to see the audit catch it
      raw.exec('DROP TRIGGER IF EXISTS ledger_books_balance_from_lines');
      raw.prepare(`UPDATE ledger_books SET balance = balance + 1 WHERE account_id = ? AND kind = 'available'`).run(acc.account_id);
    } finally {
      raw.close();
    }
    expect((await run(new AbortController().signal)).firstBreak).toMatch(/^book_balances: book \S+ \(available\): balance 10001 but its lines sum to 10000$/);
  });
});
