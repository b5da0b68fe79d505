// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import {
  barcodeOfLine, boletoBarcode, digitableLine, dueDateAfter, dueDateFactor, mod10, mod11, sandboxInvoiceLine, SANDBOX_BANK_CODE, verifyDigitableLine,
} from '../../server/domain/transactions/invoice';

// Published pairs: BoletoPhp's Bradesco sample (barcode + line, due 2016-06-16, R$ 289,90) and a
// Banco do Brasil line used as a valid example by several open-source validators.
const BRADESCO_BARCODE = '23794682700000289901100060000000078901020030';
const BRADESCO_LINE = '23791.10006 60000.000079 89010.200304 4 68270000028990'.replace(/\D/g, '');
const BB_LINE = '00190500954014481606906809350314337370000000100';

// An independent reading of the check digits, written from the FEBRABAN description rather than
// from the module: field digits by mod 10 (2,1,2,1… from the right), general digit by mod 11.
function refMod10(s: string): number {
  const sum = [...s].reverse().map(Number).map((d, i) => (i % 2 ? d : d * 2)).map((p) => Math.floor(p / 10) + (p % 10)).reduce((a, b) => a + b, 0);
  return sum % 10 === 0 ? 0 : 10 - (sum % 10);
}
function refMod11(s: string): number {
  const w = [2, 3, 4, 5, 6, 7, 8, 9];
  const sum = [...s].reverse().map(Number).reduce((acc, d, i) => acc + d * w[i % 8], 0);
  const r = 11 - (sum % 11);
  return r > 9 || r === 0 ? 1 : r;
}

describe('boleto digitable line', () => {
  it('rebuilds a published barcode and its line from their parts', () => {
    expect(dueDateFactor('2016-06-16')).toBe('6827');
    const barcode = boletoBarcode({ bank: '237', factor: '6827', valueCents: 28990, freeField: BRADESCO_BARCODE.slice(19) });
    expect(barcode).toBe(BRADESCO_BARCODE);
    expect(digitableLine(barcode)).toBe(BRADESCO_LINE);
    expect(barcodeOfLine(BRADESCO_LINE)).toBe(BRADESCO_BARCODE);
    expect(verifyDigitableLine(BRADESCO_LINE)).toBe(true);
    expect(verifyDigitableLine(BB_LINE)).toBe(true);
  });

  it('refuses a line with any single digit changed', () => {
    for (let i = 0; i < 47; i++) {
      const changed = BRADESCO_LINE.slice(0, i) + ((Number(BRADESCO_LINE[i]) + 1) % 10) + BRADESCO_LINE.slice(i + 1);
      // a change inside factor+value or the free field breaks the general digit or a field digit
      expect(verifyDigitableLine(changed), `digit ${i}`).toBe(false);
    }
  });

  it('agrees with an independent mod 10 / mod 11', () => {
    for (const s of ['0', '9', '12345', '999999999', '2379110006', '6000000007', '00190000090']) expect(mod10(s)).toBe(refMod10(s));
    for (const bc of [BRADESCO_BARCODE, barcodeOfLine(BB_LINE)]) expect(mod11(bc.slice(0, 4) + bc.slice(5))).toBe(refMod11(bc.slice(0, 4) + bc.slice(5)));
  });

  it('computes due-date factors across the 2025 restart', () => {
    expect(dueDateFactor('2000-07-03')).toBe('1000');
    expect(dueDateFactor('2025-02-21')).toBe('9999');
    expect(dueDateFactor('2025-02-22')).toBe('1000');
    expect(dueDateFactor('2026-01-18')).toBe(String(1000 + 330));
  });

  it('issues sandbox lines that verify and carry bank, due date and value', () => {
    const due = dueDateAfter(new Date('2026-01-15T23:59:59Z'));
    expect(due).toBe('2026-01-18');
    // counted in São Paulo days: 22:30 in Brasília on the 15th is already the 16th in UTC
    expect(dueDateAfter(new Date('2026-01-16T01:30:00Z'))).toBe('2026-01-18');
    expect(dueDateAfter(new Date('2026-01-16T03:00:00Z'))).toBe('2026-01-19');
    expect(dueDateAfter(new Date('2026-12-30T23:00:00-03:00'))).toBe('2027-01-02');
    const line = sandboxInvoiceLine('inv_abc', 123456, due);
    expect(line).toMatch(/^\d{47}$/);
    expect(verifyDigitableLine(line)).toBe(true);
    expect(line.slice(0, 3)).toBe(SANDBOX_BANK_CODE);
    expect(line[3]).toBe('9');
    expect(line.slice(33, 37)).toBe(dueDateFactor(due));
    expect(line.slice(37)).toBe('0000123456');
    expect(sandboxInvoiceLine('inv_abc', 123456, due)).toBe(line);
    expect(sandboxInvoiceLine('inv_abd', 123456, due)).not.toBe(line);
    // above 10 digits of cents the value field is zero: the amount is on the slip
    expect(sandboxInvoiceLine('inv_big', 100_000_000_000, due).slice(37)).toBe('0000000000');
  });
});
