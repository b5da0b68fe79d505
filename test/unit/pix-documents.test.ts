// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import fixtures from '../fixtures/pix-fixtures.json';
import {
  cnpjProblem,
  cpfProblem,
  documentKind,
  isValidCnpj,
  isValidCpf,
  normalizeDocument,
} from '../../contract/pix/documents';

describe('normalizeDocument', () => {
  it('strips dots, dashes, slashes and spaces and upper-cases', () => {
    expect(normalizeDocument('529.982.247-25')).toBe('52998224725');
    expect(normalizeDocument(' 2p.76b.mnx/0001-66 ')).toBe('2P76BMNX000166');
  });
});

describe('isValidCpf', () => {
  it.each(fixtures.cpf_valid)('accepts the fixture %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
  });
  it.each(fixtures.cpf_invalid)('refuses the fixture %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });
  it('refuses every all-same-digit CPF, though their check digits add up', () => {
    for (let d = 0; d <= 9; d++) expect(isValidCpf(String(d).repeat(11))).toBe(false);
  });
  it('refuses letters and CNPJs', () => {
    expect(isValidCpf('5299822472A')).toBe(false);
    expect(isValidCpf('11222333000181')).toBe(false);
  });
  it('says why a CPF is refused', () => {
    expect(cpfProblem('5299822472')).toBe('expected 11 digits');
    expect(cpfProblem('111.111.111-11')).toBe('all digits are the same');
    expect(cpfProblem('52998224726')).toBe('check digits do not match');
    expect(cpfProblem('52998224725')).toBeNull();
  });
});

describe('isValidCnpj', () => {
  it.each(fixtures.cnpj_valid)('accepts the fixture %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
  });
  it.each(fixtures.cnpj_invalid)('refuses the fixture %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
  });
  it('accepts an alphanumeric CNPJ typed in lower case', () => {
    expect(isValidCnpj('12abc34501de35')).toBe(true);
  });
  it('refuses letters in the check digits and characters outside [0-9A-Z]', () => {
    expect(isValidCnpj('12ABC34501DE3A')).toBe(false);
    expect(isValidCnpj('12ABC34501D_35')).toBe(false);
    expect(isValidCnpj('12ÁBC34501DE35')).toBe(false);
  });
  it('refuses every all-same-character CNPJ', () => {
    expect(isValidCnpj('11111111111111')).toBe(false);
    expect(isValidCnpj('AAAAAAAAAAAAAA')).toBe(false);
  });
  it('refuses wrong lengths', () => {
    expect(isValidCnpj('1122233300018')).toBe(false);
    expect(isValidCnpj('112223330001811')).toBe(false);
  });
  it('says why a CNPJ is refused', () => {
    expect(cnpjProblem('00000000000000')).toBe('all characters are the same');
    expect(cnpjProblem('12ABC34501DE36')).toBe('check digits do not match');
    expect(cnpjProblem('123')).toMatch(/^expected 14 characters/);
  });
});

describe('documentKind', () => {
  it('names the kind of a valid document after normalisation', () => {
    expect(documentKind('529.982.247-25')).toBe('CPF');
    expect(documentKind('11.222.333/0001-81')).toBe('CNPJ');
    expect(documentKind('2P.76B.MNX/0001-66')).toBe('CNPJ');
  });
  it('is null for anything that is neither a valid CPF nor a valid CNPJ', () => {
    for (const doc of [...fixtures.cpf_invalid, ...fixtures.cnpj_invalid, '', 'abc']) {
      expect(documentKind(doc)).toBeNull();
    }
  });
});
