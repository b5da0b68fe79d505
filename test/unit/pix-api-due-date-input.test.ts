// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { formatAmount, formatCobvValor, parseAmount, parseCobvCalendario, parseCobvValor, parsePercent, type ValorIssue } from '../../server/domain/pix-api/due-date-input';

/** The issues of a refusal; fails the test when it was accepted. */
function issuesOf(r: { ok: true } | { ok: false; issues: ValorIssue[] }): ValorIssue[] {
  if (r.ok) throw new Error('accepted');
  return r.issues;
}

describe('amounts "123.45" in cents', () => {
  it('reads 1 to 10 digits, a point and 2 digits', () => {
    expect(parseAmount('123.45', 'cobv.valor.original')).toEqual({ ok: true, value: 12345 });
    expect(parseAmount('0.01', 'x')).toEqual({ ok: true, value: 1 });
    expect(parseAmount('0010.00', 'x')).toEqual({ ok: true, value: 1000 });
    expect(parseAmount('1000000000.00', 'x')).toEqual({ ok: true, value: 100_000_000_000 }); // the ceiling (DECISIONS "Money")
    expect(parseAmount('1000000000.01', 'x')).toMatchObject({ ok: false });
    expect(parseAmount('0.00', 'x', { allowZero: true })).toEqual({ ok: true, value: 0 });
  });

  it('refuses every other spelling, naming the property and the value', () => {
    for (const bad of ['10', '10.5', '10.500', '-1.00', '+1.00', '1,00', ' 1.00', '1.00 ', '.50', '1e2', '12345678901.00', '', 10.5, 10, null, undefined, true, {}]) {
      expect(issuesOf(parseAmount(bad, 'cobv.valor.original'))).toEqual([
        { property: 'cobv.valor.original', reason: 'O campo cobv.valor.original não respeita o _schema_.', value: bad },
      ]);
    }
  });

  it('refuses zero unless allowed, and more than a ceiling', () => {
    expect(issuesOf(parseAmount('0.00', 'cobv.valor.original'))).toEqual([
      { property: 'cobv.valor.original', reason: 'O campo cobv.valor.original apresenta o valor zero.', value: '0.00' },
    ]);
    expect(issuesOf(parseAmount('50.01', 'cob.valor.original', { maxCents: 5000 }))[0]).toMatchObject({ property: 'cob.valor.original', value: '50.01' });
    expect(parseAmount('50.00', 'x', { maxCents: 5000 })).toEqual({ ok: true, value: 5000 });
  });

  it('writes cents back the same way', () => {
    expect(formatAmount(12345)).toBe('123.45');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(0)).toBe('0.00');
    expect(formatAmount(999_999_999_999)).toBe('9999999999.99');
    expect(() => formatAmount(1.5)).toThrow(RangeError);
    expect(() => formatAmount(-1)).toThrow(RangeError);
  });
});

describe('percentages "2.00" in basis points', () => {
  it('reads them up to 100.00 and refuses more, or a stricter bound', () => {
    expect(parsePercent('2.00', 'p')).toEqual({ ok: true, value: 200 });
    expect(parsePercent('0.01', 'p')).toEqual({ ok: true, value: 1 });
    expect(parsePercent('100.00', 'p')).toEqual({ ok: true, value: 10_000 });
    expect(issuesOf(parsePercent('100.01', 'cobv.valor.multa.valorPerc'))).toEqual([
      { property: 'cobv.valor.multa.valorPerc', reason: 'O campo cobv.valor.multa.valorPerc não é um percentual válido (máximo 100.00).', value: '100.01' },
    ]);
    expect(issuesOf(parsePercent('2', 'p'))[0].reason).toBe('O campo p não respeita o _schema_.');
    expect(issuesOf(parsePercent('0.00', 'p'))[0].reason).toBe('O campo p apresenta o valor zero.');
  });
});

