// Boleto bancário ("ficha de compensação", FEBRABAN layout): the 44-digit barcode and the 47-digit
// digitable line a payer types in. The sandbox issues them for INVOICE transactions; a real PSP
// adapter would supply its own bank code and "campo livre" (the bank's part: agency, account, our number).
import { createHash } from 'node:crypto';
import { addDays, localDay } from '../local-time';

/** Not a COMPE code of any bank: a sandbox boleto must never look like a real bank's. */
export const SANDBOX_BANK_CODE = '999';
const CURRENCY_BRL = '9';
export const INVOICE_DUE_DAYS = 3;

// Due-date factor: days since 1997-10-07. It reached 9999 on 2025-02-21 and restarted at 1000 on
// 2025-02-22 (FEBRABAN), so factors cycle through 1000..9999.
const FACTOR_BASE = Date.UTC(1997, 9, 7);
const DAY_MS = 86_400_000;

export function dueDateFactor(dueDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dueDate);
  if (!m) throw new RangeError(`boleto: due date must be YYYY-MM-DD (got ${dueDate})`);
  const days = Math.round((Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - FACTOR_BASE) / DAY_MS);
  if (days < 1000) throw new RangeError('boleto: due date before 2000-07-03 has no factor');
  return String(((days - 1000) % 9000) + 1000);
}

/** Mod 10 check digit of a digitable-line field: weights 2,1,2,1… from the right, products' digits summed. */
export function mod10(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let p = (digits.charCodeAt(digits.length - 1 - i) - 48) * (i % 2 === 0 ? 2 : 1);
    if (p > 9) p -= 9;
    sum += p;
  }
  return (10 - (sum % 10)) % 10;
}

/** Mod 11 general check digit of the barcode: weights 2..9 from the right; 0, 10 and 11 become 1. */
export function mod11(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(digits.length - 1 - i) - 48) * (2 + (i % 8));
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

export interface BoletoParts {
  bank: string; // 3 digits
  factor: string; // 4 digits
  /** Cents; above 10 digits the value field is zero ("value stated on the slip"). */
  valueCents: number;
  freeField: string; // 25 digits
}

/** bank(3) currency(1) DV(1) factor(4) value(10) free field(25). */
export function boletoBarcode(p: BoletoParts): string {
  if (!/^\d{3}$/.test(p.bank) || !/^\d{4}$/.test(p.factor) || !/^\d{25}$/.test(p.freeField)) {
    throw new RangeError('boleto: bank is 3 digits, factor 4, free field 25');
  }
  const value = p.valueCents <= 9_999_999_999 ? String(p.valueCents).padStart(10, '0') : '0'.repeat(10);
  const withoutDv = p.bank + CURRENCY_BRL + p.factor + value + p.freeField;
  return withoutDv.slice(0, 4) + mod11(withoutDv) + withoutDv.slice(4);
}

/** The 47-digit line of a 44-digit barcode: three fields with their mod-10 digit, the general digit, factor+value. */
export function digitableLine(barcode: string): string {
  if (!/^\d{44}$/.test(barcode)) throw new RangeError('boleto: a barcode has 44 digits');
  const free = barcode.slice(19);
  const f1 = barcode.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return f1 + mod10(f1) + f2 + mod10(f2) + f3 + mod10(f3) + barcode[4] + barcode.slice(5, 19);
}

/** Back from the line to the barcode (for checks and for the dashboard's barcode image). */
export function barcodeOfLine(line: string): string {
  if (!/^\d{47}$/.test(line)) throw new RangeError('boleto: a digitable line has 47 digits');
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

/** True when the three field digits and the general digit of a 47-digit line all check. */
export function verifyDigitableLine(line: string): boolean {
  if (!/^\d{47}$/.test(line)) return false;
  const fields: [string, string][] = [[line.slice(0, 9), line[9]], [line.slice(10, 20), line[20]], [line.slice(21, 31), line[31]]];
  if (fields.some(([f, dv]) => String(mod10(f)) !== dv)) return false;
  const barcode = barcodeOfLine(line);
  return String(mod11(barcode.slice(0, 4) + barcode.slice(5))) === barcode[4];
}

/** The sandbox's "campo livre": 25 digits drawn from the invoice id, so the line is reproducible. */
function sandboxFreeField(invoiceId: string): string {
  const n = BigInt('0x' + createHash('sha256').update(invoiceId).digest('hex')) % 10n ** 25n;
  return n.toString().padStart(25, '0');
}

/**
 * The due date `days` calendar days after `at`, counted in São Paulo days (a boleto is due on a
 * Brazilian day: a charge made at 22:00 in Brasília, already tomorrow in UTC, still counts from today).
 */
export function dueDateAfter(at: Date, days = INVOICE_DUE_DAYS): string {
  return addDays(localDay(at), days);
}

export function sandboxInvoiceLine(invoiceId: string, amountCents: number, dueDate: string): string {
  return digitableLine(boletoBarcode({ bank: SANDBOX_BANK_CODE, factor: dueDateFactor(dueDate), valueCents: amountCents, freeField: sandboxFreeField(invoiceId) }));
}
