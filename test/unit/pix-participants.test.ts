// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import {
  allParticipants,
  parseCsv,
  participantByIspb,
  pickReceiverBank,
} from '../../server/domain/pix/participants';

describe('parseCsv', () => {
  it('keeps commas and doubled quotes inside quoted fields', () => {
    expect(parseCsv('a,b\n1,"x, ""y"""\n')).toEqual([
      ['a', 'b'],
      ['1', 'x, "y"'],
    ]);
  });
  it('handles CRLF, a BOM, a missing final newline and empty fields', () => {
    expect(parseCsv('\uFEFFa,b\r\n1,\r\n,2')).toEqual([
      ['a', 'b'],
      ['1', ''],
      ['', '2'],
    ]);
  });
  it('keeps a newline inside a quoted field', () => {
    expect(parseCsv('"one\ntwo",3\n')).toEqual([['one\ntwo', '3']]);
  });
  it('refuses an unterminated quote', () => {
    expect(() => parseCsv('a,"b\n')).toThrow(/never closed/);
  });
});

describe('participants', () => {
  it('loads every row of the shipped list', () => {
    const list = allParticipants();
    expect(list).toHaveLength(282);
    for (const p of list) {
      expect(p.ispb).toMatch(/^\d{8}$/);
      expect(p.compe).toMatch(/^\d{3}$/);
      expect(p.shortName).not.toBe('');
      expect(['direct', 'indirect']).toContain(p.pixParticipation);
    }
    expect(new Set(list.map((p) => p.ispb)).size).toBe(list.length);
  });
  it('reads quoted names that contain commas', () => {
    expect(participantByIspb('02682287')).toEqual({
      ispb: '02682287',
      compe: '555',
      shortName: 'PAN FINAN',
      longName: 'PAN FINANCEIRA S.A. - SOCIEDADE DE CRÉDITO, FINANCIAMENTO E INVESTIMENTOS',
      pixParticipation: 'indirect',
    });
  });
  it('finds a participant by ISPB', () => {
    expect(participantByIspb('00000000')?.shortName).toBe('BCO DO BRASIL S.A.');
    expect(participantByIspb('99999999')).toBeUndefined();
  });
  it('loads once', () => {
    expect(allParticipants()).toBe(allParticipants());
  });
});

describe('pickReceiverBank', () => {
  it('gives the same bank for the same key, every time', () => {
    const first = pickReceiverBank('maria@example.com');
    expect(pickReceiverBank('maria@example.com')).toBe(first);
    expect(participantByIspb(first.ispb)).toBe(first);
  });
  it('is pinned: changing the hash would move existing keys to other banks', () => {
    expect(pickReceiverBank('+5511987654321').ispb).toBe('26563270');
    expect(pickReceiverBank('maria@example.com').shortName).toBe('DELFINANCE SCD S.A.');
  });
  it('spreads keys over many banks', () => {
    const banks = new Set(Array.from({ length: 1000 }, (_, i) => pickReceiverBank(`user${i}@example.com`).ispb));
    expect(banks.size).toBeGreaterThan(200);
  });
});