describe('a cobv\'s valor', () => {
  const due = { dataDeVencimento: '2026-12-10' };

  it('reads every component into cents and basis points, tiers sorted by date', () => {
    expect(parseCobvValor({
      original: '123.45',
      multa: { modalidade: 2, valorPerc: '15.00' },
      juros: { modalidade: 2, valorPerc: '2.00' },
      abatimento: { modalidade: 1, valorPerc: '3.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '20.00' }, { data: '2026-11-30', valorPerc: '30.00' }] },
    }, due)).toEqual({
      ok: true,
      value: {
        original: 12345,
        multa: { modalidade: 2, valorPerc: 1500 },
        juros: { modalidade: 2, valorPerc: 200 },
        abatimento: { modalidade: 1, valorPerc: 300 },
        desconto: { modalidade: 1, descontoDataFixa: [{ data: '2026-11-30', valorPerc: 3000 }, { data: '2026-12-01', valorPerc: 2000 }] },
      },
    });
    expect(parseCobvValor({ original: '10.00' }, due)).toEqual({ ok: true, value: { original: 1000 } });
    // components other than original may be "0.00": the schema allows it, and it changes nothing
    expect(parseCobvValor({ original: '10.00', multa: { modalidade: 1, valorPerc: '0.00' } }, due)).toEqual({ ok: true, value: { original: 1000, multa: { modalidade: 1, valorPerc: 0 } } });
    expect(parseCobvValor({ original: '10.00', desconto: { modalidade: 6, valorPerc: '0.15' } }, due)).toEqual({ ok: true, value: { original: 1000, desconto: { modalidade: 6, valorPerc: 15 } } });
  });

  it('reads valorPerc as an amount or a percentage by mode: juros 1 and 5 are values, so "150.00" is fine there', () => {
    const juros = (modalidade: number) => parseCobvValor({ original: '1000.00', juros: { modalidade, valorPerc: '150.00' } }, due).ok;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(juros)).toEqual([true, false, false, false, true, false, false, false]);
    const multa = (modalidade: number) => parseCobvValor({ original: '1000.00', multa: { modalidade, valorPerc: '150.00' } }, due).ok;
    expect([1, 2].map(multa)).toEqual([true, false]);
  });

  it('refuses a modalidade out of range or not an integer, naming it (the yaml\'s example "2" included)', () => {
    for (const [key, modalidade] of [['multa', 3], ['multa', 0], ['juros', 9], ['abatimento', 3], ['desconto', 7], ['juros', '2'], ['multa', 1.5], ['juros', null]] as const) {
      const issues = issuesOf(parseCobvValor({ original: '10.00', [key]: { modalidade, valorPerc: '1.00' } }, due));
      expect(issues[0]).toMatchObject({ property: `cobv.valor.${key}.modalidade`, value: modalidade });
    }
  });

  it('refuses original missing, malformed or zero', () => {
    expect(issuesOf(parseCobvValor({}, due))).toEqual([{ property: 'cobv.valor.original', reason: 'O campo cobv.valor.original não respeita o _schema_.', value: undefined }]);
    expect(issuesOf(parseCobvValor({ original: '10' }, due))[0]).toMatchObject({ property: 'cobv.valor.original', value: '10' });
    expect(issuesOf(parseCobvValor({ original: '0.00' }, due))[0]).toMatchObject({ property: 'cobv.valor.original', reason: 'O campo cobv.valor.original apresenta o valor zero.' });
    expect(issuesOf(parseCobvValor('10.00', due))[0]).toMatchObject({ property: 'cobv.valor' });
  });

  it('refuses an abatimento at or above the original or 100 %', () => {
    const abatimento = (modalidade: number, valorPerc: string) => parseCobvValor({ original: '100.00', abatimento: { modalidade, valorPerc } }, due);
    expect(abatimento(1, '99.99').ok).toBe(true);
    expect(issuesOf(abatimento(1, '100.00'))[0]).toMatchObject({ property: 'cobv.valor.abatimento', reason: expect.stringContaining('maior ou igual ao valor da cobrança original') });
    expect(abatimento(2, '99.99').ok).toBe(true);
    expect(issuesOf(abatimento(2, '100.00'))[0].property).toBe('cobv.valor.abatimento');
  });

  it('refuses the desconto shapes the yaml lists', () => {
    const desconto = (d: unknown) => issuesOf(parseCobvValor({ original: '100.00', desconto: d }, due));
    expect(desconto({ modalidade: 1, valorPerc: '1.00', descontoDataFixa: [{ data: '2026-12-01', valorPerc: '1.00' }] })[0]).toMatchObject({
      property: 'cobv.valor.desconto.valorPerc', reason: expect.stringContaining('modalidade no valor 1 ou 2, porém cobv.valor.desconto.valorPerc encontra-se preenchido'),
    });
    expect(desconto({ modalidade: 2 })[0]).toMatchObject({ property: 'cobv.valor.desconto.descontoDataFixa', reason: expect.stringContaining('está vazio ou nulo') });
    expect(desconto({ modalidade: 1, descontoDataFixa: [] })[0].property).toBe('cobv.valor.desconto.descontoDataFixa');
    expect(desconto({ modalidade: 3, valorPerc: '1.00', descontoDataFixa: [{ data: '2026-12-01', valorPerc: '1.00' }] })[0]).toMatchObject({
      property: 'cobv.valor.desconto.descontoDataFixa', reason: expect.stringContaining('está preenchido ou não nulo'),
    });
    expect(desconto({ modalidade: 5 })[0]).toMatchObject({ property: 'cobv.valor.desconto.valorPerc', reason: expect.stringContaining('não está preenchido') });
    // a date after the due date
    expect(desconto({ modalidade: 1, descontoDataFixa: [{ data: '2026-12-11', valorPerc: '1.00' }] })[0]).toMatchObject({
      property: 'cobv.valor.desconto.descontoDataFixa[0].data', value: '2026-12-11', reason: expect.stringContaining('posterior à data de vencimento'),
    });
    // a discount element at or above the original or 100 %
    expect(desconto({ modalidade: 1, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '100.00' }] })[0].reason).toContain('maior ou igual ao valor da cobrança original');
    expect(desconto({ modalidade: 2, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '100.00' }] })[0].reason).toContain('maior ou igual a 100%');
    expect(desconto({ modalidade: 4, valorPerc: '100.00' })[0].reason).toContain('maior ou igual ao valor da cobrança original');
    // more than 3 tiers, a repeated date, a malformed date or value
    const tiers = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'].map((data) => ({ data, valorPerc: '1.00' }));
    expect(desconto({ modalidade: 1, descontoDataFixa: tiers })[0].reason).toContain('mais de 3 elementos');
    expect(desconto({ modalidade: 1, descontoDataFixa: [tiers[0], { ...tiers[0], valorPerc: '2.00' }] })[0]).toMatchObject({ property: 'cobv.valor.desconto.descontoDataFixa[1].data' });
    expect(desconto({ modalidade: 1, descontoDataFixa: [{ data: '2026-02-30', valorPerc: '1.00' }] })[0].property).toBe('cobv.valor.desconto.descontoDataFixa[0].data');
    expect(desconto({ modalidade: 1, descontoDataFixa: [{ data: '2026-12-01', valorPerc: '1' }] })[0].property).toBe('cobv.valor.desconto.descontoDataFixa[0].valorPerc');
  });

  it('with the creation day, refuses deductions that could leave nothing to pay on a day the charge can be paid (bacen/pix-api#408)', () => {
    const today = '2026-11-27';
    const valor = (v: Record<string, unknown>) => parseCobvValor({ original: '10.00', ...v }, { ...due, today });
    // R$0.50 a calendar day, 13 days before 10 Dec: 6.50, fine; R$0.80 a day: 10.40, refused
    expect(valor({ desconto: { modalidade: 3, valorPerc: '0.50' } }).ok).toBe(true);
    expect(issuesOf(valor({ desconto: { modalidade: 3, valorPerc: '0.80' } }))).toEqual([{
      property: 'cobv.valor.desconto',
      reason: 'O objeto cobv.valor.desconto pode levar o valor da cobrança a zero (pagamento em 2026-11-27).',
      value: { modalidade: 3, valorPerc: '0.80' },
    }]);
    // the same discount created on 5 Dec accumulates only 5 days: accepted
    expect(parseCobvValor({ original: '10.00', desconto: { modalidade: 3, valorPerc: '0.80' } }, { ...due, today: '2026-12-05' }).ok).toBe(true);
    // per business day: 9 business days from 27 Nov to 10 Dec; 1.11 a day is 9.99, 1.12 is 10.08
    expect(valor({ desconto: { modalidade: 4, valorPerc: '1.11' } }).ok).toBe(true);
    expect(valor({ desconto: { modalidade: 4, valorPerc: '1.12' } }).ok).toBe(false);
    // a tier and an abatimento, each under the original, together reaching it; the tier's date passed is no longer counted
    const tier = (data: string) => ({ abatimento: { modalidade: 1, valorPerc: '4.00' }, desconto: { modalidade: 1, descontoDataFixa: [{ data, valorPerc: '6.00' }] } });
    expect(issuesOf(valor(tier('2026-12-01')))[0]).toMatchObject({
      property: 'cobv.valor.desconto', reason: 'O objeto cobv.valor.desconto, somado ao abatimento, pode levar o valor da cobrança a zero (pagamento em 2026-11-27).',
    });
    expect(parseCobvValor({ original: '10.00', ...tier('2026-12-01') }, { ...due, today: '2026-12-02' }).ok).toBe(true);
    // without `today`, only the yaml's element-by-element checks
    expect(parseCobvValor({ original: '10.00', desconto: { modalidade: 3, valorPerc: '0.80' } }, due).ok).toBe(true);
    // 99.99 % of R$0.01 rounds to the whole of it
    expect(issuesOf(parseCobvValor({ original: '0.01', abatimento: { modalidade: 2, valorPerc: '99.99' } }, { ...due, today }))[0]).toMatchObject({
      property: 'cobv.valor.abatimento', reason: 'O objeto cobv.valor.abatimento pode levar o valor da cobrança a zero (pagamento em 2026-11-27).',
    });
  });

  it('reports every refused property at once, under the path it is given', () => {
    const issues = issuesOf(parseCobvValor({
      original: '10.5',
      multa: { modalidade: 2, valorPerc: '200.00' },
      juros: { modalidade: 9, valorPerc: '1.00' },
      desconto: { modalidade: 3 },
    }, { ...due, path: 'valor' }));
    expect(issues.map((i) => i.property)).toEqual(['valor.original', 'valor.multa.valorPerc', 'valor.juros.modalidade', 'valor.desconto.valorPerc']);
  });
});

