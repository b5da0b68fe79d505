// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { addDays, isCalendarDay, localDay, startOfLocalDay } from '../../server/domain/local-time';

describe('São Paulo calendar days', () => {
  it('reads the local day of an instant, not the UTC one', () => {
    expect(localDay(new Date('2026-01-16T02:59:59Z'))).toBe('2026-01-15');
    expect(localDay(new Date('2026-01-16T03:00:00Z'))).toBe('2026-01-16');
  });

  it('starts a local day at 03:00 UTC (UTC−3), and 1 ms before is the previous day', () => {
    expect(startOfLocalDay('2026-03-01').toISOString()).toBe('2026-03-01T03:00:00.000Z');
    expect(localDay(new Date(startOfLocalDay('2026-03-01').getTime() - 1))).toBe('2026-02-28');
    // before 2019 Brasília had daylight saving: midnight of 2018-12-01 was 02:00 UTC
    expect(startOfLocalDay('2018-12-01').toISOString()).toBe('2018-12-01T02:00:00.000Z');
  });

  it('adds calendar days across months and years, and knows real dates', () => {
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(isCalendarDay('2026-02-29')).toBe(false);
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2026-1-5')).toBe(false);
  });
});
