import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onPostgres } from '../../db/dialect';
import { tryLockName } from '../../db/query';
import type { PgDb } from '../../db/pg/writer';
import { events, idempotencyKeys, ledgerEntries, refunds, transactions, withdrawalBatches } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { purgeExpiredIdempotencyKeys } from '../../server/domain/idempotency';
import { auditLedger } from '../../server/domain/ledger';
import type { PixRail } from '../../server/domain/rails';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import { expireDuePixCharges } from '../../server/domain/transactions/expiry';
import { applyRefundOutcome, claimDueRefundOrders, runRefundPass } from '../../server/domain/transactions/refunds';
import { applyPaymentOutcome, claimDuePaymentOrders, runSettlementPass } from '../../server/domain/withdrawals/settle';
import type { Services } from '../../server/services';
import { callerFor, makeAccount, makeTestServices, secondInstance, type TestServices } from '../support/services';
import { txBody } from '../support/transactions';
import type { LedgerEntryKind } from '../../contract/ledger';

/**
 * Shared state across instances (docs/decisions.md "Engines"): background work is claimed row by row, so
 * several instances share it without doing anything twice, and the work of one that dies is taken over when
 * its lease runs out. Two instances here: on PostgreSQL (vitest.pg.config.ts) two Services over the same
 * database, each with its own pool and writer; on SQLite, whose one writer serializes every job, the second
 * instance shares the first's database under another name (as two claims of one process would). One clock
 * for both, moved by hand.
 */
const DELAY = 1_000;
const LEASE = 30_000;
/** JOB_AFFINITY_MS: a batch or refund is due for an instance other than its creator (or last claimer) this much later. */
const AFFINITY = 2_000;
let clock: ManualClock;
let a: TestServices;
let b: Services;
let closeB: () => Promise<void>;

beforeEach(async () => {
  clock = new ManualClock(new Date('2026-04-01T12:00:00.000Z'));
  // batches of 10 reais: one withdrawal makes many batches
  const config = { sandboxSettlementDelayMs: DELAY, pixMaxBatchCents: 1_000, jobLeaseMs: LEASE, jobAffinityMs: AFFINITY };
  a = await makeTestServices({ clock, config });
  // a second instance over the same database (makeTestServices would make a new one)
  ({ b, close: closeB } = secondInstance(a, clock));
});
afterEach(async () => {
  await closeB();
  await a.cleanup();
});

/** The sandbox rail, recording every batch and refund it is asked about; `hold()` keeps its answers back until released. */
function recordingRail() {
  const inner = sandboxRail(DELAY);
  const asked: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const rail: PixRail = {
    ...inner,
    async pay(order, now) { asked.push(order.batchId); await gate; return inner.pay(order, now); },
    async refund(order, now) { asked.push(order.refundId); await gate; return inner.refund(order, now); },
  };
  return {
    rail, asked,
    hold() { gate = new Promise((r) => { open = r; }); },
    release() { open(); },
  };
}

