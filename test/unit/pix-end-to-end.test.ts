// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import fixtures from '../fixtures/pix-fixtures.json';
import { isValidEndToEndId, newEndToEndId } from '../../server/domain/pix/end-to-end';

describe('isValidEndToEndId', () => {
  it.each(fixtures.end_to_end_ids_valid)('accepts the fixture %s', (id) => {
    expect(isValidEndToEndId(id)).toBe(true);
  });
  it.each(fixtures.end_to_end_ids_invalid)('refuses the fixture %s', (id) => {
    expect(isValidEndToEndId(id)).toBe(false);
  });
  it('refuses the invalid fixture for its length (31), and would accept lower case at 32', () => {
    const [invalid] = fixtures.end_to_end_ids_invalid;
    expect(invalid).toHaveLength(31);
    expect(isValidEndToEndId(`${invalid}e`)).toBe(true);
  });
  it.each([
    ['a lower-case prefix', 'e0000000020210519134701363533333'],
    ['a letter in the ISPB', 'E00000A0020210519134701363533333'],
    ['month 13', 'E0000000020211319134701363533333'],
    ['30 February', 'E0000000020210230134701363533333'],
    ['hour 24', 'E0000000020210519244701363533333'],
    ['minute 60', 'E0000000020210519136001363533333'],
    ['punctuation in the suffix', 'E000000002021051913470136353333-'],
    ['33 characters', 'E00000000202105191347013635333333'],
  ])('refuses %s', (_, id) => {
    expect(isValidEndToEndId(id)).toBe(false);
  });
});

describe('newEndToEndId', () => {
  const now = new Date('2025-04-17T16:47:59.999Z');

  it('is E + ISPB + UTC yyyyMMddHHmm + 11 alphanumerics, 32 characters', () => {
    const id = newEndToEndId('30385259', now);
    expect(id).toHaveLength(32);
    expect(id.slice(0, 21)).toBe('E30385259202504171647');
    expect(id.slice(21)).toMatch(/^[A-Za-z0-9]{11}$/);
    expect(isValidEndToEndId(id)).toBe(true);
  });
  it('uses UTC, not local time', () => {
    expect(newEndToEndId('00000000', new Date('2024-12-31T23:59:00-03:00')).slice(9, 21)).toBe('202501010259');
  });
  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newEndToEndId('00000000', now)));
    expect(ids.size).toBe(2000);
  });
  it('refuses an ISPB that is not 8 digits and an invalid date', () => {
    expect(() => newEndToEndId('1234567', now)).toThrow(RangeError);
    expect(() => newEndToEndId('1234567A', now)).toThrow(RangeError);
    expect(() => newEndToEndId('00000000', new Date(Number.NaN))).toThrow(RangeError);
  });
});
