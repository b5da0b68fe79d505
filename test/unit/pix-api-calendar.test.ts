// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import {
  addCalendarDays, businessDayOnOrAfter, businessDaysAfterUntil, businessDaysFromBefore, calendarDaysBetween, dayNumber, dayOf,
  easterSunday, holidayName, holidays, isBusinessDay, isDay, parseDay, weekday,
} from '../../server/domain/pix-api/calendar';

describe('calendar dates as day numbers', () => {
  it('agrees with the proleptic Gregorian calendar on every day of 1895–2105 and around 1600, 1700, 2100 and 2400', () => {
    // Date.UTC is only the reference here; the module itself never builds a Date
    const spans: Array<[number, number]> = [[1895, 2105], [1599, 1601], [1699, 1701], [2399, 2401]];
    for (const [first, last] of spans) {
      for (let ms = Date.UTC(first, 0, 1); ms <= Date.UTC(last, 11, 31); ms += 86_400_000) {
        const iso = new Date(ms).toISOString().slice(0, 10);
        const n = ms / 86_400_000;
        if (dayNumber(iso) !== n || dayOf(n) !== iso) throw new Error(`${iso}: ${dayNumber(iso)} / ${dayOf(n)} (expected ${n})`);
      }
    }
    expect(dayNumber('1970-01-01')).toBe(0);
    expect(dayOf(-1)).toBe('1969-12-31');
  });

  it('knows real dates: leap days of 2028 and 2000 but not 2027 or 2100, no 31 April, only YYYY-MM-DD', () => {
    expect(isDay('2028-02-29')).toBe(true);
    expect(isDay('2000-02-29')).toBe(true);
    expect(isDay('2027-02-29')).toBe(false);
    expect(isDay('2100-02-29')).toBe(false);
    expect(isDay('2026-04-31')).toBe(false);
    expect(isDay('2026-13-01')).toBe(false);
    expect(isDay('2026-00-10')).toBe(false);
    expect(isDay('2026-1-05')).toBe(false);
    expect(isDay('2026-01-05T00:00:00Z')).toBe(false);
    expect(isDay('20260105')).toBe(false);
    expect(isDay('1582-12-31')).toBe(false); // before the Gregorian Easter rule
    expect(parseDay('2026-02-30')).toBeNull();
    expect(() => dayNumber('2026-02-30')).toThrow(RangeError);
  });

  it('adds and counts calendar days across month ends, year ends and leap days', () => {
    expect(addCalendarDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addCalendarDays('2028-02-29', 1)).toBe('2028-03-01');
    expect(addCalendarDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addCalendarDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(calendarDaysBetween('2028-02-01', '2028-03-01')).toBe(29);
    expect(calendarDaysBetween('2027-02-01', '2027-03-01')).toBe(28);
    expect(calendarDaysBetween('2026-01-01', '2027-01-01')).toBe(365);
    expect(calendarDaysBetween('2028-01-01', '2029-01-01')).toBe(366);
    expect(calendarDaysBetween('2026-12-10', '2026-12-01')).toBe(-9);
  });

  it('names weekdays (0 = Sunday)', () => {
    expect(weekday('1970-01-01')).toBe(4);
    expect(weekday('2026-11-27')).toBe(5);
    expect(weekday('2026-11-28')).toBe(6);
    expect(weekday('2026-11-29')).toBe(0);
    expect(weekday('2028-02-29')).toBe(2);
    expect(weekday('1969-12-28')).toBe(0);
  });
});

describe('Easter and the holidays computed from it', () => {
  it('finds the published Easter Sundays', () => {
    expect(easterSunday(2024)).toBe('2024-03-31');
    expect(easterSunday(2025)).toBe('2025-04-20');
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2027)).toBe('2027-03-28');
    expect(easterSunday(2028)).toBe('2028-04-16');
    expect(easterSunday(2000)).toBe('2000-04-23');
    expect(easterSunday(2019)).toBe('2019-04-21');
    expect(easterSunday(2008)).toBe('2008-03-23');
    // the extremes of the Gregorian computus: the latest (25 April) and the earliest (22 March)
    expect(easterSunday(2038)).toBe('2038-04-25');
    expect(easterSunday(2285)).toBe('2285-03-22');
    expect(easterSunday(1818)).toBe('1818-03-22');
    expect(() => easterSunday(1500)).toThrow(RangeError);
  });

  it('every Easter is a Sunday between 22 March and 25 April', () => {
    for (let year = 1583; year <= 4099; year += 1) {
      const easter = easterSunday(year);
      if (weekday(easter) !== 0) throw new Error(`${easter} is not a Sunday`);
      if (easter < `${year}-03-22` || easter > `${year}-04-25`) throw new Error(`${easter} out of range`);
    }
  });

  it('puts Carnival 48 and 47 days before Easter, Good Friday 2 days before, Corpus Christi 60 days after', () => {
    const movable = (year: number) => holidays(year).filter((h) => /Carnaval|Paixão|Corpus/.test(h.name)).map((h) => h.day);
    expect(movable(2024)).toEqual(['2024-02-12', '2024-02-13', '2024-03-29', '2024-05-30']);
    expect(movable(2025)).toEqual(['2025-03-03', '2025-03-04', '2025-04-18', '2025-06-19']);
    expect(movable(2026)).toEqual(['2026-02-16', '2026-02-17', '2026-04-03', '2026-06-04']);
    expect(movable(2027)).toEqual(['2027-02-08', '2027-02-09', '2027-03-26', '2027-05-27']);
    // a leap year: Carnival Tuesday 2028 is 29 February
    expect(movable(2028)).toEqual(['2028-02-28', '2028-02-29', '2028-04-14', '2028-06-15']);
  });

  it('lists the year\'s holidays in order: 9 fixed national ones and 4 movable ones', () => {
    expect(holidays(2026)).toEqual([
      { day: '2026-01-01', name: 'Confraternização Universal' },
      { day: '2026-02-16', name: 'Carnaval (segunda-feira)' },
      { day: '2026-02-17', name: 'Carnaval (terça-feira)' },
      { day: '2026-04-03', name: 'Sexta-feira da Paixão' },
      { day: '2026-04-21', name: 'Tiradentes' },
      { day: '2026-05-01', name: 'Dia do Trabalho' },
      { day: '2026-06-04', name: 'Corpus Christi' },
      { day: '2026-09-07', name: 'Independência do Brasil' },
      { day: '2026-10-12', name: 'Nossa Senhora Aparecida' },
      { day: '2026-11-02', name: 'Finados' },
      { day: '2026-11-15', name: 'Proclamação da República' },
      { day: '2026-11-20', name: 'Dia Nacional de Zumbi e da Consciência Negra' },
      { day: '2026-12-25', name: 'Natal' },
    ]);
  });

  it('counts 20 November only from 2024 (Lei 14.759/2023)', () => {
    expect(holidayName('2023-11-20')).toBeNull();
    expect(isBusinessDay('2023-11-20')).toBe(true); // a Monday
    expect(holidayName('2024-11-20')).toBe('Dia Nacional de Zumbi e da Consciência Negra');
    expect(isBusinessDay('2024-11-20')).toBe(false); // a Wednesday
    expect(holidays(2023)).toHaveLength(12);
  });

  it('keeps one entry when a movable holiday falls on a fixed one (Good Friday on Tiradentes, 2000)', () => {
    expect(holidays(2000).filter((h) => h.day === '2000-04-21')).toEqual([{ day: '2000-04-21', name: 'Sexta-feira da Paixão' }]);
    expect(holidays(2000)).toHaveLength(11); // 8 fixed (no 20 Nov yet) + 4 movable, 21 Apr counted once
  });
});

