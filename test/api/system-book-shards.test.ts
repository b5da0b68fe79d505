import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM_BOOK_SHARDS, SYSTEM_BOOKS } from '../../contract/ledger';
import { onPostgres } from '../../db/dialect';
import { auditBooks } from '../../server/domain/audit';
import { auditLedger, merchantBalance, systemBalances, systemShardOf } from '../../server/domain/ledger';
import { railFor, type PixRail } from '../../server/domain/rails';
import type { PixPaymentOrder } from '../../server/domain/rails';
import { applyPaymentOutcome, duePaymentOrders } from '../../server/domain/withdrawals/settle';
import { ManualClock } from '../../server/clock';
import { createLedgerAudit } from '../../server/observability/ledger-audit';
import { createReadiness } from '../../server/observability/readiness';
import { peekDb, type SqlPeek } from '../support/peek';
import { serverDatabaseUrl } from '../support/server';
import { callerFor, makeAccount, makeTestServices, waitFor, type TestServices } from '../support/services';
import { APPROVED_CARD, card, txBody } from '../support/transactions';

/**
 * System books are sharded (contract/ledger.ts SYSTEM_BOOK_SHARDS): every merchant's settlement used
 * to credit the one pix_out row, every charge the one pix_in / card_in row, and on PostgreSQL each of
 * those rows made the whole platform take turns. Here, on both engines: merchants' movements land on
 * their own shards while the totals stay exact; on PostgreSQL a lock held on one merchant's shard is no
 * lock on another's; the database refuses a malformed shard; and the audit
 * (/readyz's runner: a worker thread on SQLite, the read pool on PostgreSQL) reports a forged broken one.
 */

const DELAY = 1_000;
let s: TestServices;
let clock: ManualClock;
let rail: PixRail;

beforeEach(async () => {
  clock = new ManualClock(new Date('2026-02-10T13:00:00.000Z'));
  s = await makeTestServices({ clock, config: { sandboxSettlementDelayMs: DELAY, pixMaxBatchCents: 100_000 } });
  rail = railFor(s.config)!;
});
afterEach(async () => { await s.cleanup(); });

const withdrawal = (amount: number) => ({
  amount, key: 'fulano@example.com', key_type: 'EMAIL' as const, details: { name: 'Fulano de Tal', document: '529.982.247-25' },
});

/**
 * `n` funded merchants whose accounts hash to `n` different shards. Accounts that collide are left aside,
 * but they were funded too: `funded` counts every account made, for the sandbox funding's total.
 */
async function merchantsOnDistinctShards(n: number): Promise<{ merchants: string[]; funded: string[] }> {
  const byShard = new Map<number, string>();
  const funded: string[] = [];
  while (byShard.size < n) {
    const { account_id: a } = await makeAccount(s, { balance: 1_000_000 });
    funded.push(a);
    if (!byShard.has(systemShardOf(a))) byShard.set(systemShardOf(a), a);
  }
  return { merchants: [...byShard.values()], funded };
}

/** Settles these due orders at once, each in its own write job (as passes of several instances would). */
async function settleAtOnce(orders: PixPaymentOrder[]) {
  const now = clock.now();
  const applied = await Promise.all(orders.map(async (o) => applyPaymentOutcome(s, o, await rail.pay(o, now))));
  expect(applied.every(Boolean)).toBe(true);
}

/** The system book rows each of the account's ledger lines went to: kind → shards. */
async function systemRowsOf(peek: SqlPeek, accountId: string): Promise<Record<string, number[]>> {
  const rows = await peek.all<{ kind: string; shard: number }>(`
    SELECT DISTINCT b.kind, b.shard FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id JOIN ledger_books b ON b.id = l.book_id
    WHERE e.account_id = ? AND b.account_id IS NULL ORDER BY b.kind, b.shard`, accountId);
  const out: Record<string, number[]> = {};
  for (const r of rows) (out[r.kind] ??= []).push(Number(r.shard));
  return out;
}

