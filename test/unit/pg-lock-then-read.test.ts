// @engines postgres: two transactions meeting on one idempotency slot and on one withdrawal's row locks (SQLite's single writer runs one job at a time)
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrizzleDb } from '../../db/client';
import { openPostgres } from '../../db/pg/open';
import { IdempotencyStore } from '../../db/stores/idempotency';
import { WithdrawalStore } from '../../db/stores/withdrawals';
import { sandboxTopUp } from '../../server/domain/ledger';
import { createWithdrawal } from '../../server/domain/withdrawals/create';
import { serverDatabaseUrl } from '../support/server';
import { makeAccount, makeTestServices, waitFor, type TestServices } from '../support/services';

/**
 * A statement reads with the snapshot of its start (READ COMMITTED), so a lock it waits for inside itself
 * (a sub-select of pg_advisory_xact_lock, a FOR UPDATE of one table of a join) does not make it see what the
 * holder committed meanwhile. These are the two reads that take their lock in the same statement
 * (IdempotencyStore.lockedAnswer, WithdrawalStore.lockToSettle): each is started while another transaction
 * holds what it locks, and must answer what that transaction committed.
 */
let s: TestServices;
let pg: ReturnType<typeof openPostgres>;
let admin: postgres.Sql;
let accountId: string;

type Tx = DrizzleDb;
const transaction = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> =>
  (pg.read as unknown as { transaction(f: (tx: Tx) => Promise<T>): Promise<T> }).transaction(fn);

/** Resolves once some backend waits for a lock (the second transaction is parked behind the first). */
const someoneWaits = () => waitFor(async () => {
  const [row] = await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`;
  return row.n > 0;
}, { timeoutMs: 5000 });

beforeAll(async () => {
  s = await makeTestServices({ config: { pixMaxBatchCents: 1000 } });
  accountId = (await makeAccount(s)).account_id;
  await s.db.write((tx) => sandboxTopUp(tx, accountId, 1_000_000, s.clock.now()));
  const url = serverDatabaseUrl(s.config.databasePath)!;
  pg = openPostgres(url, { max: 4 });
  admin = postgres(url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await admin?.end({ timeout: 1 });
  await pg?.close();
  await s?.cleanup();
});

describe('a lock taken in the statement that reads (PostgreSQL)', () => {
  const slot = () => ({ accountId, operation: 'withdrawal.create', key: `k-${Math.random()}` });
  const claim = { fingerprint: 'f1', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:00:00.000Z' };

  it('an idempotency slot: the second job waits for the first and reads the answer it stored', async () => {
    const key = slot();
    let claimed!: () => void;
    const firstClaimed = new Promise<void>((r) => { claimed = r; });
    const first = transaction(async (tx) => {
      const store = new IdempotencyStore(tx);
      expect(await store.lockedAnswer(key, claim)).toBeUndefined();
      claimed();
      await someoneWaits();
      await store.storeAnswer({ ...key, ...claim, result: '{"n":1}' });
    });
    await firstClaimed;
    const second = transaction((tx) => new IdempotencyStore(tx).lockedAnswer(key, { ...claim, fingerprint: 'f2' }));
    await first;
    expect(await second).toMatchObject({ fingerprint: 'f1', result: '{"n":1}' });
  });

  it('an idempotency slot whose first job failed: the second finds it free, and nothing of the first is left', async () => {
    const key = slot();
    let claimed!: () => void;
    const firstClaimed = new Promise<void>((r) => { claimed = r; });
    const first = transaction(async (tx) => {
      await new IdempotencyStore(tx).lockedAnswer(key, claim);
      claimed();
      await someoneWaits();
      throw new Error('refused');
    });
    await firstClaimed;
    const second = transaction(async (tx) => {
      const store = new IdempotencyStore(tx);
      const found = await store.lockedAnswer(key, claim);
      await store.storeAnswer({ ...key, ...claim, result: '{"n":2}' });
      return found;
    });
    await expect(first).rejects.toThrow('refused');
    expect(await second).toBeUndefined();
    const [row] = await admin`SELECT result FROM idempotency_keys WHERE account_id = ${key.accountId} AND key = ${key.key}`;
    expect(row.result).toBe('{"n":2}');
  });

  it('a withdrawal to settle: the second job waits for the first and reads the batch it settled', async () => {
    const w = await createWithdrawal(s, accountId, {
      amount: 2000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '52998224725' },
    });
    expect(w.batches).toHaveLength(2);
    const [b1, b2] = w.batches.map((b) => b.identifier);
    let locked!: () => void;
    const firstLocked = new Promise<void>((r) => { locked = r; });
    const at = new Date().toISOString();
    const first = transaction(async (tx) => {
      const store = new WithdrawalStore(tx);
      const found = await store.lockToSettle(accountId, w.withdrawal.id);
      expect(found?.batches.map((b) => b.status)).toEqual(['PENDING', 'PENDING']);
      locked();
      await someoneWaits();
      await store.markBatchPaid(b1, { endToEnd: 'E1', receiverName: 'F', receiverBank: 'B', receiverBankIspb: '00000000' }, at);
      await store.updateStatus(w.withdrawal.id, 'PARTIALLY_PAID', at);
    });
    await firstLocked;
    const second = transaction((tx) => new WithdrawalStore(tx).lockToSettle(accountId, w.withdrawal.id));
    await first;
    const seen = await second;
    expect(seen?.withdrawal).toMatchObject({ id: w.withdrawal.id, status: 'PARTIALLY_PAID', amount: 2000 });
    expect(seen?.batches).toEqual([{ id: b1, status: 'PAID', amount: 1000 }, { id: b2, status: 'PENDING', amount: 1000 }]);
    expect(await transaction((tx) => new WithdrawalStore(tx).lockToSettle('acc_other', w.withdrawal.id))).toBeNull();
  });
});
