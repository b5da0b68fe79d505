// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { SANDBOX_FAIL_KEY, SANDBOX_PARTIAL_KEY, sandboxRail } from '../../server/domain/rails/sandbox';
import type { PixPaymentOrder } from '../../server/domain/rails';
import { isValidEndToEndId } from '../../server/domain/pix/end-to-end';
import { participantByIspb, pickReceiverBank } from '../../server/domain/pix/participants';
import { eventForTransition, isSettled, splitIntoBatches, withdrawalStatusOf } from '../../server/domain/withdrawals/rules';
import { withdrawalRequest } from '../../server/routers/withdrawals/schemas';
import { pixKeyLookupInput } from '../../server/routers/pix/schemas';
import { normalizePixKey } from '../../contract/pix/keys';

describe('splitIntoBatches', () => {
  it('gives full batches, then the remainder', () => {
    expect(splitIntoBatches(3_500_000, 1_500_000)).toEqual([1_500_000, 1_500_000, 500_000]);
    expect(splitIntoBatches(250, 100)).toEqual([100, 100, 50]);
  });
  it('gives one batch when the amount fits, and no empty remainder on an exact multiple', () => {
    expect(splitIntoBatches(1, 1_500_000)).toEqual([1]);
    expect(splitIntoBatches(1_500_000, 1_500_000)).toEqual([1_500_000]);
    expect(splitIntoBatches(3_000_000, 1_500_000)).toEqual([1_500_000, 1_500_000]);
  });
  it('always sums to the amount, every batch within the cap', () => {
    for (const [amount, cap] of [[1, 1], [7, 3], [999_999, 1000], [100_000_000_000, 1_500_000_000]]) {
      const b = splitIntoBatches(amount, cap);
      expect(b.reduce((s, x) => s + x, 0)).toBe(amount);
      expect(b.every((x) => x >= 1 && x <= cap)).toBe(true);
      expect(b.length).toBe(Math.ceil(amount / cap));
    }
  });
  it('refuses amounts and caps that are not positive integers', () => {
    expect(() => splitIntoBatches(0, 100)).toThrow(RangeError);
    expect(() => splitIntoBatches(12.5, 100)).toThrow(RangeError);
    expect(() => splitIntoBatches(100, 0)).toThrow(RangeError);
  });
});

describe('withdrawalStatusOf', () => {
  it.each([
    [['PENDING'], 'REQUESTED'],
    [['PENDING', 'PENDING'], 'REQUESTED'],
    [['ERROR', 'PENDING'], 'REQUESTED'],
    [['PAID', 'PENDING'], 'PARTIALLY_PAID'],
    [['PAID', 'ERROR'], 'PARTIALLY_PAID'],
    [['PAID', 'ERROR', 'PENDING'], 'PARTIALLY_PAID'],
    [['PAID'], 'PAID'],
    [['PAID', 'PAID', 'PAID'], 'PAID'],
    [['ERROR'], 'ERROR'],
    [['ERROR', 'ERROR'], 'ERROR'],
  ] as const)('%j → %s', (batches, status) => {
    expect(withdrawalStatusOf(batches)).toBe(status);
  });
  it('refuses a withdrawal without batches', () => {
    expect(() => withdrawalStatusOf([])).toThrow(RangeError);
  });
  it('is settled only when no batch is pending', () => {
    expect(isSettled(['PAID', 'ERROR'])).toBe(true);
    expect(isSettled(['PAID', 'PENDING'])).toBe(false);
  });
});

describe('eventForTransition', () => {
  it('records an event for every status change', () => {
    expect(eventForTransition('REQUESTED', 'PAID', true)).toBe('withdraw.paid');
    expect(eventForTransition('REQUESTED', 'ERROR', true)).toBe('withdraw.error');
    expect(eventForTransition('REQUESTED', 'PARTIALLY_PAID', false)).toBe('withdraw.partially_paid');
    expect(eventForTransition('PARTIALLY_PAID', 'PAID', true)).toBe('withdraw.paid');
  });
  it('records nothing while the status stays the same and batches remain', () => {
    expect(eventForTransition('REQUESTED', 'REQUESTED', false)).toBeNull();
    expect(eventForTransition('PARTIALLY_PAID', 'PARTIALLY_PAID', false)).toBeNull();
  });
  it('records partially_paid again when a partially paid withdrawal settles', () => {
    expect(eventForTransition('PARTIALLY_PAID', 'PARTIALLY_PAID', true)).toBe('withdraw.partially_paid');
  });
});

