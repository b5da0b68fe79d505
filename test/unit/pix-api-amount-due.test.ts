// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { cobvAmountDueOn, type StoredCobv } from '../../server/domain/pix-api/amount-due';

/**
 * cobvAmountDueOn is the one reading of a stored cobv's amount on a day (the payload, the sandbox payer and
 * the dashboard all ask it): a day before the charge's criação, in São Paulo's calendar, is not payable.
 */
function storedCobv(criacao: string): StoredCobv {
  return {
    txid: 'cobvAmountDueCriacao0000000001',
    dueDate: '2026-03-20',
    body: JSON.stringify({
      calendario: { criacao, dataDeVencimento: '2026-03-20', validadeAposVencimento: 30 },
      valor: { original: '100.00' },
    }),
  };
}

describe('cobvAmountDueOn and the charge\'s criação', () => {
  it('refuses a day before the criação, naming the criação day', () => {
    const due = cobvAmountDueOn(storedCobv('2026-03-10T15:00:00.000Z'), '2026-03-09');
    expect(due).toMatchObject({ payable: false, reason: 'antes-da-criacao', criacao: '2026-03-10', ultimoDia: '2026-04-20' });
  });

  it('asks the amount on the criação day itself and after', () => {
    expect(cobvAmountDueOn(storedCobv('2026-03-10T15:00:00.000Z'), '2026-03-10')).toMatchObject({ payable: true, valor: 10_000 });
    expect(cobvAmountDueOn(storedCobv('2026-03-10T15:00:00.000Z'), '2026-03-20')).toMatchObject({ payable: true, valor: 10_000 });
  });

  it('reads the criação day in São Paulo, not in UTC', () => {
    // 02:00 UTC on the 11th is 23:00 on the 10th in São Paulo (UTC-3): the 10th is the criação day
    const charge = storedCobv('2026-03-11T02:00:00.000Z');
    expect(cobvAmountDueOn(charge, '2026-03-10')).toMatchObject({ payable: true, valor: 10_000 });
    expect(cobvAmountDueOn(charge, '2026-03-09')).toMatchObject({ payable: false, reason: 'antes-da-criacao', criacao: '2026-03-10' });
  });

  it('still refuses a day after the validity as before', () => {
    expect(cobvAmountDueOn(storedCobv('2026-03-10T15:00:00.000Z'), '2026-04-21')).toMatchObject({ payable: false, reason: 'apos-validade' });
  });
});