describe('sharded system books', () => {
  it('spreads the shard of each account evenly and keeps it stable', () => {
    expect(systemShardOf('acc_0000000000000000000a')).toBe(systemShardOf('acc_0000000000000000000a'));
    const counts = new Array<number>(SYSTEM_BOOK_SHARDS).fill(0);
    for (let i = 0; i < 64_000; i++) counts[systemShardOf(`acc_${i.toString(36).padStart(9, '0')}k3j5h2g8f9d`)] += 1;
    // 1,000 expected per shard: none empty or more than 20 % off
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1_200);
  });

  it('settles and credits merchants concurrently on their own shards, the totals exact', async () => {
    const { merchants, funded } = await merchantsOnDistinctShards(4);
    // each merchant: a withdrawal of two batches and two approved card charges, all at once
    await Promise.all(merchants.map(async (a, i) => {
      const api = callerFor(s, a);
      await Promise.all([
        api.withdrawals.create(withdrawal(150_000 + i)),
        api.transactions.create(txBody('CARD', { card: card({ number: APPROVED_CARD }) })),
        api.transactions.create(txBody('CARD', { card: card({ number: APPROVED_CARD }) })),
      ]);
    }));
    clock.advance(DELAY);
    const orders = await duePaymentOrders(s.db.read, clock.now(), 100);
    expect(orders).toHaveLength(merchants.length * 2);
    await settleAtOnce(orders);

    const peek = peekDb(s.config.databasePath);
    try {
      // every system line of a merchant went to its own shard of each book: no two merchants met on a row
      for (const a of merchants) {
        expect(await systemRowsOf(peek, a)).toEqual({ card_in: [systemShardOf(a)], pix_out: [systemShardOf(a)], sandbox_funding: [systemShardOf(a)] });
      }
      const pixOutRows = await peek.all<{ id: string }>(`SELECT id FROM ledger_books WHERE account_id IS NULL AND kind = 'pix_out'`);
      expect(pixOutRows).toHaveLength(merchants.length);
    } finally {
      await peek.close();
    }
    // the totals, summed over the shards, are what the merchants moved
    const paidOut = merchants.reduce((n, _a, i) => n + 150_000 + i, 0);
    const charged = 2 * merchants.length * Number(txBody('CARD').amount);
    const totals = await systemBalances(s.db.read);
    expect(totals.pix_out).toBe(paidOut);
    // the accounts left aside for sharing a shard were funded as well
    expect(totals.sandbox_funding).toBe(-1_000_000 * funded.length);
    expect(totals.card_in).toBe(-charged);
    expect(Object.keys(totals).sort()).toEqual([...SYSTEM_BOOKS].sort());
    // and the merchants' side and the outside world's add up to nothing
    let merchantsHold = 0;
    for (const a of funded) {
      const b = await merchantBalance(s.db.read, a);
      merchantsHold += b.available + b.blocked + b.inFlight;
    }
    expect(merchantsHold + Object.values(totals).reduce((n, v) => n + v, 0)).toBe(0);
    expect(await auditLedger(s.db.read)).toEqual({ total: 0, mismatched: [] });
    expect(await auditBooks(s.db.read)).toMatchObject({ ok: true, firstBreak: null });
  });

  // the row lock itself: PostgreSQL holds it until COMMIT (SQLite's one writer has no row locks)
  it.skipIf(!onPostgres)('a lock held on one merchant\'s pix_out shard is no lock on another merchant\'s', async () => {
    // At the row level: the write groups of the instances take turns (db/pg/writer.ts, GROUP_LOCK) and a
    // group's jobs share its transaction, so what shards buy is that two merchants' settlements never
    // need the same row, which is what lets groups stop taking turns once they lock in one order.
    const { merchants: [a, b] } = await merchantsOnDistinctShards(2);
    for (const m of [a, b]) await callerFor(s, m).withdrawals.create(withdrawal(2_000));
    clock.advance(DELAY);
    // the first settlement of each opens its shard
    await settleAtOnce(await duePaymentOrders(s.db.read, clock.now(), 100));
    for (const m of [a, b]) await callerFor(s, m).withdrawals.create(withdrawal(3_000));
    clock.advance(DELAY);
    const orders = await duePaymentOrders(s.db.read, clock.now(), 100);

    const sql = postgres(serverDatabaseUrl(s.config.databasePath)!, { max: 2, onnotice: () => {} });
    const shardRow = async (m: string) => (await sql`SELECT id FROM ledger_books WHERE account_id IS NULL AND kind = 'pix_out' AND shard = ${systemShardOf(m)}`)[0].id as string;
    const rowA = await shardRow(a);
    const rowB = await shardRow(b);
    try {
      await sql.begin(async (holder) => {
        // one session holds a's pix_out shard, as a's settlement would until its COMMIT
        expect(await holder`SELECT id FROM ledger_books WHERE id = ${rowA} FOR UPDATE`).toHaveLength(1);
        await sql.begin(async (other) => {
          // another takes b's at once, and would have to wait for a's
          expect(await other`SELECT id FROM ledger_books WHERE id = ${rowB} FOR UPDATE NOWAIT`).toHaveLength(1);
          await expect(other`SELECT id FROM ledger_books WHERE id = ${rowA} FOR UPDATE NOWAIT`).rejects.toMatchObject({ code: '55P03' });
        }).catch((e: { code?: string }) => { if (e.code !== '55P03') throw e; });
      });
    } finally {
      await sql.end({ timeout: 5 });
    }
    await settleAtOnce(orders);
    for (const m of [a, b]) expect((await merchantBalance(s.db.read, m)).inFlight).toBe(0);
    expect((await systemBalances(s.db.read)).pix_out).toBe(2 * (2_000 + 3_000));
    expect(await auditBooks(s.db.read)).toMatchObject({ ok: true });
  });

  it('the database refuses a shard opened with a balance, a second row for one shard, a merchant book with a shard and a book changing shard', async () => {
    const { merchants: [a] } = await merchantsOnDistinctShards(1);
    const shard = systemShardOf(a);
    const peek = peekDb(s.config.databasePath, { write: true });
    try {
      const insert = (id: string, account: string | null, kind: string, n: number, balance: number) => peek.all(
        `INSERT INTO ledger_books (id, account_id, kind, shard, allow_negative, balance, updated_at) VALUES (?, ?, ?, ?, 1, ?, '2026-02-10T13:00:00.000Z')`,
        id, account, kind, n, balance);
      const free = (shard + 1) % SYSTEM_BOOK_SHARDS;
      await expect(insert('lbk_forged_balance', null, 'sandbox_funding', free, 700)).rejects.toThrow(/a book opens at a zero balance/);
      await expect(insert('lbk_forged_twin', null, 'sandbox_funding', shard, 0)).rejects.toThrow(/ledger_books_system_shard_uq|UNIQUE constraint failed/);
      await expect(insert('lbk_forged_merchant', a, 'refunds_in_flight', 3, 0)).rejects.toThrow(/only a system book has shards/);
      await expect(insert('lbk_forged_negative', null, 'pix_out', -1, 0)).rejects.toThrow(/only a system book has shards/);
      await expect(peek.all(`UPDATE ledger_books SET shard = ? WHERE account_id IS NULL AND kind = 'sandbox_funding'`, free)).rejects.toThrow(/a book keeps its account, kind and shard/);
      await expect(peek.all(`UPDATE ledger_books SET account_id = NULL WHERE account_id = ? AND kind = 'available'`, a)).rejects.toThrow(/a book keeps its account, kind and shard/);
    } finally {
      await peek.close();
    }
    expect(await auditBooks(s.db.read)).toMatchObject({ ok: true });
  });

  describe("/readyz's audit", () => {
    /** The audit as /readyz runs it (a worker thread over SQLite's file, the read pool on PostgreSQL). */
    async function readyzAudit() {
      const audit = createLedgerAudit(s, { intervalMs: 60_000 });
      const readiness = createReadiness(s, { audit, jobs: () => [] });
      try {
        await audit.run();
        const ready = await readiness.check(); // reads that audit's result (not due again for a minute)
        return { ready, last: audit.last() };
      } finally {
        await audit.stop();
      }
    }

    /** Forged behind the database's guards, as a superuser could (triggers and index taken away). */
    async function forge(statements: (peek: SqlPeek) => Promise<void>) {
      const peek = peekDb(s.config.databasePath, { write: true });
      try {
        if (onPostgres) await peek.all('SET session_replication_role = replica');
        await statements(peek);
      } finally {
        await peek.close();
      }
    }

    let shard: number;
    beforeEach(async () => {
      const { merchants: [a] } = await merchantsOnDistinctShards(1);
      shard = systemShardOf(a);
      await callerFor(s, a).withdrawals.create(withdrawal(5_000));
      clock.advance(DELAY);
      await settleAtOnce(await duePaymentOrders(s.db.read, clock.now(), 100));
      expect((await readyzAudit()).last).toMatchObject({ ok: true, firstBreak: null });
    });

    it('reports a system book with two rows for one shard', async () => {
      await forge(async (peek) => {
        await peek.all('DROP INDEX ledger_books_system_shard_uq');
        await peek.all(`INSERT INTO ledger_books (id, account_id, kind, shard, allow_negative, balance, updated_at) VALUES ('lbk_forged_twin', NULL, 'pix_out', ?, 1, 0, '2026-02-10T13:00:00.000Z')`, shard);
      });
      const { ready, last } = await readyzAudit();
      expect(ready).toMatchObject({ ready: false, failed: 'ledger' });
      // every book still equals its lines: only the shards' check sees it
      expect(last).toMatchObject({ ok: false, firstBreak: 'system_books: system book pix_out: 2 rows for 1 shard number(s)' });
    });

    it('reports a shard that holds money no line put there', async () => {
      const other = (shard + 1) % SYSTEM_BOOK_SHARDS;
      await forge(async (peek) => {
        if (!onPostgres) await peek.all('DROP TRIGGER ledger_books_open_at_zero');
        await peek.all(`INSERT INTO ledger_books (id, account_id, kind, shard, allow_negative, balance, updated_at) VALUES ('lbk_forged_shard', NULL, 'pix_out', ?, 1, 700, '2026-02-10T13:00:00.000Z')`, other);
      });
      const { ready, last } = await readyzAudit();
      expect(ready).toMatchObject({ ready: false, failed: 'ledger' });
      expect(last?.firstBreak).toBe('book_balances: book lbk_forged_shard (pix_out): balance 700 but its lines sum to 0');
      const report = await auditBooks(s.db.read);
      const detail = report.checks.find((c) => c.name === 'system_books')?.detail;
      expect(detail).toMatch(/^the system books' shards hold -?\d+ against the merchant books' \d+: together 700, not 0$/);
      // what a reader of the total sees is the broken figure the audit names
      expect((await systemBalances(s.db.read)).pix_out).toBe(5_700);
    });
  });
});
