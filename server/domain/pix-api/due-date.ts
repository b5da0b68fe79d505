// The amount due on the day a `cobv` (the API Pix's charge with a due date) is paid: every mode of
// `multa`, `juros`, `abatimento` and `desconto` of the Banco Central's yaml (CobVValor), in integer cents,
// in São Paulo's business-day calendar (calendar.ts). Pure: no clock, no store; the caller says which
// day is paid (the payer's DPP, the sandbox's `date`, today).
//
// The rules, from DECISIONS.md "The Banco Central's API Pix" and the yaml's `validadeAposVencimento`:
// - A due date on a Saturday, Sunday or holiday moves to the next business day ("vencimento efetivo"),
//   and so does every date that refers to it: the end of validity, when multa and juros start, the days
//   of anticipation of a per-day discount, and a fixed-date discount dated on the due date itself.
// - The charge may be paid until `vencimento efetivo + validadeAposVencimento` calendar days; when that
//   day is not a business day, until the next business day (the yaml's examples A, E and G say so).
//   After it, the payment is refused. (The yaml's CobPayloadOperacaoInvalida note counts 10 days from
//   the unmoved 2020-12-25 instead; its examples A–G, which we follow, count from the moved date.)
// - Paid after the vencimento efetivo: multa once; juros for each day from the day after it to the
//   payment day, calendar days or business days as the mode says. Paid on it or before: neither.
// - Percentages apply to `valor.original` (DECISIONS), for every component. NOTE: the BCB's Manual de
//   Padrões para Iniciação do Pix (Equação 11) bases juros on original − abatimento; DECISIONS says
//   original, and this follows DECISIONS (one line to change in `percentOfOriginal` if it is revised).
// - Each component is rounded half up to the cent once, from the exact rational value: no per-day
//   rounding, no truncated daily factor (bacen/pix-api#607 asks exactly this: 30 000.00 at 1 % a month
//   one day late is 10.00, not 9.90).
// - valor = original + multa + juros − abatimento − desconto (the yaml's componentesValor rule).

import { centsToAmount, MAX_AMOUNT_CENTS } from '../../../contract/bcb/common';
import { addCalendarDays, businessDayOnOrAfter, businessDaysAfterUntil, businessDaysFromBefore, calendarDaysBetween, dayNumber } from './calendar';

/** Fixed value (cents) or percentage of the original (basis points). */
export interface Multa {
  modalidade: 1 | 2;
  /** Cents for mode 1, basis points for mode 2. */
  valorPerc: number;
}

/**
 * 1 value per calendar day, 2 % per day, 3 % per month, 4 % per year (calendar days);
 * 5–8 the same counting business days.
 */
export interface Juros {
  modalidade: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
  /** Cents for modes 1 and 5, basis points for the others. */
  valorPerc: number;
}

/** Fixed value (cents) or percentage of the original (basis points), whatever day it is paid. */
export interface Abatimento {
  modalidade: 1 | 2;
  valorPerc: number;
}

export interface DescontoDataFixa {
  /** Paid on this day or before, this discount applies. */
  data: string;
  /** Cents (mode 1) or basis points (mode 2). */
  valorPerc: number;
}

/**
 * 1 fixed value until the date(s), 2 percentage until the date(s) (up to 3 tiers, dates ascending);
 * 3 value per calendar day of anticipation, 4 per business day, 5 percentage per calendar day,
 * 6 per business day.
 */
export type Desconto =
  | { modalidade: 1 | 2; descontoDataFixa: DescontoDataFixa[] }
  | { modalidade: 3 | 4 | 5 | 6; valorPerc: number };

/** A `cobv`'s `valor` read into integers (due-date-input.ts `parseCobvValor`): cents and basis points. */
export interface CobvValor {
  original: number;
  multa?: Multa;
  juros?: Juros;
  abatimento?: Abatimento;
  desconto?: Desconto;
}

export interface CobvCalendario {
  dataDeVencimento: string;
  /** Calendar days after the (moved) due date; the yaml's default is 30. */
  validadeAposVencimento?: number;
}

/** The yaml's `componentesValor` of a Pix received for a `cobv`, in cents; `valor` is their sum. */
export interface ComponentesValor {
  original: number;
  multa: number;
  juros: number;
  abatimento: number;
  desconto: number;
}

export interface DueDates {
  /** The due date, moved to the next business day when it is not one. */
  vencimento: string;
  /** The last day the charge can be paid (inclusive). */
  ultimoDia: string;
}

