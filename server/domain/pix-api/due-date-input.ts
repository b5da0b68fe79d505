// Reading the API Pix's strings into integers, and a `cobv`'s `valor` and `calendario` into the shapes
// due-date.ts computes with. The yaml writes amounts and percentages alike as `\d{1,10}\.\d{2}`
// ("123.45", "2.00"): both are read as an integer count of hundredths, cents for an amount and basis
// points for a percentage, so no float ever holds money. Refusals name the property the standard's
// `violacoes` expect (`cobv.valor.juros.modalidade`) with the value received; the error shape itself is
// the edge's.

import { MAX_AMOUNT_CENTS } from '../../../contract/bcb/common';
import { calendarDaysBetween, isDay } from './calendar';
import { deductionsReachOriginal, formatHundredths, type CobvCalendario, type CobvValor, type DescontoDataFixa } from './due-date';

/** One refused property: `propriedade`, `razao` and `valor` of a violação, before the edge names them. */
export interface ValorIssue {
  property: string;
  reason: string;
  value: unknown;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: ValorIssue[] };

/** The ceiling of every amount (DECISIONS "Money"), the contract's: below what the yaml's pattern could write. */
export { MAX_AMOUNT_CENTS };
/** 100.00 %: the largest percentage any mode accepts (see parsePercent). */
export const HUNDRED_PERCENT_BP = 10_000;
/** The yaml's int32 `validadeAposVencimento`. */
const INT32_MAX = 2_147_483_647;

const DECIMAL_PATTERN = /^(\d{1,10})\.(\d{2})$/;

function schemaIssue(property: string, value: unknown): ValorIssue {
  return { property, reason: `O campo ${property} não respeita o _schema_.`, value };
}

function hundredths(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = DECIMAL_PATTERN.exec(value);
  return m ? Number(m[1]) * 100 + Number(m[2]) : null;
}

/**
 * An amount `"123.45"` in integer cents. Refused: anything but a string of 1 to 10 digits, a point and
 * exactly 2 digits (`"10"`, `"10.5"`, `"-1.00"`, `"1,00"`, `10.5`), zero unless `allowZero`, and more than
 * `maxCents` (default the contract's ceiling, MAX_AMOUNT_CENTS).
 */
export function parseAmount(value: unknown, property: string, opts: { allowZero?: boolean; maxCents?: number } = {}): Parsed<number> {
  const cents = hundredths(value);
  if (cents === null) return { ok: false, issues: [schemaIssue(property, value)] };
  if (cents === 0 && !opts.allowZero) return { ok: false, issues: [{ property, reason: `O campo ${property} apresenta o valor zero.`, value }] };
  const max = opts.maxCents ?? MAX_AMOUNT_CENTS;
  if (cents > max) return { ok: false, issues: [{ property, reason: `O campo ${property} excede o valor máximo permitido (${formatHundredths(max)}).`, value }] };
  return { ok: true, value: cents };
}

/**
 * A percentage `"2.00"` in integer basis points (200). Same pattern as an amount. Refused above
 * `maxBasisPoints` (default 100.00 %: a "percentage" above the whole is taken for a mistaken amount;
 * a caller that wants a strict bound, as abatimento and desconto do, passes it), and zero unless
 * `allowZero`.
 */
export function parsePercent(value: unknown, property: string, opts: { allowZero?: boolean; maxBasisPoints?: number } = {}): Parsed<number> {
  const bp = hundredths(value);
  if (bp === null) return { ok: false, issues: [schemaIssue(property, value)] };
  if (bp === 0 && !opts.allowZero) return { ok: false, issues: [{ property, reason: `O campo ${property} apresenta o valor zero.`, value }] };
  const max = opts.maxBasisPoints ?? HUNDRED_PERCENT_BP;
  if (bp > max) return { ok: false, issues: [{ property, reason: `O campo ${property} não é um percentual válido (máximo ${formatHundredths(max)}).`, value }] };
  return { ok: true, value: bp };
}

/** Amounts in cents as the yaml writes them ("123.45"). */
export const formatAmount = formatHundredths;
/** Percentages in basis points as the yaml writes them ("2.00"). */
export const formatPercent = formatHundredths;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function modalidadeOf(obj: Record<string, unknown>, path: string, max: number, issues: ValorIssue[]): number | null {
  const m = obj.modalidade;
  // The yaml types modalidade as an integer (its cobBody1 example writes "2"; the schema wins, as a
  // client generated from it sends numbers): a string is refused, not coerced.
  if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > max) {
    issues.push({ property: `${path}.modalidade`, reason: `O campo ${path}.modalidade deve ser um inteiro de 1 a ${max}.`, value: m });
    return null;
  }
  return m;
}