/** Resolves once `probe` holds, checking between turns of the event loop (no sleeps). */
async function until(probe: () => boolean, what: string) {
  for (let i = 0; i < 10_000; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const withdrawal = (amount: number) => ({
  amount, key: 'fulano@example.com', key_type: 'EMAIL' as const, details: { name: 'Fulano de Tal', document: '529.982.247-25' },
});

async function batchesOf(withdrawalId: string) {
  return a.db.read.handle.select({ id: withdrawalBatches.id, status: withdrawalBatches.status, claimedBy: withdrawalBatches.claimedBy, dueAt: withdrawalBatches.dueAt })
    .from(withdrawalBatches).where(eq(withdrawalBatches.withdrawalId, withdrawalId)).orderBy(asc(withdrawalBatches.seq));
}

/** Ledger entries of these kinds per resource: [resource, count] pairs. */
async function entriesPer(kinds: LedgerEntryKind[], resourceIds: string[]) {
  const rows = await a.db.read.handle.select({ resourceId: ledgerEntries.resourceId, n: sql<number>`count(*)` }).from(ledgerEntries)
    .where(and(inArray(ledgerEntries.kind, kinds), inArray(ledgerEntries.resourceId, resourceIds))).groupBy(ledgerEntries.resourceId);
  return rows.map((r) => [r.resourceId, Number(r.n)]).sort();
}

const once = (ids: string[]) => ids.map((id) => [id, 1]).sort();
const tally = (ids: string[]) => {
  const by = new Map<string, number>();
  for (const id of ids) by.set(id, (by.get(id) ?? 0) + 1);
  return [...by].sort();
};

/** One kind of row the rail settles (withdrawal batches, refunds), as the affinity test drives it. */
interface SettledKind {
  /** `n` new rows requested through instance A, due after DELAY: their ids. */
  create(n: number): Promise<string[]>;
  claim(s: Services, now: Date): Promise<unknown[]>;
  pass(s: Services, rail: PixRail): Promise<number>;
  /** [status, claimed_by] of each row, in the order of `ids`. */
  rows(ids: string[]): Promise<[string, string | null][]>;
  /** The ledger entries that settle one row. */
  settled: LedgerEntryKind[];
}

/**
 * The settlement affinity (JOB_AFFINITY_MS), the same for every kind of row: rows requested through A are
 * A's; B takes them only once they have been due JOB_AFFINITY_MS, asking the rail once about each, while
 * A's own pass takes its rows as soon as they are due.
 */
async function expectAffinity(kind: SettledKind) {
  const ids = await kind.create(3);
  expect(await kind.rows(ids)).toEqual(ids.map(() => ['PENDING', a.instance]));
  clock.advance(DELAY);
  const railA = recordingRail();
  const railB = recordingRail();
  // due, but A's: B's pass reads one row and writes nothing
  expect(await kind.claim(b, clock.now())).toEqual([]);
  clock.advance(AFFINITY - 1);
  expect(await kind.pass(b, railB.rail)).toBe(0);
  expect(railB.asked).toEqual([]);
  // A is busy, stopped or gone: B takes them
  clock.advance(1);
  expect(await kind.pass(b, railB.rail)).toBe(3);
  expect(tally(railB.asked)).toEqual(once(ids));
  expect(await kind.rows(ids)).toEqual(ids.map(() => ['PAID', b.instance]));

  // and A's own pass takes its rows as soon as they are due
  const more = await kind.create(2);
  clock.advance(DELAY);
  expect(await kind.pass(b, railB.rail)).toBe(0);
  expect(await kind.pass(a, railA.rail)).toBe(2);
  expect(tally(railA.asked)).toEqual(once(more));
  expect(await entriesPer(kind.settled, [...ids, ...more])).toEqual(once([...ids, ...more]));
  expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
}

/** [status, claimed_by] of these rows of `table`, in the order of `ids`. */
async function claimRows(table: typeof withdrawalBatches | typeof refunds, ids: string[]): Promise<[string, string | null][]> {
  const rows = await a.db.read.handle.select({ id: table.id, status: table.status, claimedBy: table.claimedBy }).from(table).where(inArray(table.id, ids));
  const by = new Map(rows.map((r) => [r.id, [r.status, r.claimedBy] as [string, string | null]]));
  return ids.map((id) => by.get(id)!);
}

describe('withdrawal settlement across instances', () => {
  it('a batch is settled by the instance that created it: another takes it only once it has been due JOB_AFFINITY_MS', async () => {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    await expectAffinity({
      // batches of 10 reais: one withdrawal of n × 10 reais makes n batches
      create: async (n) => (await callerFor(a, acc.account_id).withdrawals.create(withdrawal(n * 1_000))).data.map((d) => d.identifier),
      claim: claimDuePaymentOrders,
      pass: runSettlementPass,
      rows: (ids) => claimRows(withdrawalBatches, ids),
      settled: ['withdrawal_paid', 'withdrawal_failed'],
    });
  });

  it('an instance whose rail call is in flight keeps its batches: the other claims the next ones and never asks about the same batch', async () => {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    const created = await callerFor(a, acc.account_id).withdrawals.create(withdrawal(60_000));
    const ids = created.data.map((d) => d.identifier);
    expect(ids).toHaveLength(60);
    // past the creator's affinity: due for both instances
    clock.advance(DELAY + AFFINITY);
    const railA = recordingRail();
    const railB = recordingRail();
    railA.hold();
    // instance A claims 25 batches and waits on the rail for them
    const passA = runSettlementPass(a, railA.rail);
    await until(() => railA.asked.length === 25, "instance A's rail calls");
    // meanwhile B's passes take the other 35, then find nothing left that is not claimed
    expect(await runSettlementPass(b, railB.rail)).toBe(25);
    expect(await runSettlementPass(b, railB.rail)).toBe(10);
    expect(await runSettlementPass(b, railB.rail)).toBe(0);
    expect(railB.asked.filter((id) => railA.asked.includes(id))).toEqual([]);
    railA.release();
    expect(await passA).toBe(25);

    expect(tally([...railA.asked, ...railB.asked])).toEqual(once(ids));
    const batches = await batchesOf((await callerFor(a, acc.account_id).withdrawals.get({ identifier: ids[0] })).id);
    expect(batches.every((x) => x.status === 'PAID')).toBe(true);
    // who settled each batch is on its row
    expect(batches.filter((x) => x.claimedBy === a.instance).map((x) => x.id).sort()).toEqual([...railA.asked].sort());
    expect(batches.filter((x) => x.claimedBy === b.instance).map((x) => x.id).sort()).toEqual([...railB.asked].sort());
    expect(await entriesPer(['withdrawal_paid', 'withdrawal_failed'], ids)).toEqual(once(ids));
    expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it('passes of both instances racing each other ask the rail once per batch and pay each once', async () => {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    const api = callerFor(a, acc.account_id);
    const ids = (await Promise.all([api.withdrawals.create(withdrawal(40_000)), api.withdrawals.create(withdrawal(35_000))]))
      .flatMap((w) => w.data.map((d) => d.identifier));
    clock.advance(DELAY + AFFINITY);
    const railA = recordingRail();
    const railB = recordingRail();
    for (let round = 0; round < 20; round++) {
      const [x, y] = await Promise.all([runSettlementPass(a, railA.rail), runSettlementPass(b, railB.rail)]);
      if (x + y === 0) break;
    }
    expect(tally([...railA.asked, ...railB.asked])).toEqual(once(ids));
    expect(await entriesPer(['withdrawal_paid', 'withdrawal_failed'], ids)).toEqual(once(ids));
    const paid = await a.db.read.handle.select({ n: sql<number>`count(*)` }).from(withdrawalBatches)
      .where(and(inArray(withdrawalBatches.id, ids), eq(withdrawalBatches.status, 'PAID')));
    expect(Number(paid[0].n)).toBe(75);
    expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it("takes over a dead instance's batches when its lease runs out, and the dead one's late outcome changes nothing", async () => {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    const created = await callerFor(a, acc.account_id).withdrawals.create(withdrawal(2_500));
    const ids = created.data.map((d) => d.identifier);
    const withdrawalId = (await callerFor(a, acc.account_id).withdrawals.get({ identifier: ids[0] })).id;
    clock.advance(DELAY);
    // A claims the three batches and dies before asking the rail
    const claimed = await claimDuePaymentOrders(a, clock.now());
    expect(claimed.map((o) => o.batchId)).toEqual(ids);
    const leaseEnd = new Date(clock.now().getTime() + LEASE).toISOString();
    expect((await batchesOf(withdrawalId)).map((x) => [x.status, x.claimedBy, x.dueAt])).toEqual(ids.map(() => ['PENDING', a.instance, leaseEnd]));

    const railB = recordingRail();
    expect(await runSettlementPass(b, railB.rail)).toBe(0);
    // the lease, then the claimer's affinity (it may still be about to answer)
    clock.advance(LEASE + AFFINITY - 1);
    expect(await runSettlementPass(b, railB.rail)).toBe(0);
    expect(railB.asked).toEqual([]);
    clock.advance(1);
    expect(await runSettlementPass(b, railB.rail)).toBe(3);
    expect(tally(railB.asked)).toEqual(once(ids));
    expect((await batchesOf(withdrawalId)).map((x) => [x.status, x.claimedBy])).toEqual(ids.map(() => ['PAID', b.instance]));

    // A was not dead after all: its rail call answers now, after B settled the batch
    const late = await sandboxRail(DELAY).pay(claimed[0], clock.now());
    expect(await applyPaymentOutcome(a, claimed[0], late)).toBe(false);
    expect(await entriesPer(['withdrawal_paid', 'withdrawal_failed'], ids)).toEqual(once(ids));
    const types = (await a.db.read.handle.select({ type: events.type }).from(events).where(eq(events.resourceId, withdrawalId)).orderBy(asc(events.seq))).map((e) => e.type);
    expect(types).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
    expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
  });
});

describe('refund settlement across instances', () => {
  /** `n` approved CARD charges of this account, each refunded in part: `n` PENDING refunds. */
  async function pendingRefunds(n: number) {
    const acc = await makeAccount(a, { balance: 1_000_000 });
    const api = callerFor(a, acc.account_id);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = await api.transactions.create(txBody('CARD'));
      await api.transactions.refund({ id: t.id, amount: 100 });
      const [r] = await a.db.read.handle.select({ id: refunds.id }).from(refunds).where(eq(refunds.transactionId, t.id));
      ids.push(r.id);
    }
    return ids;
  }

  it('a refund is settled by the instance that requested it: another takes it only once it has been due JOB_AFFINITY_MS', async () => {
    await expectAffinity({
      create: pendingRefunds,
      claim: claimDueRefundOrders,
      pass: runRefundPass,
      rows: (ids) => claimRows(refunds, ids),
      settled: ['refund_paid', 'refund_failed'],
    });
  });

  it('an instance whose rail call is in flight keeps its refunds; the other takes the rest; each is asked about and paid once', async () => {
    const ids = await pendingRefunds(30);
    // past the requester's affinity: due for both instances
    clock.advance(DELAY + AFFINITY);
    const railA = recordingRail();
    const railB = recordingRail();
    railA.hold();
    const passA = runRefundPass(a, railA.rail);
    await until(() => railA.asked.length === 25, "instance A's rail calls");
    expect(await runRefundPass(b, railB.rail)).toBe(5);
    expect(await runRefundPass(b, railB.rail)).toBe(0);
    railA.release();
    expect(await passA).toBe(25);
    expect(tally([...railA.asked, ...railB.asked])).toEqual(once(ids));
    expect(await entriesPer(['refund_paid', 'refund_failed'], ids)).toEqual(once(ids));
    expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
  });

  it("takes over a dead instance's refunds when its lease runs out", async () => {
    const ids = await pendingRefunds(2);
    clock.advance(DELAY);
    const claimed = await claimDueRefundOrders(a, clock.now());
    expect(claimed.map((o) => o.refundId).sort()).toEqual([...ids].sort());
    const railB = recordingRail();
    // the lease, then the claimer's affinity (it may still be about to answer)
    clock.advance(LEASE + AFFINITY - 1);
    expect(await runRefundPass(b, railB.rail)).toBe(0);
    clock.advance(1);
    expect(await runRefundPass(b, railB.rail)).toBe(2);
    expect(tally(railB.asked)).toEqual(once(ids));
    const rows = await a.db.read.handle.select({ status: refunds.status, claimedBy: refunds.claimedBy }).from(refunds).where(inArray(refunds.id, ids));
    expect(rows).toEqual([{ status: 'PAID', claimedBy: b.instance }, { status: 'PAID', claimedBy: b.instance }]);
    expect(await applyRefundOutcome(a, claimed[0], { status: 'PAID', endToEndId: null })).toBe(false);
    expect(await entriesPer(['refund_paid', 'refund_failed'], ids)).toEqual(once(ids));
    expect(await auditLedger(a.db.read)).toEqual({ total: 0, mismatched: [] });
  });
});

describe('charge expiry across instances', () => {
  it('both instances expiring at once expire each due charge once, with one transaction.expired each', async () => {
    const acc = await makeAccount(a);
    const api = callerFor(a, acc.account_id);
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push((await api.transactions.create(txBody('PIX'))).id);
    clock.advance(a.config.pixExpiresSeconds * 1000);
    let expired = 0;
    for (let round = 0; round < 10; round++) {
      const [x, y] = await Promise.all([expireDuePixCharges(a), expireDuePixCharges(b)]);
      expired += x + y;
      if (x + y === 0) break;
    }
    expect(expired).toBe(150);
    const statuses = await a.db.read.handle.select({ status: transactions.status, n: sql<number>`count(*)` }).from(transactions)
      .where(inArray(transactions.id, ids)).groupBy(transactions.status);
    expect(statuses.map((r) => [r.status, Number(r.n)])).toEqual([['REFUSED', 150]]);
    const evs = await a.db.read.handle.select({ resourceId: events.resourceId }).from(events)
      .where(and(eq(events.type, 'transaction.expired'), inArray(events.resourceId, ids)));
    expect(tally(evs.map((e) => e.resourceId))).toEqual(once(ids));
  });
});

describe('idempotency cleanup across instances', () => {
  it('one purge at a time: while one instance purges, the other leaves it the work; expired keys go, live ones stay', async () => {
    const acc = await makeAccount(a);
    const now = clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    await a.db.write((tx) => tx.handle.insert(idempotencyKeys).values([
      ...[1, 2, 3].map((i) => ({ accountId: acc.account_id, operation: 'withdrawal.create', key: `old-${i}`, fingerprint: 'f', result: '{}', createdAt: at(-90_000_000), expiresAt: at(-3_600_000) })),
      { accountId: acc.account_id, operation: 'withdrawal.create', key: 'live', fingerprint: 'f', result: '{}', createdAt: at(0), expiresAt: at(86_400_000) },
    ]));
    const keys = async () => (await a.db.read.handle.select({ key: idempotencyKeys.key }).from(idempotencyKeys)
      .where(eq(idempotencyKeys.accountId, acc.account_id)).orderBy(asc(idempotencyKeys.key))).map((k) => k.key);
    if (onPostgres) {
      // A's purge holds the purge's lock. Not as a write job of A's writer: the instances' write groups take
      // turns (db/pg/writer.ts, GROUP_LOCK), and a job may not wait on anything but its queries, so B's purge
      // would simply run after it. A transaction of its own on A's database holds the lock instead, as a
      // purge in flight on another instance does at the moment B's purge starts.
      let release = () => {};
      let locked = () => {};
      const holding = new Promise<void>((r) => { locked = r; });
      const purgeA = (a.db.read.handle as unknown as PgDb).transaction(async (tx) => {
        expect(await tryLockName(tx as unknown as Parameters<typeof tryLockName>[0], 'idempotency-cleanup')).toBe(true);
        locked();
        await new Promise<void>((r) => { release = r; });
      });
      await holding;
      expect(await purgeExpiredIdempotencyKeys(b, clock.now())).toBe(0);
      expect(await keys()).toEqual(['live', 'old-1', 'old-2', 'old-3']);
      release();
      await purgeA;
    }
    expect(await purgeExpiredIdempotencyKeys(b, clock.now())).toBe(3);
    expect(await keys()).toEqual(['live']);
  });
});
