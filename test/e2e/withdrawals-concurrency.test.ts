import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first } from '../../db/query';
import { withdrawals } from '../../db/schema';
import { auditLedger, merchantBalance } from '../../server/domain/ledger';
import { api, removeDir, startServer, type RunningServer } from '../support/server';
import { accountInServer, phoneWithdrawal, readServerDb } from '../support/withdrawals';

/** Point 8 of the issue: concurrent withdrawals over HTTP against the real server (RATE_LIMIT_RPS=0). */
let srv: RunningServer;
let dbView: ReturnType<typeof readServerDb>;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_RPS: '0', SANDBOX_SETTLEMENT_DELAY_MS: '50' } });
  dbView = readServerDb(srv.databasePath);
});
afterAll(async () => {
  dbView?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

const AMOUNT = 1_234;
const body = (o: Record<string, unknown> = {}) => phoneWithdrawal({ amount: AMOUNT, ...o });

async function fundedAccount(amount: number) {
  const acc = await accountInServer(srv.url, srv.databasePath);
  const top = await api(srv.url, '/sandbox/topup', { token: acc.accessToken, body: { amount } });
  expect(top.status).toBe(201);
  expect(top.json.available).toBe(amount);
  return acc;
}

const countOf = async (accountId: string) =>
  (await first(dbView.db.handle.select({ n: sql<number>`count(*)` }).from(withdrawals).where(eq(withdrawals.accountId, accountId))))!.n;

describe('concurrent withdrawals', () => {
  it('100 at once against a balance covering exactly 50: 50 × 201, 50 × 422, no 5xx, balance 0, ledger balanced', async () => {
    const acc = await fundedAccount(50 * AMOUNT);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      api(srv.url, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: `c-${i}` }) })));
    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    expect(Object.fromEntries(byStatus)).toEqual({ 201: 50, 422: 50 });
    for (const a of answers.filter((x) => x.status === 422)) {
      expect(a.json).toMatchObject({ statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS' } });
    }
    for (const a of answers.filter((x) => x.status === 201)) expect(a.json.data).toEqual([expect.objectContaining({ amount: AMOUNT, status: 'PENDING' })]);

    expect((await api(srv.url, '/balance', { token: acc.accessToken })).json.available).toBe(0);
    expect(await countOf(acc.account_id)).toBe(50);
    const books = await merchantBalance(dbView.db, acc.account_id);
    expect(books.available).toBe(0);
    expect(books.available + books.inFlight).toBeLessThanOrEqual(50 * AMOUNT);
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('50 at once with one idempotency-key: one withdrawal, every answer the same bytes or 409', async () => {
    const acc = await fundedAccount(100 * AMOUNT);
    const answers = await Promise.all(Array.from({ length: 50 }, () =>
      api(srv.url, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: 'once' }), headers: { 'idempotency-key': 'one-key' } })));
    const ok = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(ok.length + busy.length).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.text).toBe(ok[0].text);
    expect(ok.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const a of busy) {
      expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(a.json).toMatchObject({ statusCode: 409, error: 'Conflict' });
    }
    // after the storm, the key answers the stored bytes again
    const later = await api(srv.url, '/withdraw/pix', { token: acc.accessToken, body: body({ external_ref: 'once' }), headers: { 'idempotency-key': 'one-key' } });
    expect(later.status).toBe(201);
    expect(later.text).toBe(ok[0].text);
    expect(await countOf(acc.account_id)).toBe(1);
    expect((await api(srv.url, '/balance', { token: acc.accessToken })).json.available).toBe(99 * AMOUNT);
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });
});