function collect<T>(result: Parsed<T>, issues: ValorIssue[]): T | null {
  if (result.ok) return result.value;
  issues.push(...result.issues);
  return null;
}

/**
 * A `cobv`'s `valor` (CobVValor, with `original` required as the creation schema says) checked and read
 * into integers; `dataDeVencimento` is the charge's due date, which fixed-date discounts may not pass.
 * Checks the yaml's list for CobVOperacaoInvalida: the schema of each object, `original` zero, an
 * abatimento or any discount element at or above the original (or 100 %), a discount date after the
 * due date, modes 1–2 without `descontoDataFixa` or with `valorPerc`, modes 3–6 without `valorPerc` or
 * with `descontoDataFixa`. Our own choices, beyond the yaml: two discount tiers with the same date are
 * refused (which one would apply?); a percentage above 100.00 is refused for every mode; components other
 * than `original` may be "0.00" (the schema allows it and it changes nothing); unknown properties inside
 * `valor` are left to the edge's schema check (CobVValor does not forbid them). With `today` (the day of
 * the creation or revision, São Paulo), also refused: an abatimento and discount that together could
 * take the amount due to zero on a day it can still be paid (bacen/pix-api#408).
 */
export function parseCobvValor(input: unknown, ctx: { dataDeVencimento: string; today?: string; path?: string }): Parsed<CobvValor> {
  const path = ctx.path ?? 'cobv.valor';
  if (!isObject(input)) return { ok: false, issues: [{ property: path, reason: `O objeto ${path} não respeita o _schema_.`, value: input }] };
  const issues: ValorIssue[] = [];
  const original = collect(parseAmount(input.original, `${path}.original`), issues);
  const valor: CobvValor = { original: original ?? 0 };

  if (input.multa !== undefined) {
    const p = `${path}.multa`;
    if (!isObject(input.multa)) issues.push({ property: p, reason: `O objeto ${p} não respeita o _schema_.`, value: input.multa });
    else {
      const modalidade = modalidadeOf(input.multa, p, 2, issues);
      const v = input.multa.valorPerc;
      const valorPerc = modalidade === 2 ? collect(parsePercent(v, `${p}.valorPerc`, { allowZero: true }), issues)
        : collect(parseAmount(v, `${p}.valorPerc`, { allowZero: true }), issues);
      if (modalidade !== null && valorPerc !== null) valor.multa = { modalidade: modalidade as 1 | 2, valorPerc };
    }
  }

  if (input.juros !== undefined) {
    const p = `${path}.juros`;
    if (!isObject(input.juros)) issues.push({ property: p, reason: `O objeto ${p} não respeita o _schema_.`, value: input.juros });
    else {
      const modalidade = modalidadeOf(input.juros, p, 8, issues);
      const v = input.juros.valorPerc;
      // modes 1 and 5 are a value per day, the others a percentage per day, month or year
      const valorPerc = modalidade === 1 || modalidade === 5 || modalidade === null ? collect(parseAmount(v, `${p}.valorPerc`, { allowZero: true }), issues)
        : collect(parsePercent(v, `${p}.valorPerc`, { allowZero: true }), issues);
      if (modalidade !== null && valorPerc !== null) valor.juros = { modalidade: modalidade as 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8, valorPerc };
    }
  }

  if (input.abatimento !== undefined) {
    const p = `${path}.abatimento`;
    if (!isObject(input.abatimento)) issues.push({ property: p, reason: `O objeto ${p} não respeita o _schema_.`, value: input.abatimento });
    else {
      const modalidade = modalidadeOf(input.abatimento, p, 2, issues);
      const v = input.abatimento.valorPerc;
      const valorPerc = modalidade === 2 ? collect(parsePercent(v, `${p}.valorPerc`, { allowZero: true }), issues)
        : collect(parseAmount(v, `${p}.valorPerc`, { allowZero: true }), issues);
      if (modalidade !== null && valorPerc !== null) {
        if (modalidade === 2 ? valorPerc >= HUNDRED_PERCENT_BP : original !== null && valorPerc >= original) {
          issues.push({ property: p, reason: `O objeto ${p} representa um valor maior ou igual ao valor da cobrança original ou maior ou igual a 100%.`, value: input.abatimento });
        } else valor.abatimento = { modalidade: modalidade as 1 | 2, valorPerc };
      }
    }
  }

  if (input.desconto !== undefined) {
    const desconto = parseDesconto(input.desconto, `${path}.desconto`, original, ctx.dataDeVencimento, issues);
    if (desconto) valor.desconto = desconto;
  }

  if (issues.length > 0 || original === null) return { ok: false, issues };
  if (ctx.today && isDay(ctx.today) && isDay(ctx.dataDeVencimento) && (valor.desconto || valor.abatimento)
    && deductionsReachOriginal(valor, ctx.dataDeVencimento, ctx.today)) {
    const property = valor.desconto ? `${path}.desconto` : `${path}.abatimento`;
    const withAbatimento = valor.desconto && valor.abatimento ? ', somado ao abatimento,' : '';
    const reason = `O objeto ${property}${withAbatimento} pode levar o valor da cobrança a zero (pagamento em ${ctx.today}).`;
    return { ok: false, issues: [{ property, reason, value: input[valor.desconto ? 'desconto' : 'abatimento'] }] };
  }
  return { ok: true, value: valor };
}

