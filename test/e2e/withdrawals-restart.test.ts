import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { events, ledgerBooks, ledgerEntries, ledgerLines } from '../../db/schema';
import { auditLedger } from '../../server/domain/ledger';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';
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
  if (servers[0]) removeDir(servers[0].dir);
});

describe('settlement across a crash', () => {
  it('settles batches due during the outage once the server is back, once each', async () => {
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
      const paid = await view.db.select({ resourceId: ledgerEntries.resourceId, n: sql<number>`count(*)` }).from(ledgerEntries)
        .where(and(eq(ledgerEntries.kind, 'withdrawal_paid'), inArray(ledgerEntries.resourceId, batchIds)))
        .groupBy(ledgerEntries.resourceId).all();
      expect(paid.map((p) => [p.resourceId, p.n]).sort()).toEqual(batchIds.map((id) => [id, 1]).sort());
      const pixOutLines = await view.db.select({ amount: ledgerLines.amount }).from(ledgerLines)
        .innerJoin(ledgerBooks, eq(ledgerBooks.id, ledgerLines.bookId))
        .innerJoin(ledgerEntries, eq(ledgerEntries.id, ledgerLines.entryId))
        .where(and(eq(ledgerBooks.kind, 'pix_out'), inArray(ledgerEntries.resourceId, batchIds))).all();
      expect(pixOutLines.map((l) => l.amount).sort((a, b) => a - b)).toEqual([50_000, 100_000, 100_000]);
      const types = (await view.db.select({ type: events.type }).from(events).where(eq(events.resourceId, done.id)).all()).map((e) => e.type);
      expect(types).toEqual(['withdraw.requested', 'withdraw.partially_paid', 'withdraw.paid']);
      expect(await auditLedger(view.db)).toEqual({ total: 0, mismatched: [] });
    } finally {
      view.close();
    }
  });
});
