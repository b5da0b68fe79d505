// The merchant's calendar: Brazilian days are America/Sao_Paulo days (docs/decisions.md "Dashboard language").
// Brasília has kept UTC−3 all year since DST ended in 2019; the zone database is asked anyway, so a
// future change of the rule needs no change here.

export const MERCHANT_TIME_ZONE = 'America/Sao_Paulo';

const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: MERCHANT_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const DAY_MS = 86_400_000;

/** The São Paulo calendar day of an instant, as `YYYY-MM-DD`. */
export function localDay(at: Date): string {
  return dayFormat.format(at);
}

/** `YYYY-MM-DD` plus `days` calendar days. */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d) + days * DAY_MS).toISOString().slice(0, 10);
}

const wallClock = new Intl.DateTimeFormat('en-CA', {
  timeZone: MERCHANT_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});

/** How far São Paulo's wall clock is from UTC at `at` (−3 h today), in ms. */
function zoneOffsetMs(at: number): number {
  const p = Object.fromEntries(wallClock.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant a São Paulo calendar day starts (its local midnight). */
export function startOfLocalDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  const midnightAsUtc = Date.UTC(y, m - 1, d);
  const first = midnightAsUtc - zoneOffsetMs(midnightAsUtc);
  return new Date(midnightAsUtc - zoneOffsetMs(first));
}

/** True when `day` is a real calendar day written `YYYY-MM-DD`. */
export function isCalendarDay(day: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === day;
}
