import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, ledgerEntries, refunds } from '../../db/schema';
import { auditLedger } from '../../server/domain/ledger';
import { api, removeDir, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { accountInServer, readServerDb } from '../support/withdrawals';

/*
 * The money paths of a charge under concurrency, over HTTP, on both engines (vitest.pg.config.ts runs
 * it on PostgreSQL, where write jobs really run at once): concurrent pays, refunds, disputes and
 * resolutions of one charge answer as they would one after the other, and money moves once.
 */
let srv: RunningServer;
let dbView: ReturnType<typeof readServerDb>;

beforeAll(async () => {
  // refunds stay PENDING under the test (the rail answers far later)
  srv = await startServer({ env: { SANDBOX_SETTLEMENT_DELAY_MS: '600000' } });
  dbView = readServerDb(srv.databasePath);
});
afterAll(async () => {
  dbView?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

const entriesOf = (resourceId: string) => dbView.db.handle.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.resourceId, resourceId));

describe('one charge, many requests at once', () => {
  it('20 concurrent pays of a Pix charge: every answer is the same APPROVED charge, credited once', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 0 });
    const created = await api(srv.url, '/transaction', { token: acc.accessToken, body: txBody('PIX') });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const answers = await Promise.all(Array.from({ length: 20 }, () => api(srv.url, `/sandbox/transactions/${id}/pay`, { token: acc.accessToken, method: 'POST' })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.json.status))).toEqual(new Set(['APPROVED']));
    // one end-to-end id: the charge was paid once and every other call answered it unchanged
    expect(new Set(answers.map((a) => a.json.endtoend)).size).toBe(1);
    expect(answers[0].json.endtoend).toHaveLength(32);
    expect((await api(srv.url, '/balance', { token: acc.accessToken })).json.available).toBe(created.json.total);
    expect(await entriesOf(id)).toHaveLength(1);
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('10 concurrent disputes of one card charge: one 201, the others 409, one hold', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 0 });
    const charge = await api(srv.url, '/transaction', { token: acc.accessToken, body: txBody('CARD') });
    expect(charge.json.status).toBe('APPROVED');
    const answers = await Promise.all(Array.from({ length: 10 }, () => api(srv.url, `/sandbox/transactions/${charge.json.id}/dispute`, { token: acc.accessToken, method: 'POST' })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(await dbView.db.handle.select().from(disputes).where(eq(disputes.transactionId, charge.json.id))).toHaveLength(1);
    expect(await api(srv.url, '/balance', { token: acc.accessToken }).then((r) => r.json)).toMatchObject({ available: 0, blocked: charge.json.total });
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('10 concurrent "lost" on one dispute: all answer the same LOST dispute, charged back once', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 0 });
    const charge = await api(srv.url, '/transaction', { token: acc.accessToken, body: txBody('CARD') });
    const opened = await api(srv.url, `/sandbox/transactions/${charge.json.id}/dispute`, { token: acc.accessToken, method: 'POST' });
    expect(opened.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 10 }, () => api(srv.url, `/sandbox/disputes/${opened.json.id}/lost`, { token: acc.accessToken, method: 'POST' })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json.status))).toEqual(new Set(['LOST']));
    expect((await entriesOf(opened.json.id)).map((e) => e.kind).sort()).toEqual(['chargeback', 'dispute_hold']);
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('15 refunds of 10 % at once with a dispute among them: refunds plus the hold are exactly the total, no 5xx', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 0 });
    const charge = await api(srv.url, '/transaction', { token: acc.accessToken, body: txBody('CARD') });
    const total = charge.json.total as number;
    const tenth = Math.floor(total / 10);
    const calls = Array.from({ length: 15 }, () => api(srv.url, `/transaction/${charge.json.id}/refund`, { token: acc.accessToken, body: { amount: tenth } }));
    calls.splice(6, 0, api(srv.url, `/sandbox/transactions/${charge.json.id}/dispute`, { token: acc.accessToken, method: 'POST' }));
    const answers = await Promise.all(calls);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const dispute = answers[6];
    const refunded = answers.filter((a, i) => i !== 6 && a.status === 201).length;
    expect(answers.filter((a, i) => i !== 6 && a.status !== 201).map((a) => a.status)).toEqual(Array(15 - refunded).fill(422));
    expect(refunded).toBeLessThanOrEqual(10);
    expect(await dbView.db.handle.select().from(refunds).where(eq(refunds.transactionId, charge.json.id))).toHaveLength(refunded);
    if (refunded * tenth === total) {
      // every refund ran before it: nothing was left to dispute
      expect(dispute.status).toBe(422);
    } else {
      // the dispute holds what the refunds before it left; the refunds after it were refused
      expect(dispute.status).toBe(201);
      expect(dispute.json.amount).toBe(total - refunded * tenth);
    }
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('10 creates at once with one external reference and different keys: one 201, nine 409, one stored (withdrawals and charges)', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 100_000 });
    const wd = { amount: 100, key: '+55 11 98765-4321', key_type: 'PHONE', details: { name: 'Beltrano', document: '11.222.333/0001-81' }, external_ref: 'same-ref' };
    const withdrawals = await Promise.all(Array.from({ length: 10 }, (_, i) => api(srv.url, '/withdraw/pix', { token: acc.accessToken, body: wd, headers: { 'idempotency-key': `wd-${i}` } })));
    expect(withdrawals.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect((await api(srv.url, '/balance', { token: acc.accessToken })).json.available).toBe(100_000 - 100);
    const charges = await Promise.all(Array.from({ length: 10 }, (_, i) => api(srv.url, '/transaction', { token: acc.accessToken, body: txBody('PIX', { externalRef: 'same-charge-ref' }), headers: { 'idempotency-key': `tx-${i}` } })));
    expect(charges.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });
});
