import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes, withdrawals } from '../../db/schema';
import { auditLedger, merchantBalance } from '../../server/domain/ledger';
import { api, removeDir, startServer, type RunningServer } from '../support/server';
import { txBody } from '../support/transactions';
import { accountInServer, phoneWithdrawal, readServerDb } from '../support/withdrawals';

/** docs/decisions.md "Disputes" and "Money" over HTTP: a dispute is always recorded; the ceiling is refused inside the write. */
let srv: RunningServer;
let dbView: ReturnType<typeof readServerDb>;

beforeAll(async () => {
  // settlement far away: withdrawals stay in flight, so the figures below do not move under the test
  srv = await startServer({ env: { SANDBOX_SETTLEMENT_DELAY_MS: '600000' } });
  dbView = readServerDb(srv.databasePath);
});
afterAll(async () => {
  dbView?.close();
  await srv?.stop();
  removeDir(srv.dir);
});

const withdrawal = (amount: number, ref?: string) => phoneWithdrawal({ amount, ...(ref ? { external_ref: ref } : {}) });

async function balance(t: string) {
  const res = await api(srv.url, '/balance', { token: t });
  expect(res.status).toBe(200);
  return { available: res.json.available as number, blocked: res.json.blocked as number };
}

/** An approved card charge of 2500 cents: the only money the account has. */
async function cardCharge(t: string) {
  const res = await api(srv.url, '/transaction', { token: t, body: txBody('CARD') });
  expect(res.status).toBe(201);
  expect(res.json.status).toBe('APPROVED');
  return res.json.id as string;
}

describe('a dispute is always recorded', () => {
  it('opens on money already withdrawn: available goes negative, withdrawals wait, credits cover the shortfall first', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath);
    const t = acc.accessToken;
    const charge = await cardCharge(t);
    expect((await api(srv.url, '/withdraw/pix', { token: t, body: withdrawal(2500) })).status).toBe(201);
    expect(await balance(t)).toEqual({ available: 0, blocked: 0 });

    const opened = await api(srv.url, `/sandbox/transactions/${charge}/dispute`, { token: t, method: 'POST' });
    expect(opened.status).toBe(201);
    expect(opened.json).toMatchObject({ status: 'OPEN', amount: 2500, transaction_id: charge });
    expect(await balance(t)).toEqual({ available: -2500, blocked: 2500 });

    // nothing leaves while available does not cover it, not even a cent
    const refused = await api(srv.url, '/withdraw/pix', { token: t, body: withdrawal(1) });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ message: 'WITHDRAW_FAIL', error: { code: 'INSUFFICIENT_FUNDS' } });
    // incoming money covers the shortfall first
    expect((await api(srv.url, '/sandbox/topup', { token: t, body: { amount: 1000 } })).json.available).toBe(-1500);
    await cardCharge(t);
    expect(await balance(t)).toEqual({ available: 1000, blocked: 2500 });
    expect((await api(srv.url, '/withdraw/pix', { token: t, body: withdrawal(1001) })).status).toBe(422);
    expect((await api(srv.url, '/withdraw/pix', { token: t, body: withdrawal(1000) })).status).toBe(201);
    expect(await balance(t)).toEqual({ available: 0, blocked: 2500 });
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  });

  it('withdrawals and a dispute on the same money at once: the dispute exists, the books balance, nothing else overdraws', async () => {
    for (let round = 0; round < 3; round++) {
      const acc = await accountInServer(srv.url, srv.databasePath);
      const t = acc.accessToken;
      const charge = await cardCharge(t);
      const requests = Array.from({ length: 10 }, (_, i) => api(srv.url, '/withdraw/pix', { token: t, body: withdrawal(250, `r${round}-${i}`) }));
      // the dispute lands somewhere in the middle of the storm
      requests.splice(3 + round * 2, 0, api(srv.url, `/sandbox/transactions/${charge}/dispute`, { token: t, method: 'POST' }));
      const answers = await Promise.all(requests);
      const dispute = answers.find((a) => a.json?.transaction_id === charge);
      expect(dispute?.status).toBe(201);
      const paid = answers.filter((a) => a !== dispute && a.status === 201).length;
      expect(answers.filter((a) => a !== dispute && a.status !== 201).map((a) => a.status)).toEqual(Array(10 - paid).fill(422));

      const stored = await dbView.db.handle.select().from(disputes).where(eq(disputes.transactionId, charge));
      expect(stored).toHaveLength(1);
      expect((await dbView.db.handle.select().from(withdrawals).where(eq(withdrawals.accountId, acc.account_id)))).toHaveLength(paid);
      // every withdrawal that got through was covered when it ran; the hold took the rest below zero
      expect(await balance(t)).toEqual({ available: 2500 - 250 * paid - 2500, blocked: 2500 });
      const books = await merchantBalance(dbView.db, acc.account_id);
      expect(books.inFlight).toBe(250 * paid);
      expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
    }
  });
});

describe('the balance ceiling', () => {
  it('a top-up or charge that would cross 10,000,000,000,000 cents is a 422 that changes nothing; the release of a won dispute is never refused', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath);
    const t = acc.accessToken;
    // a disputed charge whose hold will come back once available sits at the ceiling
    const disputed = await cardCharge(t);
    const dispute = await api(srv.url, `/sandbox/transactions/${disputed}/dispute`, { token: t, method: 'POST' });
    expect(dispute.status).toBe(201);
    expect(await balance(t)).toEqual({ available: 0, blocked: 2500 });
    for (let i = 0; i < 100; i++) {
      const res = await api(srv.url, '/sandbox/topup', { token: t, body: { amount: 100_000_000_000 } });
      expect(res.status).toBe(201);
    }
    expect(await balance(t)).toEqual({ available: 10_000_000_000_000, blocked: 2500 });
    const over = await api(srv.url, '/sandbox/topup', { token: t, body: { amount: 1 } });
    expect(over.status).toBe(422);
    expect(over.json).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity' });
    expect(over.json.message).toMatch(/10000000000000 cents/);
    expect(await balance(t)).toEqual({ available: 10_000_000_000_000, blocked: 2500 });
    // a card charge cannot cross it either
    const charge = await api(srv.url, '/transaction', { token: t, body: txBody('CARD') });
    expect(charge.status).toBe(422);
    expect(await balance(t)).toEqual({ available: 10_000_000_000_000, blocked: 2500 });
    // the merchant's own money coming back is never refused: a won dispute releases its hold across it
    const won = await api(srv.url, `/sandbox/disputes/${dispute.json.id}/won`, { token: t, method: 'POST' });
    expect(won.status).toBe(200);
    expect(await balance(t)).toEqual({ available: 10_000_000_000_000 + 2500, blocked: 0 });
    expect(await auditLedger(dbView.db)).toEqual({ total: 0, mismatched: [] });
  }, 60_000);
});