describe('São Paulo business days', () => {
  it('skips weekends, national holidays and Carnival; Ash Wednesday and state or city holidays are business days', () => {
    expect(isBusinessDay('2026-11-27')).toBe(true); // Friday
    expect(isBusinessDay('2026-11-28')).toBe(false); // Saturday
    expect(isBusinessDay('2026-11-29')).toBe(false); // Sunday
    expect(isBusinessDay('2026-02-16')).toBe(false); // Carnival Monday
    expect(isBusinessDay('2026-02-17')).toBe(false); // Carnival Tuesday
    expect(isBusinessDay('2026-02-18')).toBe(true); // Ash Wednesday
    expect(isBusinessDay('2026-04-03')).toBe(false); // Good Friday
    expect(isBusinessDay('2026-06-04')).toBe(false); // Corpus Christi
    expect(isBusinessDay('2026-12-25')).toBe(false);
    expect(isBusinessDay('2026-12-31')).toBe(true); // no national holiday
    expect(isBusinessDay('2027-01-25')).toBe(true); // São Paulo city's anniversary: not national
    expect(isBusinessDay('2026-07-09')).toBe(true); // São Paulo state's 9 July: not national
  });

  it('moves a non-business day to the next business day', () => {
    expect(businessDayOnOrAfter('2026-11-27')).toBe('2026-11-27');
    expect(businessDayOnOrAfter('2026-11-28')).toBe('2026-11-30'); // Saturday → Monday
    expect(businessDayOnOrAfter('2026-02-17')).toBe('2026-02-18'); // Carnival Tuesday → Ash Wednesday
    expect(businessDayOnOrAfter('2026-02-14')).toBe('2026-02-18'); // Carnival Saturday → Wednesday
    expect(businessDayOnOrAfter('2026-04-03')).toBe('2026-04-06'); // Good Friday → Monday
    expect(businessDayOnOrAfter('2026-11-20')).toBe('2026-11-23'); // 20 Nov, a Friday → Monday
    expect(businessDayOnOrAfter('2026-12-25')).toBe('2026-12-28');
    expect(businessDayOnOrAfter('2027-01-01')).toBe('2027-01-04');
    // leap year: Saturday 26 Feb 2028, then Sunday, Carnival Monday 28 and Carnival Tuesday 29
    expect(businessDayOnOrAfter('2028-02-26')).toBe('2028-03-01');
    expect(businessDayOnOrAfter('2028-02-29')).toBe('2028-03-01');
  });

  it('counts the business days passed after a day and the business days left before one', () => {
    expect(businessDaysAfterUntil('2026-11-27', '2026-11-30')).toBe(1); // Fri → Mon
    expect(businessDaysAfterUntil('2026-11-27', '2026-11-28')).toBe(0); // Fri → Sat
    expect(businessDaysAfterUntil('2026-11-27', '2026-11-27')).toBe(0);
    expect(businessDaysAfterUntil('2026-11-30', '2026-11-27')).toBe(0);
    expect(businessDaysAfterUntil('2026-12-30', '2027-01-04')).toBe(2); // 31 Dec and 4 Jan
    expect(businessDaysAfterUntil('2028-02-25', '2028-03-01')).toBe(1); // only 1 March: weekend and Carnival
    expect(businessDaysFromBefore('2026-12-01', '2026-12-10')).toBe(7);
    expect(businessDaysFromBefore('2026-12-05', '2026-12-10')).toBe(3); // from a Saturday
    expect(businessDaysFromBefore('2026-11-19', '2026-11-23')).toBe(1); // Thursday only: Friday is 20 Nov
    expect(businessDaysFromBefore('2026-12-10', '2026-12-01')).toBe(0);
    // 2026: 261 weekdays less the 12 holidays on weekdays (15 Nov is a Sunday)
    expect(businessDaysFromBefore('2026-01-01', '2027-01-01')).toBe(249);
  });

  it('counts by weeks the same as day by day, over spans of every length and start', () => {
    const naive = (from: string, to: string) => {
      let count = 0;
      for (let d = addCalendarDays(from, 1); d <= to; d = addCalendarDays(d, 1)) if (isBusinessDay(d)) count += 1;
      return count;
    };
    for (let start = 0; start < 60; start += 1) {
      const from = addCalendarDays('2027-12-01', start * 3);
      for (const span of [0, 1, 2, 5, 6, 7, 8, 13, 14, 29, 31, 95, 400]) {
        const to = addCalendarDays(from, span);
        const fast = businessDaysAfterUntil(from, to);
        if (fast !== naive(from, to)) throw new Error(`${from}..${to}: ${fast} vs ${naive(from, to)}`);
      }
    }
  });
});