export type AmountDue =
  | {
      payable: true;
      /** The amount to pay that day, in cents. */
      valor: number;
      componentes: ComponentesValor;
      /** Calendar days past the vencimento efetivo (0 on it or before). */
      diasDeAtraso: number;
      /** Calendar days before the vencimento efetivo (0 on it or after). */
      diasDeAntecipacao: number;
    } & DueDates
  | {
      payable: false;
      /** `apos-validade`: paid after the last day; `valor-excede-limite`: a component or the total would pass the ceiling (MAX_AMOUNT_CENTS). */
      reason: 'apos-validade' | 'valor-excede-limite';
    } & DueDates;

/** Days a percentage per month or per year is divided into, by how the mode counts days. */
const PERIOD_DAYS: Record<Juros['modalidade'], number> = {
  1: 1, 2: 1,
  // per month over calendar days: 30 (the BCB manual's n = 30, confirmed by bacen/pix-api#607);
  // per year: 365, the civil year, also in leap years (one rate per year, not per year's length)
  3: 30, 4: 365,
  5: 1, 6: 1,
  // per month and per year over business days: Brazil's 252-business-day year and its twelfth, 21
  // (the yaml does not say; this is the market's convention for business-day rates)
  7: 21, 8: 252,
};

// the one ceiling of every amount (DECISIONS "Money"): an amount due above it cannot be paid
const MAX_AMOUNT = BigInt(MAX_AMOUNT_CENTS);
/** The last date the calendar computes holidays for; a validity running past it has no end. */
const LAST_DAY = '9999-12-31';

/** round(numerator / denominator), halves up, for non-negative integers. */
function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/** `original × bp / 10 000 × days / periodDays`, rounded once. */
function percentOfOriginal(original: number, bp: number, days = 1, periodDays = 1): bigint {
  return roundHalfUp(BigInt(original) * BigInt(bp) * BigInt(days), 10_000n * BigInt(periodDays));
}

/** The moved due date and the last day of payment. */
export function dueDates(calendario: CobvCalendario): DueDates {
  const vencimento = businessDayOnOrAfter(calendario.dataDeVencimento);
  const validade = calendario.validadeAposVencimento ?? 30;
  if (!Number.isInteger(validade) || validade < 0) throw new RangeError(`validadeAposVencimento must be an integer ≥ 0: ${validade}`);
  if (dayNumber(vencimento) + validade >= dayNumber(LAST_DAY) - 31) return { vencimento, ultimoDia: LAST_DAY };
  return { vencimento, ultimoDia: businessDayOnOrAfter(addCalendarDays(vencimento, validade)) };
}

/**
 * The amount due for `valor` when paid on `paymentDay` (a São Paulo date), or why it cannot be paid.
 * `paymentDay` must be a real `YYYY-MM-DD` date (calendar.ts `isDay`; the edge checks a DPP before):
 * a malformed one throws a RangeError. The payment is never below R$0.01.
 */
export function amountDue(valor: CobvValor, calendario: CobvCalendario, paymentDay: string): AmountDue {
  const dates = dueDates(calendario);
  const { vencimento } = dates;
  if (calendarDaysBetween(dates.ultimoDia, paymentDay) > 0) return { payable: false, reason: 'apos-validade', ...dates };

  const { original } = valor;
  const late = calendarDaysBetween(vencimento, paymentDay);
  const diasDeAtraso = Math.max(0, late);
  const diasDeAntecipacao = Math.max(0, -late);

  let abatimento = !valor.abatimento ? 0n
    : valor.abatimento.modalidade === 1 ? BigInt(valor.abatimento.valorPerc)
      : percentOfOriginal(original, valor.abatimento.valorPerc);
  // The parser keeps an abatimento under the original and under 100 %, but 99.99 % of R$1.00 rounds to
  // the whole of it: deductions stop at R$0.01 due (a Pix of 0.00 cannot be made), here and below.
  if (abatimento > BigInt(original) - 1n) abatimento = BigInt(original) - 1n;

  let multa = 0n;
  let juros = 0n;
  if (diasDeAtraso > 0) {
    if (valor.multa) multa = valor.multa.modalidade === 1 ? BigInt(valor.multa.valorPerc) : percentOfOriginal(original, valor.multa.valorPerc);
    if (valor.juros) {
      const { modalidade, valorPerc } = valor.juros;
      const days = modalidade <= 4 ? diasDeAtraso : businessDaysAfterUntil(vencimento, paymentDay);
      juros = modalidade === 1 || modalidade === 5 ? BigInt(valorPerc) * BigInt(days)
        : percentOfOriginal(original, valorPerc, days, PERIOD_DAYS[modalidade]);
    }
  }

  let desconto = valor.desconto ? discount(valor.desconto, original, calendario.dataDeVencimento, vencimento, paymentDay) : 0n;
  // Nor does a discount: a per-day discount paid early enough would, and the BCB says such a charge
  // should be refused at creation (bacen/pix-api#408); this bound holds whatever was let through.
  const ceiling = BigInt(original) + multa + juros - abatimento - 1n;
  if (desconto > ceiling) desconto = ceiling;

  const total = BigInt(original) + multa + juros - abatimento - desconto;
  if ([multa, juros, abatimento, desconto, total].some((c) => c > MAX_AMOUNT)) {
    return { payable: false, reason: 'valor-excede-limite', ...dates };
  }
  return {
    payable: true,
    valor: Number(total),
    componentes: { original, multa: Number(multa), juros: Number(juros), abatimento: Number(abatimento), desconto: Number(desconto) },
    diasDeAtraso,
    diasDeAntecipacao,
    ...dates,
  };
}