function parseDesconto(input: unknown, p: string, original: number | null, dataDeVencimento: string, issues: ValorIssue[]): CobvValor['desconto'] | null {
  if (!isObject(input)) {
    issues.push({ property: p, reason: `O objeto ${p} não respeita o _schema_.`, value: input });
    return null;
  }
  const modalidade = modalidadeOf(input, p, 6, issues);
  if (modalidade === null) return null;
  const tooLarge = () => issues.push({ property: p, reason: `O objeto ${p} apresenta algum elemento de desconto que representa um valor maior ou igual ao valor da cobrança original ou maior ou igual a 100%.`, value: input });
  const percent = modalidade === 2 || modalidade === 5 || modalidade === 6;
  const readValue = (v: unknown, property: string) => (percent
    ? collect(parsePercent(v, property, { allowZero: true }), issues)
    : collect(parseAmount(v, property, { allowZero: true }), issues));
  const atOrAboveOriginal = (n: number) => (percent ? n >= HUNDRED_PERCENT_BP : original !== null && n >= original);

  if (modalidade === 1 || modalidade === 2) {
    if (input.valorPerc !== undefined && input.valorPerc !== null) {
      issues.push({ property: `${p}.valorPerc`, reason: `O objeto ${p} apresenta modalidade no valor 1 ou 2, porém ${p}.valorPerc encontra-se preenchido.`, value: input.valorPerc });
    }
    const list = input.descontoDataFixa;
    if (!Array.isArray(list) || list.length === 0) {
      issues.push({ property: `${p}.descontoDataFixa`, reason: `O objeto ${p} apresenta modalidade no valor 1 ou 2, porém o array ${p}.descontoDataFixa está vazio ou nulo.`, value: list });
      return null;
    }
    if (list.length > 3) {
      issues.push({ property: `${p}.descontoDataFixa`, reason: `O array ${p}.descontoDataFixa tem mais de 3 elementos.`, value: list });
      return null;
    }
    const tiers: DescontoDataFixa[] = [];
    let bad = false;
    list.forEach((item, i) => {
      const ip = `${p}.descontoDataFixa[${i}]`;
      if (!isObject(item)) {
        issues.push({ property: ip, reason: `O objeto ${ip} não respeita o _schema_.`, value: item });
        bad = true;
        return;
      }
      const data = item.data;
      if (typeof data !== 'string' || !isDay(data)) {
        issues.push(schemaIssue(`${ip}.data`, data));
        bad = true;
      } else if (isDay(dataDeVencimento) && calendarDaysBetween(dataDeVencimento, data) > 0) {
        issues.push({ property: `${ip}.data`, reason: `O objeto ${p} apresenta algum elemento cuja data seja posterior à data de vencimento representada por calendario.dataDeVencimento.`, value: data });
        bad = true;
      } else if (tiers.some((t) => t.data === data)) {
        issues.push({ property: `${ip}.data`, reason: `O array ${p}.descontoDataFixa apresenta mais de um elemento com a mesma data.`, value: data });
        bad = true;
      }
      const v = readValue(item.valorPerc, `${ip}.valorPerc`);
      if (v === null) bad = true;
      else if (atOrAboveOriginal(v)) {
        tooLarge();
        bad = true;
      }
      if (!bad && typeof data === 'string') tiers.push({ data, valorPerc: v as number });
    });
    if (bad) return null;
    return { modalidade, descontoDataFixa: tiers.sort((a, b) => calendarDaysBetween(b.data, a.data)) };
  }

  if (input.descontoDataFixa !== undefined && input.descontoDataFixa !== null) {
    issues.push({ property: `${p}.descontoDataFixa`, reason: `O objeto ${p} apresenta modalidade nos valores de 3 a 6, porém o elemento ${p}.descontoDataFixa está preenchido ou não nulo.`, value: input.descontoDataFixa });
    return null;
  }
  if (input.valorPerc === undefined || input.valorPerc === null) {
    issues.push({ property: `${p}.valorPerc`, reason: `O objeto ${p} apresenta modalidade nos valores de 3 a 6, porém o elemento ${p}.valorPerc não está preenchido.`, value: input.valorPerc });
    return null;
  }
  const v = readValue(input.valorPerc, `${p}.valorPerc`);
  if (v === null) return null;
  if (atOrAboveOriginal(v)) {
    tooLarge();
    return null;
  }
  return { modalidade: modalidade as 3 | 4 | 5 | 6, valorPerc: v };
}

