import { first as firstRow } from '../../db/query';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { events, ledgerBooks, ledgerEntries, ledgerLines, withdrawalBatches, withdrawals } from '../../db/schema';
import { auditLedger, merchantBalance } from '../../server/domain/ledger';
import { accessToken, api, removeDir, SERVER_TEST_TIMEOUT_MS, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';
import { readServerDb } from '../support/withdrawals';

/**
 * Batches that fall due while the server is down (SIGKILL, no cleanup) are settled after the restart,
 * each exactly once: the settlement job is driven by due rows only.
 */
const env = { SANDBOX_SETTLEMENT_DELAY_MS: '3000', PIX_MAX_BATCH_CENTS: '100000', JOB_POLL_MS: '25' };
const servers: RunningServer[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const dir of new Set(servers.map((s) => s.dir))) removeDir(dir);
});

describe('settlement across a crash', () => {
  it('settles batches due during the outage once the server is back, once each', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const first = await startServer({ env });
    servers.push(first);
    const token = await accessToken(first.url, first.demo.code, first.demo.token);
    const created = await api(first.url, '/withdraw/pix', {
      token, body: { amount: 250_000, key: 'ciclano@example.com', key_type: 'EMAIL', details: { name: 'Ciclano', document: '52998224725' } },
    });
    expect(created.status).toBe(201);
    const batchIds: string[] = created.json.data.map((d: { identifier: string }) => d.identifier);
    expect(batchIds).toHaveLength(3);
    const before = await api(first.url, `/withdraw?identifier=${batchIds[0]}`, { token });
    // still inside the settlement delay: nothing was paid before the crash
    expect(before.json.status).toBe('REQUESTED');
    expect(before.json.receipt.map((r: { status: string }) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
    await first.kill();
    // restart only once the batches are due, so they fell due while no server was running
    const dueAt = Date.parse(created.json.timestamp) + Number(env.SANDBOX_SETTLEMENT_DELAY_MS);
    await new Promise((r) => setTimeout(r, Math.max(0, dueAt - Date.now() + 10)));

    const second = await startServer({ dir: first.dir, env });
    servers.push(second);
    const done = await waitFor(async () => {
      const r = await api(second.url, `/withdraw?identifier=${batchIds[0]}`, { token });
      return r.json.status === 'PAID' ? r.json : null;
    }, { timeoutMs: 30_000, what: 'the withdrawal to be paid after the restart' });
    expect(done.receipt.every((r: { endtoend: string }) => r.endtoend.length === 32)).toBe(true);
    expect((await api(second.url, '/balance', { token })).json.available).toBe(1_000_000 - 250_000);
    await second.stop();

    // the ledger, read after a clean stop: one pix_out credit per batch, no more
    const view = readServerDb(first.databasePath);
    try {
      const paid = await view.db.handle.select({ resourceId: ledgerEntries.resourceId, n: sql<number>`count(*)` }).from(ledgerEntries)
        .where(and(eq(ledgerEntries.kind, 'withdrawal_paid'), inArray(ledgerEntries.resourceId, batchIds)))
        .groupBy(ledgerEntries.resourceId);
      expect(paid.map((p) => [p.resourceId, p.n]).sort()).toEqual(batchIds.map((id) => [id, 1]).sort());
      const pixOutLines = await view.db.handle.select({ amount: ledgerLines.amount }).from(ledgerLines)
        .innerJoin(ledgerBooks, eq(ledgerBooks.id, ledgerLines.bookId))
        .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
        .where(and(eq(ledgerBooks.kind, 'pix_out'), inArray(ledgerEntries.resourceId, batchIds)));
      expect(pixOutLines.map((l) => l.amount).sort((a, b) => a - b)).toEqual([50_000, 100_000, 100_000]);
      const types = (await view.db.handle.select({ type: events.type }).from(events).where(eq(events.resourceId, done.id))).map((e) => e.type);
      expect(types).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
      expect(await auditLedger(view.db)).toEqual({ total: 0, mismatched: [] });
    } finally {
      view.close();
    }
  });

  it('resumes a settlement killed half-way: batches paid before the crash keep their receipt, the rest are paid once', { timeout: 3 * SERVER_TEST_TIMEOUT_MS }, async () => {
    // 1000 batches of 1 real each: about 40 passes of the job, so the SIGKILL lands between two of them
    // (or inside one write job, which then rolls back as a whole)
    // (the batches the dead process had claimed are due again when their lease runs out: a short one)
    const crashEnv = { SANDBOX_SETTLEMENT_DELAY_MS: '50', PIX_MAX_BATCH_CENTS: '100', JOB_POLL_MS: '25', JOB_LEASE_MS: '1000' };
    const first = await startServer({ env: crashEnv });
    servers.push(first);
    const token = await accessToken(first.url, first.demo.code, first.demo.token);
    const created = await api(first.url, '/withdraw/pix', {
      token, body: { amount: 100_000, key: 'ciclano@example.com', key_type: 'EMAIL', details: { name: 'Ciclano', document: '52998224725' } },
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toHaveLength(1000);
    const batchIds: string[] = created.json.data.map((d: { identifier: string }) => d.identifier);

    const view = readServerDb(first.databasePath);
    try {
      const paidBatches = () => (view.db.handle.select({ id: withdrawalBatches.id, endToEnd: withdrawalBatches.endToEnd, bank: withdrawalBatches.receiverBankIspb })
        .from(withdrawalBatches).where(and(inArray(withdrawalBatches.id, batchIds), eq(withdrawalBatches.status, 'PAID'))).orderBy(asc(withdrawalBatches.seq)));
      await waitFor(async () => (await paidBatches()).length >= 100, { what: 'settlement to be under way' });
      await first.kill();

      // what the crash left behind is consistent: every paid batch has its one ledger entry, the money of
      // the others is still in flight, and the withdrawal says PARTIALLY_PAID
      const before = await paidBatches();
      expect(before.length).toBeGreaterThanOrEqual(100);
      expect(before.length).toBeLessThan(1000);
      const paidEntries = async () => (await firstRow(view.db.handle.select({ n: sql<number>`count(*)` }).from(ledgerEntries)
        .where(and(eq(ledgerEntries.kind, 'withdrawal_paid'), inArray(ledgerEntries.resourceId, batchIds)))))!.n;
      expect(await paidEntries()).toBe(before.length);
      expect(await merchantBalance(view.db, first.demo.accountId)).toEqual({ available: 900_000, blocked: 0, inFlight: 100 * (1000 - before.length) });
      const w = await firstRow(view.db.handle.select({ id: withdrawals.id, status: withdrawals.status }).from(withdrawalBatches)
        .innerJoin(withdrawals, eq(withdrawals.id, withdrawalBatches.withdrawalId)).where(eq(withdrawalBatches.id, batchIds[0])));
      expect(w?.status).toBe('PARTIALLY_PAID');

      const second = await startServer({ dir: first.dir, env: crashEnv });
      servers.push(second);
      // up to 900 write jobs on a loaded machine (about 25 s alone on PostgreSQL with 4 other jobs running; a full
      // run doubles that): the wait is bounded by correctness, not speed
      await waitFor(async () => (await paidBatches()).length === 1000, { timeoutMs: 240_000, what: 'every batch to be paid after the restart' });
      const done = await api(second.url, `/withdraw?identifier=${w!.id}`, { token });
      expect(done.json.status).toBe('PAID');
      await second.stop();

      const after = await paidBatches();
      // a batch paid before the crash was not sent again: same end-to-end id, same bank
      const afterById = new Map(after.map((b) => [b.id, b]));
      expect(before.map((b) => afterById.get(b.id))).toEqual(before);
      expect(new Set(after.map((b) => b.endToEnd)).size).toBe(1000);
      const perBatch = await view.db.handle.select({ n: sql<number>`count(*)` }).from(ledgerEntries)
        .where(and(eq(ledgerEntries.kind, 'withdrawal_paid'), inArray(ledgerEntries.resourceId, batchIds)))
        .groupBy(ledgerEntries.resourceId);
      expect(perBatch).toHaveLength(1000);
      expect(perBatch.every((r) => r.n === 1)).toBe(true);
      expect(await merchantBalance(view.db, first.demo.accountId)).toEqual({ available: 900_000, blocked: 0, inFlight: 0 });
      const types = (await view.db.handle.select({ type: events.type }).from(events).where(eq(events.resourceId, w!.id)).orderBy(asc(events.seq))).map((e) => e.type);
      expect(types).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
      expect(await auditLedger(view.db)).toEqual({ total: 0, mismatched: [] });
    } finally {
      view.close();
    }
  });
});