describe('sandbox rail', () => {
  const rail = sandboxRail(2000);
  const order = (o: Partial<PixPaymentOrder> = {}): PixPaymentOrder => ({
    batchId: 'wdb_x', withdrawalId: 'wd_x', accountId: 'acc_x', seq: 0, amount: 100,
    key: 'fulano@example.com', keyType: 'EMAIL', receiverName: 'Fulano de Tal', receiverDocument: '52998224725', ...o,
  });
  const now = new Date('2026-03-04T05:06:07.000Z');

  it('is due SANDBOX_SETTLEMENT_DELAY_MS after the request', () => {
    expect(rail.firstAttemptAt(now).toISOString()).toBe('2026-03-04T05:06:09.000Z');
  });
  it('pays to a real bank of the directory with a valid end-to-end id', async () => {
    const out = await rail.pay(order(), now);
    if (out.status !== 'PAID') throw new Error('expected PAID');
    expect(out.endToEndId).toHaveLength(32);
    expect(isValidEndToEndId(out.endToEndId)).toBe(true);
    expect(out.endToEndId.slice(9, 21)).toBe('202603040506');
    const bank = participantByIspb(out.receiverBankIspb);
    expect(bank?.shortName).toBe(out.receiverBank);
    expect(bank).toBe(pickReceiverBank('fulano@example.com'));
    // the receiver is the directory's holder of the key, never the typed name
    const entry = await rail.lookup('EMAIL', 'fulano@example.com');
    expect(out.receiverName).toBe(entry!.holder.name);
    expect(out.receiverName).not.toBe('Fulano de Tal');
  });
  it('fails every batch of fail@sandbox.test', async () => {
    for (const seq of [0, 1, 2]) expect((await rail.pay(order({ key: SANDBOX_FAIL_KEY, seq }), now)).status).toBe('ERROR');
  });
  it('pays only the first batch of partial@sandbox.test', async () => {
    expect((await rail.pay(order({ key: SANDBOX_PARTIAL_KEY, seq: 0 }), now)).status).toBe('PAID');
    expect((await rail.pay(order({ key: SANDBOX_PARTIAL_KEY, seq: 1 }), now)).status).toBe('ERROR');
    expect((await rail.pay(order({ key: SANDBOX_PARTIAL_KEY, seq: 2 }), now)).status).toBe('ERROR');
  });
  it('treats the magic addresses as magic only for EMAIL keys', async () => {
    expect((await rail.pay(order({ key: SANDBOX_FAIL_KEY, keyType: 'EVP' }), now)).status).toBe('PAID');
  });
});

describe('the withdrawal request schema', () => {
  const base = { amount: 1000, description: null, details: { name: 'Maria Silva', document: '529.982.247-25' } };

  it('is where the key rules are checked, and hands the domain the canonical key', () => {
    // the domain stores input.key as it is: the schema must leave it canonical
    expect(withdrawalRequest.parse({ ...base, key: '529.982.247-25', key_type: 'CPF' }).key).toBe('52998224725');
    expect(withdrawalRequest.parse({ ...base, key: ' Fulano@Example.com ', key_type: 'EMAIL' }).key).toBe(normalized('EMAIL', ' Fulano@Example.com '));
    expect(pixKeyLookupInput.parse({ key: '529.982.247-25', key_type: 'CPF' }).key).toBe('52998224725');
  });

  it('refuses a key against its type and a document with wrong check digits', () => {
    const badKey = withdrawalRequest.safeParse({ ...base, key: '123', key_type: 'CPF' });
    expect(badKey.success).toBe(false);
    expect(badKey.error?.issues.map((i) => i.path.join('.'))).toEqual(['key']);
    const badDocument = withdrawalRequest.safeParse({ ...base, key: '52998224725', key_type: 'CPF', details: { name: 'Maria', document: '529.982.247-26' } });
    expect(badDocument.error?.issues.map((i) => i.path.join('.'))).toEqual(['details.document']);
  });
});

function normalized(type: 'EMAIL', key: string): string {
  const r = normalizePixKey(type, key);
  if (!r.ok) throw new Error(r.message);
  return r.key;
}