/**
 * A `cobv`'s `calendario` (CobDataDeVencimento): `dataDeVencimento` a real date not before `today` (the
 * creation day, São Paulo), `validadeAposVencimento` an int32 ≥ 0, 30 when absent (the yaml's default).
 */
export function parseCobvCalendario(input: unknown, ctx: { today: string; path?: string }): Parsed<CobvCalendario> {
  const path = ctx.path ?? 'cobv.calendario';
  if (!isObject(input)) return { ok: false, issues: [{ property: path, reason: `O objeto ${path} não respeita o _schema_.`, value: input }] };
  const issues: ValorIssue[] = [];
  const due = input.dataDeVencimento;
  if (typeof due !== 'string' || !isDay(due)) issues.push(schemaIssue(`${path}.dataDeVencimento`, due));
  else if (calendarDaysBetween(ctx.today, due) < 0) {
    issues.push({ property: `${path}.dataDeVencimento`, reason: `O campo ${path}.dataDeVencimento é anterior à data de criação da cobrança.`, value: due });
  }
  const validade = input.validadeAposVencimento ?? 30;
  if (typeof validade !== 'number' || !Number.isInteger(validade) || validade > INT32_MAX) {
    issues.push(schemaIssue(`${path}.validadeAposVencimento`, input.validadeAposVencimento));
  } else if (validade < 0) {
    issues.push({ property: `${path}.validadeAposVencimento`, reason: `O campo ${path}.validadeAposVencimento é menor do que zero.`, value: validade });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { dataDeVencimento: due as string, validadeAposVencimento: validade as number } };
}

/** The yaml's CobVValor as JSON, amounts and percentages as strings. */
export interface CobvValorJson {
  original: string;
  multa?: { modalidade: number; valorPerc: string };
  juros?: { modalidade: number; valorPerc: string };
  abatimento?: { modalidade: number; valorPerc: string };
  desconto?: { modalidade: number; descontoDataFixa: Array<{ data: string; valorPerc: string }> } | { modalidade: number; valorPerc: string };
}

/**
 * A `cobv`'s `valor` written back as the yaml's CobVValor (the inverse of `parseCobvValor`): what a
 * `GET /cobv/{txid}` or the payload shows. Amounts and percentages in the `"123.45"` form, tiers in
 * date order.
 */
export function formatCobvValor(valor: CobvValor): CobvValorJson {
  const out: CobvValorJson = { original: formatHundredths(valor.original) };
  for (const key of ['multa', 'juros', 'abatimento'] as const) {
    const component = valor[key];
    if (component) out[key] = { modalidade: component.modalidade, valorPerc: formatHundredths(component.valorPerc) };
  }
  const d = valor.desconto;
  if (d) {
    out.desconto = 'descontoDataFixa' in d
      ? { modalidade: d.modalidade, descontoDataFixa: d.descontoDataFixa.map((t) => ({ data: t.data, valorPerc: formatHundredths(t.valorPerc) })) }
      : { modalidade: d.modalidade, valorPerc: formatHundredths(d.valorPerc) };
  }
  return out;
}
