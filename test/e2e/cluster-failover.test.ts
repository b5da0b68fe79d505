// @engines postgres: kill -9 one of 3 instances on one PostgreSQL database; the others take its claimed work over
import { and, eq, inArray, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, ledgerEntries, withdrawalBatches, withdrawals } from '../../db/schema';
import { auditBooks } from '../../server/domain/audit';
import { auditLedger, merchantBalance } from '../../server/domain/ledger';
import { startCluster, type RunningCluster } from '../support/cluster';
import { phoneWithdrawal } from '../support/withdrawals';
import { api, SERVER_TEST_TIMEOUT_MS } from '../support/server';
import { waitFor } from '../support/services';
import type { LedgerEntryKind } from '../../contract/ledger';

/**
 * An instance that dies loses only its leases (docs/decisions.md "Engines"): kill -9 one of 3 instances
 * (npm run cluster --keep-going, on this file's PostgreSQL) in the middle of a burst of withdrawals and
 * their settlements. Every acknowledged withdrawal is there, the surviving instances settle the dead one's
 * claimed batches once its lease runs out, nothing is paid or credited twice, and the ledger audit is
 * clean.
 *
 * The sandbox rail takes SANDBOX_RAIL_LATENCY_MS per call, as a PSP would, so an instance holds claimed
 * batches for that long: the kill waits (by condition) until the victim holds some, so it lands with
 * work of its own in flight, which only the lease can give back.
 */
const LEASE_MS = 3_000;
const BATCH = 1_000;
const AMOUNT = 5 * BATCH; // five batches per withdrawal
const FUNDS = 100_000_000;
const AFTER_KILL = 40; // withdrawals sent once the victim is dead
const CAP = 1_000; // never more than this, whatever happens
const WORKERS = 6;

let cluster: RunningCluster;

beforeAll(async () => {
  cluster = await startCluster({
    instances: 3,
    args: ['--keep-going'],
    env: {
      RATE_LIMIT_RPS: '0', JOB_POLL_MS: '25', JOB_LEASE_MS: String(LEASE_MS), PIX_MAX_BATCH_CENTS: String(BATCH),
      SANDBOX_SETTLEMENT_DELAY_MS: '50', SANDBOX_RAIL_LATENCY_MS: '400',
    },
  });
}, SERVER_TEST_TIMEOUT_MS);

afterAll(async () => { await cluster?.cleanup(); }, SERVER_TEST_TIMEOUT_MS);

const body = (i: number) => phoneWithdrawal({ amount: AMOUNT, external_ref: `failover-${i}` });

interface Answer { status: number; batches: string[]; afterKill: boolean }

