// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { centsToInput, formatBRL, parseBRL } from '../../app/_lib/money';

describe('money on screen', () => {
  it('formats cents as pt-BR reais', () => {
    expect(formatBRL(123456)).toBe('R$ 1.234,56');
    expect(formatBRL(5)).toBe('R$ 0,05');
    expect(formatBRL(0)).toBe('R$ 0,00');
    expect(formatBRL(100_000_000_000)).toBe('R$ 1.000.000.000,00');
    expect(centsToInput(123456)).toBe('1.234,56');
  });

  it('reads typed amounts into exact integer cents', () => {
    expect(parseBRL('1.234,56')).toBe(123456);
    expect(parseBRL('1234,56')).toBe(123456);
    expect(parseBRL('R$ 1.234,5')).toBe(123450);
    expect(parseBRL('10')).toBe(1000);
    expect(parseBRL('0,01')).toBe(1);
    expect(parseBRL(' 250,00 ')).toBe(25000);
    // values where float math would drift: 0,29 → 28.999999999999996 with 0.29 * 100
    expect(parseBRL('0,29')).toBe(29);
    expect(parseBRL('1.005,57')).toBe(100557);
    expect(parseBRL('1.000.000.000,00')).toBe(100_000_000_000);
  });

  it('refuses what is not an amount', () => {
    for (const bad of ['', 'abc', '12,345', '1,2,3', '1.23,45', '1234.56', '-5', '1e3', '12.34', ',50', '99999999999999,00']) {
      expect(parseBRL(bad), bad).toBeNull();
    }
  });
});
