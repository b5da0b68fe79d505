// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { amountDue, componentesValorJson, dueDates, type AmountDue, type CobvValor } from '../../server/domain/pix-api/due-date';
import { parseCobvValor } from '../../server/domain/pix-api/due-date-input';
import { addCalendarDays, businessDaysAfterUntil } from '../../server/domain/pix-api/calendar';

// Each example starts from the `valor` JSON a client sends (the yaml's CobVValor), read by the parser the
// routes use, and asks the amount due on a payment day. Amounts in the expectations are cents.

interface Charge {
  valor: CobvValor;
  dataDeVencimento: string;
  validadeAposVencimento?: number;
}

function charge(valor: unknown, dataDeVencimento: string, validadeAposVencimento?: number): Charge {
  const parsed = parseCobvValor(valor, { dataDeVencimento });
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.issues)}`);
  return { valor: parsed.value, dataDeVencimento, validadeAposVencimento };
}

function dueOn(c: Charge, day: string): AmountDue {
  return amountDue(c.valor, { dataDeVencimento: c.dataDeVencimento, validadeAposVencimento: c.validadeAposVencimento }, day);
}

/** The amount due that day, with its components; fails the test when the payment is refused. */
function pay(c: Charge, day: string) {
  const r = dueOn(c, day);
  if (!r.payable) throw new Error(`refused on ${day}: ${r.reason}`);
  return { valor: r.valor, ...r.componentes };
}

const none = { multa: 0, juros: 0, abatimento: 0, desconto: 0 };

describe('the yaml\'s worked example and the BCB\'s', () => {
  it('R$100.00 paid 2 days late with a 3 % multa and 1 % a day of juros is R$105.00, componentesValor as the yaml shows', () => {
    const c = charge({ original: '100.00', multa: { modalidade: 2, valorPerc: '3.00' }, juros: { modalidade: 2, valorPerc: '1.00' } }, '2026-12-10');
    const r = dueOn(c, '2026-12-12');
    expect(r.payable && r.valor).toBe(10500);
    expect(r.payable && componentesValorJson(r.componentes)).toEqual({
      original: { valor: '100.00' },
      multa: { valor: '3.00' },
      juros: { valor: '2.00' },
    });
    // on time, the fees configured but not charged are left out: only what the payment carried
    const onTime = dueOn(c, '2026-12-10');
    expect(onTime.payable && componentesValorJson(onTime.componentes)).toEqual({ original: { valor: '100.00' } });
  });

  it('R$30,000.00 at 1 % a month (calendar days) 1 day late is R$10.00 of juros: the daily factor is not truncated (bacen/pix-api#607)', () => {
    const c = charge({ original: '30000.00', juros: { modalidade: 3, valorPerc: '1.00' } }, '2024-09-04');
    expect(pay(c, '2024-09-05')).toEqual({ valor: 3_001_000, original: 3_000_000, ...none, juros: 1000 });
  });
});

describe('validadeAposVencimento: the yaml\'s examples A–G, day by day', () => {
  const lastAccepted = (dataDeVencimento: string, validade: number) => {
    const c = charge({ original: '10.00' }, dataDeVencimento, validade);
    return dueDates(c).ultimoDia;
  };
  const accepted = (dataDeVencimento: string, validade: number, day: string) => dueOn(charge({ original: '10.00' }, dataDeVencimento, validade), day).payable;

  it('A: due Tuesday 2020-10-20, 4 days: the 4th day is a Saturday, so payable until Monday 26', () => {
    expect(lastAccepted('2020-10-20', 4)).toBe('2020-10-26');
    for (const d of ['2020-10-20', '2020-10-21', '2020-10-24', '2020-10-25', '2020-10-26']) expect(accepted('2020-10-20', 4, d)).toBe(true);
    expect(accepted('2020-10-20', 4, '2020-10-27')).toBe(false);
  });

  it('B–E: due on Christmas 2020 (a Friday), moved to Monday 28; validity counted from the 28th', () => {
    expect(lastAccepted('2020-12-25', 0)).toBe('2020-12-28');
    expect(accepted('2020-12-25', 0, '2020-12-26')).toBe(true);
    expect(accepted('2020-12-25', 0, '2020-12-29')).toBe(false);
    expect(lastAccepted('2020-12-25', 1)).toBe('2020-12-29');
    expect(accepted('2020-12-25', 1, '2020-12-30')).toBe(false);
    expect(lastAccepted('2020-12-25', 3)).toBe('2020-12-31');
    expect(accepted('2020-12-25', 3, '2021-01-01')).toBe(false);
    // E: the 4th day is New Year's Day, a holiday: payable until Monday 4 January
    expect(lastAccepted('2020-12-25', 4)).toBe('2021-01-04');
    expect(accepted('2020-12-25', 4, '2021-01-02')).toBe(true);
    expect(accepted('2020-12-25', 4, '2021-01-05')).toBe(false);
  });

  it('F: due Friday 2021-08-27, 5 days: the weekend counts, payable until Wednesday 1 September', () => {
    expect(lastAccepted('2021-08-27', 5)).toBe('2021-09-01');
    expect(accepted('2021-08-27', 5, '2021-09-02')).toBe(false);
  });

  it('G: due Saturday 2021-08-28, moved to Monday 30; 5 days end on Saturday 4, so payable until Monday 6', () => {
    expect(dueDates(charge({ original: '10.00' }, '2021-08-28', 5))).toEqual({ vencimento: '2021-08-30', ultimoDia: '2021-09-06' });
    expect(accepted('2021-08-28', 5, '2021-09-06')).toBe(true);
    expect(accepted('2021-08-28', 5, '2021-09-07')).toBe(false);
  });

  it('is 30 days when absent (the yaml\'s default)', () => {
    expect(dueDates({ dataDeVencimento: '2026-12-10' })).toEqual({ vencimento: '2026-12-10', ultimoDia: '2027-01-11' }); // 9 Jan is a Saturday
  });
});

describe('a payment after validadeAposVencimento', () => {
  it('is refused, saying which day was the last, whatever the charge\'s fees', () => {
    const c = charge({ original: '500.00', multa: { modalidade: 2, valorPerc: '2.00' }, juros: { modalidade: 2, valorPerc: '0.10' } }, '2026-12-10', 5);
    expect(pay(c, '2026-12-15')).toEqual({ valor: 50000 + 1000 + 250, original: 50000, ...none, multa: 1000, juros: 250 });
    expect(dueOn(c, '2026-12-16')).toEqual({ payable: false, reason: 'apos-validade', vencimento: '2026-12-10', ultimoDia: '2026-12-15' });
    expect(dueOn(c, '2027-06-01')).toMatchObject({ payable: false, reason: 'apos-validade' });
  });

  it('with validity 0, is refused the day after the (moved) due date', () => {
    const c = charge({ original: '80.00' }, '2026-02-17', 0); // Carnival Tuesday → Wednesday 18
    expect(pay(c, '2026-02-18').valor).toBe(8000);
    expect(dueOn(c, '2026-02-19')).toMatchObject({ payable: false, reason: 'apos-validade', ultimoDia: '2026-02-18' });
  });
});

describe('multa', () => {
  it('mode 1 (fixed value): nothing on the due date or before, the value once from the day after', () => {
    const c = charge({ original: '1000.00', multa: { modalidade: 1, valorPerc: '5.00' } }, '2026-12-10');
    expect(pay(c, '2026-12-01')).toEqual({ valor: 100000, original: 100000, ...none });
    expect(pay(c, '2026-12-10')).toEqual({ valor: 100000, original: 100000, ...none });
    expect(pay(c, '2026-12-11')).toEqual({ valor: 100500, original: 100000, ...none, multa: 500 });
    expect(pay(c, '2027-01-08')).toEqual({ valor: 100500, original: 100000, ...none, multa: 500 });
  });

  it('mode 2 (percentage of the original), rounded half up to the cent', () => {
    const late = (original: string, perc: string) => pay(charge({ original, multa: { modalidade: 2, valorPerc: perc } }, '2026-12-10'), '2026-12-11').multa;
    expect(late('1000.00', '2.00')).toBe(2000);
    expect(late('123.45', '2.00')).toBe(247); // 2.469
    expect(late('2.50', '1.00')).toBe(3); // 2.5 cents: half up (half to even would give 2)
    expect(late('0.24', '2.00')).toBe(0); // 0.48 cents
    expect(late('0.25', '2.00')).toBe(1); // 0.5 cents
    expect(late('500000000.00', '100.00')).toBe(50_000_000_000); // the total, 1000000000.00, is the ceiling itself
  });

  it('paid on a Saturday after a Friday due date is late (Pix settles every day)', () => {
    const c = charge({ original: '100.00', multa: { modalidade: 2, valorPerc: '2.00' } }, '2026-11-27');
    expect(pay(c, '2026-11-28').multa).toBe(200);
  });
});

describe('juros: every mode, due Thursday 2026-12-10, R$1,000.00, paid Monday 14 (4 calendar days, 2 business days late)', () => {
  const juros = (modalidade: number, valorPerc: string, paid = '2026-12-14', original = '1000.00', dataDeVencimento = '2026-12-10') =>
    pay(charge({ original, juros: { modalidade, valorPerc } }, dataDeVencimento), paid).juros;

  it('mode 1: a value per calendar day', () => {
    expect(juros(1, '0.50')).toBe(200);
    expect(juros(1, '0.50', '2026-12-10')).toBe(0);
    expect(juros(1, '0.50', '2026-12-11')).toBe(50);
  });
  it('mode 2: a percentage per calendar day', () => {
    expect(juros(2, '1.00')).toBe(4000);
    expect(juros(2, '0.33', '2026-12-11', '10.00')).toBe(3); // 3.3 cents
  });
  it('mode 3: a percentage per month over 30 calendar days', () => {
    expect(juros(3, '1.00')).toBe(133); // 1000 × 1 % × 4/30 = 1.3333
    expect(juros(3, '3.00', '2027-01-09')).toBe(3000); // 30 days late: one whole month
  });
  it('mode 4: a percentage per year over 365 calendar days', () => {
    expect(juros(4, '12.00')).toBe(132); // 1000 × 12 % × 4/365 = 1.31506
    expect(juros(4, '36.50', '2026-12-11')).toBe(100); // exactly 0.1 % a day
  });
  it('mode 5: a value per business day', () => {
    expect(juros(5, '0.50')).toBe(100);
    expect(juros(5, '0.50', '2026-12-12')).toBe(50); // Saturday: Friday 11 is the only business day past
  });
  it('mode 6: a percentage per business day', () => {
    expect(juros(6, '1.00')).toBe(2000);
  });
  it('mode 7: a percentage per month over 21 business days', () => {
    expect(juros(7, '1.00')).toBe(95); // 1000 × 1 % × 2/21 = 0.95238
    expect(juros(7, '2.10')).toBe(200); // exactly 0.1 % a business day
  });
  it('mode 8: a percentage per year over 252 business days', () => {
    expect(juros(8, '24.00')).toBe(190); // 1000 × 24 % × 2/252 = 1.90476
    expect(juros(8, '25.20')).toBe(200); // exactly 0.1 % a business day
  });

  it('runs across a year end: 5 calendar days, 2 business days (31 Dec, 4 Jan) from 30 Dec 2026 to 4 Jan 2027', () => {
    expect(juros(1, '1.00', '2027-01-04', '100.00', '2026-12-30')).toBe(500);
    expect(juros(5, '1.00', '2027-01-04', '100.00', '2026-12-30')).toBe(200);
  });

  it('runs across a leap day: due Friday 25 Feb 2028, paid Wednesday 1 March is 5 calendar days but 1 business day (weekend, Carnival on 28 and 29)', () => {
    expect(juros(2, '1.00', '2028-03-01', '100.00', '2028-02-25')).toBe(500);
    expect(juros(6, '1.00', '2028-03-01', '100.00', '2028-02-25')).toBe(100);
    // the same dates of a common year: Friday 26 Feb 2027 to Monday 1 March is 3 days
    expect(juros(2, '1.00', '2027-03-01', '100.00', '2027-02-26')).toBe(300);
  });

  it('runs across a month end: due 30 April 2026, paid 4 May, 1 May a holiday', () => {
    expect(juros(1, '1.00', '2026-05-04', '100.00', '2026-04-30')).toBe(400);
    expect(juros(5, '1.00', '2026-05-04', '100.00', '2026-04-30')).toBe(100); // only Monday 4
  });
});

describe('a due date that is not a business day', () => {
  const fees = { original: '100.00', multa: { modalidade: 2, valorPerc: '2.00' }, juros: { modalidade: 1, valorPerc: '0.10' } };

  it('on Carnival Tuesday 2026: payable without fees on Ash Wednesday, late from Thursday, juros from the moved date', () => {
    const c = charge(fees, '2026-02-17');
    expect(dueOn(c, '2026-02-17')).toMatchObject({ payable: true, valor: 10000, vencimento: '2026-02-18', diasDeAtraso: 0 });
    expect(pay(c, '2026-02-18')).toEqual({ valor: 10000, original: 10000, ...none });
    expect(pay(c, '2026-02-19')).toEqual({ valor: 10000 + 200 + 10, original: 10000, ...none, multa: 200, juros: 10 });
  });

  it('on Good Friday 2026: the weekend and Monday are still on time', () => {
    const c = charge(fees, '2026-04-03');
    for (const d of ['2026-04-03', '2026-04-04', '2026-04-05', '2026-04-06']) expect(pay(c, d).valor).toBe(10000);
    expect(pay(c, '2026-04-07')).toMatchObject({ multa: 200, juros: 10 });
  });

  it('on 20 November 2026 (a Friday): moved to Monday 23; the same date in 2023 (a Monday, no national holiday yet) is not moved', () => {
    expect(pay(charge(fees, '2026-11-20'), '2026-11-23').valor).toBe(10000);
    expect(pay(charge(fees, '2026-11-20'), '2026-11-24')).toMatchObject({ multa: 200, juros: 10 });
    expect(pay(charge(fees, '2023-11-20'), '2023-11-21')).toMatchObject({ multa: 200, juros: 10 });
  });

  it('on a Saturday: moved to Monday; Tuesday is 1 day late, not 3 (juros count from the moved date, DECISIONS)', () => {
    const c = charge(fees, '2026-11-28');
    expect(pay(c, '2026-11-30').valor).toBe(10000);
    expect(pay(c, '2026-12-01')).toEqual({ valor: 10210, original: 10000, ...none, multa: 200, juros: 10 });
  });

  it('on the leap day 29 Feb 2028, Carnival Tuesday: moved to 1 March', () => {
    const c = charge(fees, '2028-02-29', 0);
    expect(dueDates(c)).toEqual({ vencimento: '2028-03-01', ultimoDia: '2028-03-01' });
    expect(pay(c, '2028-03-01').valor).toBe(10000);
    expect(dueOn(c, '2028-03-02').payable).toBe(false);
  });
});

describe('abatimento', () => {
  it('mode 1 (fixed): deducted whatever the day, and multa stays a percentage of the original', () => {
    const c = charge({ original: '1000.00', abatimento: { modalidade: 1, valorPerc: '100.00' }, multa: { modalidade: 2, valorPerc: '2.00' } }, '2026-12-10');
    expect(pay(c, '2026-12-01')).toEqual({ valor: 90000, original: 100000, ...none, abatimento: 10000 });
    expect(pay(c, '2026-12-10')).toEqual({ valor: 90000, original: 100000, ...none, abatimento: 10000 });
    expect(pay(c, '2026-12-11')).toEqual({ valor: 92000, original: 100000, ...none, abatimento: 10000, multa: 2000 });
  });

  it('mode 2 (percentage of the original), rounded half up', () => {
    const c = charge({ original: '123.45', abatimento: { modalidade: 2, valorPerc: '10.00' } }, '2026-12-10');
    expect(pay(c, '2026-12-10')).toEqual({ valor: 12345 - 1235, original: 12345, ...none, abatimento: 1235 }); // 12.345
  });

  it('stops at R$0.01 due when a percentage under 100 % rounds to the whole original', () => {
    const tiny = charge({ original: '0.01', abatimento: { modalidade: 2, valorPerc: '99.99' } }, '2026-12-10');
    expect(pay(tiny, '2026-12-10')).toEqual({ valor: 1, original: 1, ...none });
    const one = charge({ original: '1.00', abatimento: { modalidade: 2, valorPerc: '99.99' } }, '2026-12-10');
    expect(pay(one, '2026-12-10')).toEqual({ valor: 1, original: 100, ...none, abatimento: 99 }); // 99.99 cents rounds to 100
  });
});

describe('desconto', () => {
  it('mode 1 (fixed values until dates, up to 3): the nearest date not yet passed applies, the given order does not matter', () => {
    const c = charge({
      original: '1000.00',
      multa: { modalidade: 1, valorPerc: '10.00' },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: '2026-12-10', valorPerc: '10.00' },
          { data: '2026-11-30', valorPerc: '50.00' },
          { data: '2026-12-05', valorPerc: '30.00' },
        ],
      },
    }, '2026-12-10');
    const desconto = (d: string) => pay(c, d).desconto;
    expect(desconto('2026-11-20')).toBe(5000);
    expect(desconto('2026-11-30')).toBe(5000); // until that date, inclusive
    expect(desconto('2026-12-01')).toBe(3000);
    expect(desconto('2026-12-05')).toBe(3000); // a Saturday: the tier's own date, not moved
    expect(desconto('2026-12-06')).toBe(1000);
    expect(desconto('2026-12-10')).toBe(1000);
    expect(pay(c, '2026-12-11')).toEqual({ valor: 101000, original: 100000, ...none, multa: 1000 });
    expect(pay(c, '2026-12-01').valor).toBe(97000);
  });

  it('mode 1 with one date on a due date that falls on a Saturday: that tier moves with the due date, an earlier one does not', () => {
    const c = charge({
      original: '200.00',
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2026-11-28', valorPerc: '10.00' }, { data: '2026-11-21', valorPerc: '20.00' }] },
    }, '2026-11-28');
    expect(pay(c, '2026-11-21').desconto).toBe(2000); // a Saturday too, the tier's own date
    expect(pay(c, '2026-11-23').desconto).toBe(1000);
    expect(pay(c, '2026-11-30')).toEqual({ valor: 19000, original: 20000, ...none, desconto: 1000 }); // the moved due date
  });

  it('mode 2 (percentages until dates), rounded half up', () => {
    const c = charge({
      original: '123.45',
      desconto: { modalidade: 2, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '5.00' }, { data: '2026-12-10', valorPerc: '2.50' }] },
    }, '2026-12-10');
    expect(pay(c, '2026-12-01')).toEqual({ valor: 12345 - 617, original: 12345, ...none, desconto: 617 }); // 6.1725
    expect(pay(c, '2026-12-02')).toEqual({ valor: 12345 - 309, original: 12345, ...none, desconto: 309 }); // 3.08625
    expect(pay(c, '2026-12-11').desconto).toBe(0);
  });

  it('mode 3 (value per calendar day of anticipation)', () => {
    const c = charge({ original: '1000.00', desconto: { modalidade: 3, valorPerc: '0.10' } }, '2026-12-10');
    expect(pay(c, '2026-12-01').desconto).toBe(90); // 9 days
    expect(pay(c, '2026-12-09').desconto).toBe(10);
    expect(pay(c, '2026-12-10').desconto).toBe(0);
    expect(pay(c, '2026-12-12').desconto).toBe(0);
  });

  it('mode 4 (value per business day of anticipation): the business days from the payment day to the due date', () => {
    const c = charge({ original: '1000.00', desconto: { modalidade: 4, valorPerc: '0.10' } }, '2026-12-10');
    expect(pay(c, '2026-12-01').desconto).toBe(70); // Tue 1 … Wed 9: 7 business days
    expect(pay(c, '2026-12-04').desconto).toBe(40); // Fri 4, Mon 7, Tue 8, Wed 9
    expect(pay(c, '2026-12-05').desconto).toBe(30); // from a Saturday: Mon 7, Tue 8, Wed 9
    // across a holiday: due Monday 23 Nov 2026, paid Thursday 19: Friday 20 is a holiday
    const h = charge({ original: '1000.00', desconto: { modalidade: 4, valorPerc: '0.10' } }, '2026-11-23');
    expect(pay(h, '2026-11-19').desconto).toBe(10);
  });

  it('mode 5 (percentage per calendar day of anticipation)', () => {
    const c = charge({ original: '1000.00', desconto: { modalidade: 5, valorPerc: '0.10' } }, '2026-12-10');
    expect(pay(c, '2026-12-01')).toEqual({ valor: 99100, original: 100000, ...none, desconto: 900 });
  });

  it('mode 6 (percentage per business day of anticipation), rounded half up', () => {
    const c = charge({ original: '123.45', desconto: { modalidade: 6, valorPerc: '0.15' } }, '2026-12-10');
    expect(pay(c, '2026-12-01').desconto).toBe(130); // 123.45 × 0.15 % × 7 = 1.296225
  });

  it('per day of anticipation, counts to the moved due date when the due date is a Saturday', () => {
    const c = charge({ original: '100.00', desconto: { modalidade: 3, valorPerc: '0.10' } }, '2026-11-28');
    expect(pay(c, '2026-11-26').desconto).toBe(40); // Thursday 26 → Monday 30
  });

  it('never takes the amount below R$0.01 (bacen/pix-api#408)', () => {
    const c = charge({ original: '10.00', desconto: { modalidade: 3, valorPerc: '1.00' } }, '2026-12-30');
    expect(pay(c, '2026-12-25')).toEqual({ valor: 500, original: 1000, ...none, desconto: 500 });
    expect(pay(c, '2026-12-10')).toEqual({ valor: 1, original: 1000, ...none, desconto: 999 });
  });
});

describe('everything at once', () => {
  const c = charge({
    original: '1500.00',
    multa: { modalidade: 2, valorPerc: '2.00' },
    juros: { modalidade: 3, valorPerc: '1.00' },
    abatimento: { modalidade: 1, valorPerc: '50.00' },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '75.00' }] },
  }, '2026-12-10', 60);

  it('before the discount date: original − abatimento − desconto', () => {
    expect(pay(c, '2026-11-30')).toEqual({ valor: 150000 - 5000 - 7500, original: 150000, ...none, abatimento: 5000, desconto: 7500 });
  });
  it('on the due date: original − abatimento', () => {
    expect(dueOn(c, '2026-12-10')).toMatchObject({ payable: true, valor: 145000, diasDeAtraso: 0, diasDeAntecipacao: 0 });
  });
  it('45 days late: original + 2 % + 1.5 months of 1 % − abatimento', () => {
    const r = dueOn(c, '2027-01-24');
    // juros 1500 × 1 % × 45/30 = 22.50; multa 30.00
    expect(r).toMatchObject({ payable: true, valor: 150000 + 3000 + 2250 - 5000, diasDeAtraso: 45 });
    expect(r.payable && componentesValorJson(r.componentes)).toEqual({
      original: { valor: '1500.00' }, multa: { valor: '30.00' }, juros: { valor: '22.50' }, abatimento: { valor: '50.00' },
    });
  });
});

describe('amounts that cannot be written', () => {
  it('refuses a payment whose juros would pass the ceiling (1000000000.00)', () => {
    const c = charge({ original: '1000000000.00', juros: { modalidade: 2, valorPerc: '100.00' } }, '2026-12-10');
    expect(dueOn(c, '2026-12-11')).toMatchObject({ payable: false, reason: 'valor-excede-limite' });
  });

  it('computes far validity without running past the calendar', () => {
    expect(dueDates({ dataDeVencimento: '2026-12-10', validadeAposVencimento: 2_147_483_647 }).ultimoDia).toBe('9999-12-31');
    const c = charge({ original: '1.00', juros: { modalidade: 5, valorPerc: '0.01' } }, '2026-12-10', 100_000);
    const juros = pay(c, '2126-12-10').juros; // one cent a business day for a century
    expect(juros).toBe(businessDaysAfterUntil('2026-12-10', '2126-12-10'));
    expect(juros).toBeGreaterThan(100 * 245);
    expect(juros).toBeLessThan(100 * 255);
  });
});

describe('what holds for any charge on any day (seeded random charges, reproducible)', () => {
  // mulberry32: a small deterministic generator, so a failure names a seed that reproduces it
  function generator(seed: number) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

  it('sums its components, never owes less than R$0.01, charges fees only when late and discounts only when early; juros never shrink and per-day discounts never grow as days pass', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const rand = generator(seed);
      const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
      const originalCents = int(1, 5_000_000);
      const dueDay = addCalendarDays('2026-01-01', int(0, 3 * 366));
      const valor: Record<string, unknown> = { original: money(originalCents) };
      const multaMode = int(0, 2);
      if (multaMode) valor.multa = { modalidade: multaMode, valorPerc: money(multaMode === 1 ? int(0, 100_000) : int(0, 2000)) };
      const jurosMode = int(0, 8);
      if (jurosMode) valor.juros = { modalidade: jurosMode, valorPerc: money(jurosMode === 1 || jurosMode === 5 ? int(0, 5000) : int(0, 1000)) };
      const abatimentoMode = int(0, 2);
      if (abatimentoMode) valor.abatimento = { modalidade: abatimentoMode, valorPerc: money(abatimentoMode === 1 ? int(0, originalCents - 1) : int(0, 9999)) };
      const descontoMode = int(0, 6);
      if (descontoMode === 1 || descontoMode === 2) {
        const tiers = [...new Set([int(0, 40), int(0, 40), int(0, 40)])].map((back) => ({
          data: addCalendarDays(dueDay, -back),
          valorPerc: money(descontoMode === 1 ? int(0, originalCents - 1) : int(0, 9999)),
        }));
        valor.desconto = { modalidade: descontoMode, descontoDataFixa: tiers };
      } else if (descontoMode) {
        valor.desconto = { modalidade: descontoMode, valorPerc: money(descontoMode <= 4 ? int(0, Math.max(0, originalCents - 1)) : int(0, 9999)) };
      }
      const c = charge(valor, dueDay, int(0, 60));
      const { vencimento, ultimoDia } = dueDates(c);

      let previous: ReturnType<typeof pay> | null = null;
      for (let day = addCalendarDays(dueDay, -45); day <= ultimoDia; day = addCalendarDays(day, 1)) {
        const r = pay(c, day);
        const where = `seed ${seed}, ${JSON.stringify(valor)} due ${dueDay} paid ${day}`;
        if (r.valor !== r.original + r.multa + r.juros - r.abatimento - r.desconto) throw new Error(`sum: ${where}`);
        if (r.valor < 1) throw new Error(`below 0.01: ${where}`);
        if (day <= vencimento && (r.multa !== 0 || r.juros !== 0)) throw new Error(`fees on time: ${where}`);
        if (day > vencimento && r.desconto !== 0) throw new Error(`discount when late: ${where}`);
        if (previous && r.juros < previous.juros) throw new Error(`juros shrank: ${where}`);
        if (previous && descontoMode >= 3 && r.desconto > previous.desconto) throw new Error(`per-day discount grew: ${where}`);
        if (previous && r.abatimento !== previous.abatimento) throw new Error(`abatimento changed: ${where}`);
        previous = r;
      }
      expect(dueOn(c, addCalendarDays(ultimoDia, 1)).payable).toBe(false);
    }
  });
});