describe('a cobv\'s valor written back', () => {
  const due = { dataDeVencimento: '2026-12-10' };

  it('gives back the JSON it was read from, with tiers in date order and leading zeros dropped', () => {
    const sent = {
      original: '0123.45',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 7, valorPerc: '1.50' },
      abatimento: { modalidade: 1, valorPerc: '3.05' },
      desconto: { modalidade: 2, descontoDataFixa: [{ data: '2026-12-10', valorPerc: '1.00' }, { data: '2026-11-30', valorPerc: '5.00' }] },
    };
    const parsed = parseCobvValor(sent, due);
    if (!parsed.ok) throw new Error('refused');
    expect(formatCobvValor(parsed.value)).toEqual({
      ...sent,
      original: '123.45',
      desconto: { modalidade: 2, descontoDataFixa: [{ data: '2026-11-30', valorPerc: '5.00' }, { data: '2026-12-10', valorPerc: '1.00' }] },
    });
    expect(parseCobvValor(formatCobvValor(parsed.value), due)).toEqual(parsed);
    expect(formatCobvValor({ original: 1, desconto: { modalidade: 4, valorPerc: 5 } })).toEqual({ original: '0.01', desconto: { modalidade: 4, valorPerc: '0.05' } });
  });
});

describe('a cobv\'s calendario', () => {
  const today = '2026-11-27';

  it('reads the due date and validity, 30 by default; the due date may be today', () => {
    expect(parseCobvCalendario({ dataDeVencimento: '2026-12-10', validadeAposVencimento: 5 }, { today })).toEqual({ ok: true, value: { dataDeVencimento: '2026-12-10', validadeAposVencimento: 5 } });
    expect(parseCobvCalendario({ dataDeVencimento: '2026-11-27' }, { today })).toEqual({ ok: true, value: { dataDeVencimento: '2026-11-27', validadeAposVencimento: 30 } });
    expect(parseCobvCalendario({ dataDeVencimento: '2026-11-27', validadeAposVencimento: 0 }, { today }).ok).toBe(true);
  });

  it('refuses a due date in the past or not a date, and a validity negative or not an integer', () => {
    expect(issuesOf(parseCobvCalendario({ dataDeVencimento: '2026-11-26' }, { today }))).toEqual([{
      property: 'cobv.calendario.dataDeVencimento', reason: 'O campo cobv.calendario.dataDeVencimento é anterior à data de criação da cobrança.', value: '2026-11-26',
    }]);
    expect(issuesOf(parseCobvCalendario({ dataDeVencimento: '2027-02-29' }, { today }))[0].property).toBe('cobv.calendario.dataDeVencimento');
    expect(issuesOf(parseCobvCalendario({}, { today }))[0].property).toBe('cobv.calendario.dataDeVencimento');
    expect(issuesOf(parseCobvCalendario({ dataDeVencimento: '2026-12-10', validadeAposVencimento: -1 }, { today }))).toEqual([{
      property: 'cobv.calendario.validadeAposVencimento', reason: 'O campo cobv.calendario.validadeAposVencimento é menor do que zero.', value: -1,
    }]);
    for (const v of [1.5, '5', 2_147_483_648]) {
      expect(issuesOf(parseCobvCalendario({ dataDeVencimento: '2026-12-10', validadeAposVencimento: v }, { today }))[0]).toMatchObject({ property: 'cobv.calendario.validadeAposVencimento', value: v });
    }
  });
});