function discount(desconto: Desconto, original: number, dataDeVencimento: string, vencimento: string, paymentDay: string): bigint {
  if ('descontoDataFixa' in desconto) {
    // The tier that applies is the one with the earliest date on or after the payment day: "até aquela
    // data de pagamento" makes each tier valid until its date, and a payer before several dates gets the
    // nearest one's (the usual schedule, larger discounts for earlier dates, makes that the largest;
    // we do not reorder a schedule that says otherwise). A tier dated on the due date refers to it and
    // moves with it; a tier dated earlier keeps its date even on a weekend (the yaml moves only the due
    // date and what refers to it).
    let best: { until: string; valorPerc: number } | null = null;
    for (const tier of desconto.descontoDataFixa) {
      const until = tier.data === dataDeVencimento ? vencimento : tier.data;
      if (calendarDaysBetween(paymentDay, until) < 0) continue;
      if (best === null || calendarDaysBetween(best.until, until) < 0) best = { until, valorPerc: tier.valorPerc };
    }
    if (!best) return 0n;
    return desconto.modalidade === 1 ? BigInt(best.valorPerc) : percentOfOriginal(original, best.valorPerc);
  }
  // Per day of anticipation, counted up to the vencimento efetivo: calendar days before it, or the
  // business days from the payment day (included) to it (excluded). Paying on a Saturday before a
  // Monday due date is 2 calendar days early but 0 business days: no bank settles on either day.
  const { modalidade, valorPerc } = desconto;
  const days = modalidade === 3 || modalidade === 5
    ? Math.max(0, calendarDaysBetween(paymentDay, vencimento))
    : businessDaysFromBefore(paymentDay, vencimento);
  return modalidade === 3 || modalidade === 4 ? BigInt(valorPerc) * BigInt(days) : percentOfOriginal(original, valorPerc, days);
}

/**
 * True when, paid on `firstDay` or later, the abatimento and the largest discount together would reach
 * the original, so the charge would owe nothing: the BCB would have such a charge refused when it is
 * created or revised (bacen/pix-api#408), as a per-day discount accumulates and a tier plus an abatimento
 * can pass the original though each alone is under it. Per-day discounts are largest on the first day;
 * a fixed-date tier counts when its date is not yet past on `firstDay`.
 */
export function deductionsReachOriginal(valor: CobvValor, dataDeVencimento: string, firstDay: string): boolean {
  const { original } = valor;
  const abatimento = !valor.abatimento ? 0n
    : valor.abatimento.modalidade === 1 ? BigInt(valor.abatimento.valorPerc) : percentOfOriginal(original, valor.abatimento.valorPerc);
  let desconto = 0n;
  const d = valor.desconto;
  if (d && 'descontoDataFixa' in d) {
    const vencimento = businessDayOnOrAfter(dataDeVencimento);
    for (const tier of d.descontoDataFixa) {
      const until = tier.data === dataDeVencimento ? vencimento : tier.data;
      if (calendarDaysBetween(firstDay, until) < 0) continue;
      const value = d.modalidade === 1 ? BigInt(tier.valorPerc) : percentOfOriginal(original, tier.valorPerc);
      if (value > desconto) desconto = value;
    }
  } else if (d) {
    desconto = discount(d, original, dataDeVencimento, businessDayOnOrAfter(dataDeVencimento), firstDay);
  }
  return abatimento + desconto >= BigInt(original);
}

/**
 * `componentesValor` as the yaml writes it for a Pix received on a `cobv`: `original` always, the
 * others when not zero (the yaml's example lists only what the payment carried).
 */
export function componentesValorJson(c: ComponentesValor): Record<string, { valor: string }> {
  const out: Record<string, { valor: string }> = { original: { valor: formatHundredths(c.original) } };
  for (const key of ['multa', 'juros', 'abatimento', 'desconto'] as const) if (c[key] > 0) out[key] = { valor: formatHundredths(c[key]) };
  return out;
}

/** Cents (or basis points) as the yaml writes them: 12345 → "123.45", 5 → "0.05"; the contract's one formatter. */
export const formatHundredths = centsToAmount;