describe('kill -9 one of 3 instances during a burst of withdrawals and settlements', () => {
  it('keeps every acknowledged withdrawal, settles every batch once (the survivors take the dead one\'s claims over), and the books balance', async () => {
    const { db } = cluster;
    const acc = await cluster.fundedAccount(FUNDS, 'Failover Merchant');
    // the drill kills the second instance (every instance dispatches and delivers: scripts/cluster.ts)
    const victim = cluster.pids[1];
    const claimedByVictim = like(withdrawalBatches.claimedBy, `%/${victim}/%`);
    const heldByVictim = async () => (await db.read.handle.select({ id: withdrawalBatches.id, dueAt: withdrawalBatches.dueAt }).from(withdrawalBatches)
      .where(and(eq(withdrawalBatches.status, 'PENDING'), claimedByVictim))).filter((b) => b.dueAt > new Date().toISOString());

    const answers: Answer[] = [];
    let killed = false;
    let sent = 0;
    let sentAfterKill = 0;
    const worker = async () => {
      while (sent < CAP && !(killed && sentAfterKill >= AFTER_KILL)) {
        const i = sent++;
        const afterKill = killed;
        if (afterKill) sentAfterKill += 1;
        try {
          const r = await api(cluster.balancer, '/withdraw/pix', { token: acc.accessToken, body: body(i) });
          answers.push({ status: r.status, batches: r.status === 201 ? r.json.data.map((d: { identifier: string }) => d.identifier) : [], afterKill });
        } catch {
          answers.push({ status: 0, batches: [], afterKill }); // the connection died with the instance
        }
      }
    };
    let orphaned: string[] = [];
    const killer = async () => {
      // mid-burst: some withdrawals acknowledged, and the victim holding claimed batches at the rail
      await waitFor(async () => answers.filter((a) => a.status === 201).length >= 30 && (await heldByVictim()).length > 0,
        { timeoutMs: 60_000, what: 'the victim to hold claimed batches mid-burst' });
      process.kill(victim, 'SIGKILL');
      killed = true;
      // what it died holding: claimed, not settled, so only its lease running out gives it back
      orphaned = (await db.read.handle.select({ id: withdrawalBatches.id }).from(withdrawalBatches)
        .where(and(eq(withdrawalBatches.status, 'PENDING'), claimedByVictim))).map((b) => b.id);
    };
    await Promise.all([killer(), ...Array.from({ length: WORKERS }, worker)]);

    expect(killed).toBe(true);
    expect(sent).toBeLessThan(CAP);
    expect(orphaned.length).toBeGreaterThan(0);
    // the survivors kept answering after the kill; what failed, failed at the balancer while the dead
    // instance was still in its rotation (a 502/503, or the connection dropped), never a 4xx or a 500
    expect(answers.filter((a) => a.afterKill && a.status === 201).length).toBeGreaterThan(AFTER_KILL / 2);
    for (const a of answers.filter((x) => x.status !== 201)) expect([0, 502, 503]).toContain(a.status);

    const allBatches = () => db.read.handle.select({ id: withdrawalBatches.id, status: withdrawalBatches.status, claimedBy: withdrawalBatches.claimedBy })
      .from(withdrawalBatches).where(eq(withdrawalBatches.accountId, acc.account_id));
    // the surviving instances finish everything, the dead one's claims included (after its lease)
    const settled = await waitFor(async () => {
      const rows = await allBatches();
      return rows.every((b) => b.status !== 'PENDING') ? rows : null;
    }, { timeoutMs: 90_000, what: 'every batch to be settled by the surviving instances' });

    // every acknowledged withdrawal is there, whole
    const acknowledged = answers.flatMap((a) => a.batches);
    const ids = new Set(settled.map((b) => b.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    const stored = await db.read.handle.select({ id: withdrawals.id, status: withdrawals.status }).from(withdrawals).where(eq(withdrawals.accountId, acc.account_id));
    expect(stored.length).toBeGreaterThanOrEqual(answers.filter((a) => a.status === 201).length);
    expect(stored.length).toBeLessThanOrEqual(answers.length);
    expect(settled).toHaveLength(stored.length * 5);
    expect(stored.every((w) => w.status === 'PAID')).toBe(true);

    // the dead instance's claims were settled by a survivor
    const byId = new Map(settled.map((b) => [b.id, b]));
    for (const id of orphaned) {
      expect(byId.get(id)!.status).toBe('PAID');
      expect(byId.get(id)!.claimedBy).not.toMatch(new RegExp(`/${victim}/`));
    }

    // nothing debited, paid or credited twice: one entry of each kind per withdrawal and per batch
    const perResource = async (kinds: LedgerEntryKind[]) => (await db.read.handle.select({ resourceId: ledgerEntries.resourceId, n: sql<number>`count(*)` })
      .from(ledgerEntries).where(and(eq(ledgerEntries.accountId, acc.account_id), inArray(ledgerEntries.kind, kinds)))
      .groupBy(ledgerEntries.resourceId)).map((r) => [r.resourceId, Number(r.n)]);
    const settlements = await perResource(['withdrawal_paid', 'withdrawal_failed']);
    expect(settlements).toHaveLength(settled.length);
    expect(settlements.filter(([, n]) => n !== 1)).toEqual([]);
    const requested = await perResource(['withdrawal_requested']);
    expect(requested).toHaveLength(stored.length);
    expect(requested.filter(([, n]) => n !== 1)).toEqual([]);
    const paidEvents = await db.read.handle.select({ resourceId: events.resourceId, n: sql<number>`count(*)` }).from(events)
      .where(and(eq(events.type, 'withdraw.paid'), inArray(events.resourceId, stored.map((w) => w.id)))).groupBy(events.resourceId);
    expect(paidEvents).toHaveLength(stored.length);
    expect(paidEvents.filter((e) => Number(e.n) !== 1)).toEqual([]);

    expect(await merchantBalance(db.read, acc.account_id)).toEqual({ available: FUNDS - stored.length * AMOUNT, blocked: 0, inFlight: 0 });
    expect(await auditLedger(db.read)).toEqual({ total: 0, mismatched: [] });
    expect(await auditBooks(db.read)).toMatchObject({ ok: true, firstBreak: null });

    // the cluster carried on without the dead instance; the survivors are ready
    expect(cluster.process.exitCode).toBeNull();
    for (const [i, url] of cluster.instances.entries()) if (i !== 1) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(cluster.output()).toMatch(/instance 2 exited \(SIGKILL\): the others carry on/);
  }, 240_000);

  it('SIGTERM still stops what is left of the cluster cleanly', async () => {
    expect(await cluster.stop()).toBe(0);
    expect(cluster.output()).toMatch(/cluster stopped/);
  }, SERVER_TEST_TIMEOUT_MS);
});
