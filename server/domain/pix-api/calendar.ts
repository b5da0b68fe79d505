// São Paulo's business-day calendar for the API Pix's charges with a due date (DECISIONS.md "The Banco
// Central's API Pix"): business days skip Saturdays, Sundays, Brazil's national holidays and Carnival
// Monday and Tuesday (no bank settlement on either), computed from the year, never listed, so no table
// runs out. Dates are plain São Paulo calendar dates `YYYY-MM-DD`; all arithmetic is on day numbers
// (days since 1970-01-01, proleptic Gregorian), so no Date, time zone or daylight-saving rule is
// involved: a calendar date has no instant.
//
// Holidays, and why each is here:
// - fixed national holidays: 1 Jan (Lei 662/1949), 21 Apr, 1 May, 7 Sep, 2 Nov, 15 Nov, 25 Dec (Lei
//   662/1949, 10.607/2002), 12 Oct (Lei 6.802/1980), and 20 Nov from 2024 on (Lei 14.759/2023; before
//   2024 it was a holiday of São Paulo city only, and DECISIONS counts national holidays only);
// - movable, from Easter: Carnival Monday and Tuesday (Easter − 48, − 47: no bank settlement), Good Friday
//   (Easter − 2) and Corpus Christi (Easter + 60), which the national bank calendar (ANBIMA's, the one the
//   BCB's settlement follows) and São Paulo city both keep as days without bank business.
// - not here, as DECISIONS counts national holidays only: São Paulo city's 25 Jan and the state's 9 Jul;
//   Ash Wednesday is a business day (banks open at noon).

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The Gregorian date of a day number (Howard Hinnant's civil_from_days). */
function civilFromDays(n: number): { year: number; month: number; day: number } {
  const z = n + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp + (mp < 10 ? 3 : -9);
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function daysInMonth(year: number, month: number): number {
  return daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1);
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * The day number of a `YYYY-MM-DD` date, or null when it is not a real Gregorian date (2027-02-29,
 * 2026-13-01, 2026-1-5). Years before 1583 are refused: the Gregorian Easter rule starts there.
 */
export function parseDay(day: string): number | null {
  const m = DAY_PATTERN.exec(day);
  if (!m) return null;
  const [year, month, date] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1583 || month < 1 || month > 12 || date < 1 || date > daysInMonth(year, month)) return null;
  return daysFromCivil(year, month, date);
}

/** True when `day` is a real calendar date written `YYYY-MM-DD`. */
export function isDay(day: string): boolean {
  return parseDay(day) !== null;
}

/** The day number of a date this module's caller has already checked; a malformed one is a bug: it throws. */
export function dayNumber(day: string): number {
  const n = parseDay(day);
  if (n === null) throw new RangeError(`not a calendar date (YYYY-MM-DD): ${JSON.stringify(day)}`);
  return n;
}

/** The `YYYY-MM-DD` date of a day number. */
export function dayOf(n: number): string {
  const { year, month, day } = civilFromDays(n);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** `day` plus `days` calendar days (negative goes back). */
export function addCalendarDays(day: string, days: number): string {
  return dayOf(dayNumber(day) + days);
}

/** Calendar days from `from` to `to`: positive when `to` is later. */
export function calendarDaysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** 0 = Sunday … 6 = Saturday (1970-01-01, day 0, was a Thursday). */
export function weekday(day: string): number {
  return weekdayOf(dayNumber(day));
}

function weekdayOf(n: number): number {
  return (((n + 4) % 7) + 7) % 7;
}

/** Easter Sunday of a Gregorian year, by the anonymous Gregorian algorithm (Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  if (!Number.isInteger(year) || year < 1583 || year > 9999) throw new RangeError(`year out of range: ${year}`);
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

export interface Holiday {
  day: string;
  name: string;
}

const FIXED_HOLIDAYS: Array<{ month: number; day: number; name: string; since?: number }> = [
  { month: 1, day: 1, name: 'Confraternização Universal' },
  { month: 4, day: 21, name: 'Tiradentes' },
  { month: 5, day: 1, name: 'Dia do Trabalho' },
  { month: 9, day: 7, name: 'Independência do Brasil' },
  { month: 10, day: 12, name: 'Nossa Senhora Aparecida' },
  { month: 11, day: 2, name: 'Finados' },
  { month: 11, day: 15, name: 'Proclamação da República' },
  { month: 11, day: 20, name: 'Dia Nacional de Zumbi e da Consciência Negra', since: 2024 },
  { month: 12, day: 25, name: 'Natal' },
];

const EASTER_OFFSETS: Array<{ offset: number; name: string }> = [
  { offset: -48, name: 'Carnaval (segunda-feira)' },
  { offset: -47, name: 'Carnaval (terça-feira)' },
  { offset: -2, name: 'Sexta-feira da Paixão' },
  { offset: 60, name: 'Corpus Christi' },
];

const holidaysByYear = new Map<number, Map<number, string>>();

/** The year's days without bank business other than weekends, by day number (computed once per year). */
function holidayDays(year: number): Map<number, string> {
  let days = holidaysByYear.get(year);
  if (!days) {
    days = new Map();
    for (const h of FIXED_HOLIDAYS) if (h.since === undefined || year >= h.since) days.set(daysFromCivil(year, h.month, h.day), h.name);
    const easter = dayNumber(easterSunday(year));
    for (const h of EASTER_OFFSETS) days.set(easter + h.offset, h.name);
    holidaysByYear.set(year, days);
  }
  return days;
}

/** The year's holidays (national ones and Carnival), in date order. A weekend holiday is listed too. */
export function holidays(year: number): Holiday[] {
  return [...holidayDays(year)].sort(([a], [b]) => a - b).map(([n, name]) => ({ day: dayOf(n), name }));
}

/** The holiday's name when `day` is one, else null. */
export function holidayName(day: string): string | null {
  const n = dayNumber(day);
  return holidayDays(civilFromDays(n).year).get(n) ?? null;
}

function isBusinessDayNumber(n: number): boolean {
  const wd = weekdayOf(n);
  return wd !== 0 && wd !== 6 && !holidayDays(civilFromDays(n).year).has(n);
}

/** True when banks settle on `day` in São Paulo: not a Saturday, Sunday, national holiday or Carnival. */
export function isBusinessDay(day: string): boolean {
  return isBusinessDayNumber(dayNumber(day));
}

/** `day` itself when it is a business day, else the first business day after it. */
export function businessDayOnOrAfter(day: string): string {
  let n = dayNumber(day);
  while (!isBusinessDayNumber(n)) n += 1;
  return dayOf(n);
}

/** Business days among day numbers `start <= n < end`: weekdays by whole weeks, less the holidays on weekdays. */
function businessDaysInRange(start: number, end: number): number {
  if (end <= start) return 0;
  const span = end - start;
  let count = Math.floor(span / 7) * 5;
  for (let n = start + span - (span % 7); n < end; n += 1) {
    const wd = weekdayOf(n);
    if (wd !== 0 && wd !== 6) count += 1;
  }
  for (let year = civilFromDays(start).year; year <= civilFromDays(end - 1).year; year += 1) {
    for (const n of holidayDays(year).keys()) {
      const wd = weekdayOf(n);
      if (n >= start && n < end && wd !== 0 && wd !== 6) count -= 1;
    }
  }
  return count;
}

/**
 * The business days `d` with `from < d <= to` (0 when `to <= from`): the business days that have passed
 * from the end of `from` to the end of `to` (a charge's business days of delay).
 */
export function businessDaysAfterUntil(from: string, to: string): number {
  return businessDaysInRange(dayNumber(from) + 1, dayNumber(to) + 1);
}

/** The business days `d` with `from <= d < to` (0 when `to <= from`): a charge's business days of anticipation. */
export function businessDaysFromBefore(from: string, to: string): number {
  return businessDaysInRange(dayNumber(from), dayNumber(to));
}
