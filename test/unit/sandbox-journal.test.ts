// @engines none: the sandbox rail and a directory, no database
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import type { PixPaymentOrder, RefundOrder } from '../../server/domain/rails/rail';
import { removeDir } from '../support/server';

/**
 * SANDBOX_RAIL_JOURNAL (server/domain/rails/sandbox-journal.ts): rails sharing a journal directory (two
 * instances on one machine) decide a batch or refund once; a repeated call, from either, gets the first
 * call's outcome (the same end-to-end id), as a PSP answers a repeated idempotency key, and calls.log says
 * which call decided and which was answered from the journal.
 */
const dir = mkdtempSync(join(tmpdir(), 'pix-journal-'));
afterAll(() => removeDir(dir));

const order: PixPaymentOrder = {
  batchId: 'wdb_journal1', withdrawalId: 'wd_journal1', accountId: 'acc_1', seq: 0, amount: 1_000,
  key: '+5511987654321', keyType: 'PHONE', receiverName: 'Beltrano', receiverDocument: '11222333000181',
};
const refund: RefundOrder = {
  refundId: 'rf_journal1', transactionId: 'txn_1', accountId: 'acc_1', amount: 500, method: 'PIX',
  originalEndToEnd: null, customerEmail: 'maria@example.com', customerDocument: '52998224725',
};

it('two rails on one journal pay a batch once: the second call answers the first outcome', async () => {
  const a = sandboxRail(0, 0, dir);
  const b = sandboxRail(0, 0, dir);
  const [first, second] = await Promise.all([a.pay(order, new Date()), b.pay(order, new Date(Date.now() + 60_000))]);
  expect(first.status).toBe('PAID');
  expect(second).toEqual(first);
  expect(await a.pay(order, new Date())).toEqual(first);
  const kept = JSON.parse(readFileSync(join(dir, 'batch-wdb_journal1.json'), 'utf8'));
  expect(kept).toMatchObject({ kind: 'batch', id: 'wdb_journal1', amount: 1_000, outcome: first });
  const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n').map((l) => l.split(' ').slice(0, 3).join(' '));
  expect(calls.sort()).toEqual(['batch wdb_journal1 again', 'batch wdb_journal1 again', 'batch wdb_journal1 first']);
});

it('a refund too, and the journal holds one file per decided id, no leftovers', async () => {
  const a = sandboxRail(0, 0, dir);
  const first = await a.refund(refund, new Date());
  expect(first.status).toBe('PAID');
  expect(await sandboxRail(0, 0, dir).refund(refund, new Date(Date.now() + 120_000))).toEqual(first);
  expect(readdirSync(dir).sort()).toEqual(['batch-wdb_journal1.json', 'calls.log', 'refund-rf_journal1.json']);
});

it('without a journal the sandbox decides each call anew (no shared state)', async () => {
  const rail = sandboxRail(0);
  const one = await rail.pay({ ...order, batchId: 'wdb_free' }, new Date());
  const two = await rail.pay({ ...order, batchId: 'wdb_free' }, new Date());
  expect(one.status).toBe('PAID');
  expect(two.status).toBe('PAID');
  expect((one as { endToEndId: string }).endToEndId).not.toBe((two as { endToEndId: string }).endToEndId);
});
