// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import fixtures from '../fixtures/pix-fixtures.json';
import { normalizePixKey, type PixKeyType } from '../../contract/pix/keys';

function accepted(type: PixKeyType, key: string): string {
  const result = normalizePixKey(type, key);
  if (!result.ok) throw new Error(`expected ${type} ${key} to be accepted, got: ${result.message}`);
  return result.key;
}

function refusal(type: PixKeyType, key: string): string {
  const result = normalizePixKey(type, key);
  if (result.ok) throw new Error(`expected ${type} ${key} to be refused, got ${result.key}`);
  return result.message;
}

describe('CPF keys', () => {
  it.each(fixtures.cpf_valid)('accepts %s as bare digits', (cpf) => {
    expect(accepted('CPF', cpf)).toBe(cpf.replace(/\D/g, ''));
  });
  it.each(fixtures.cpf_invalid)('refuses %s', (cpf) => {
    expect(refusal('CPF', cpf)).toMatch(/^key: not a valid CPF \(/);
  });
  it('names the rule that failed', () => {
    expect(refusal('CPF', '529.982.247-26')).toBe('key: not a valid CPF (check digits do not match)');
    expect(refusal('CPF', '5299822472')).toBe('key: not a valid CPF (expected 11 digits)');
    expect(refusal('CPF', '11111111111')).toBe('key: not a valid CPF (all digits are the same)');
  });
  it('refuses a CNPJ given as a CPF key', () => {
    expect(refusal('CPF', '11222333000181')).toMatch(/^key: not a valid CPF/);
  });
});

describe('CNPJ keys', () => {
  it.each(fixtures.cnpj_valid)('accepts %s as bare upper-case characters', (cnpj) => {
    expect(accepted('CNPJ', cnpj)).toBe(cnpj.replace(/[./-]/g, '').toUpperCase());
  });
  it.each(fixtures.cnpj_invalid)('refuses %s', (cnpj) => {
    expect(refusal('CNPJ', cnpj)).toMatch(/^key: not a valid CNPJ \(/);
  });
  it('normalises an alphanumeric CNPJ', () => {
    expect(accepted('CNPJ', '2p.76b.mnx/0001-66')).toBe('2P76BMNX000166');
    expect(refusal('CNPJ', '12ABC34501DE36')).toBe('key: not a valid CNPJ (check digits do not match)');
  });
});

describe('EMAIL keys', () => {
  it('trims and lower-cases', () => {
    expect(accepted('EMAIL', '  Maria.Silva+pix@Example.COM.br ')).toBe('maria.silva+pix@example.com.br');
    expect(accepted('EMAIL', 'fail@sandbox.test')).toBe('fail@sandbox.test');
  });
  it('accepts 77 characters and refuses 78', () => {
    const domain = '@example.com';
    expect(accepted('EMAIL', 'a'.repeat(77 - domain.length) + domain)).toHaveLength(77);
    expect(refusal('EMAIL', 'a'.repeat(78 - domain.length) + domain)).toBe(
      'key: an e-mail key has at most 77 characters (got 78)',
    );
  });
  it.each([
    'plainaddress',
    '@example.com',
    'user@',
    'user@localhost',
    'user@@example.com',
    'user name@example.com',
    '.user@example.com',
    'user.@example.com',
    'us..er@example.com',
    'user@-example.com',
    'user@example-.com',
    'user@example..com',
    'user@example.c',
    'user@example.123',
    'usér@example.com',
    '',
  ])('refuses %j', (email) => {
    expect(refusal('EMAIL', email)).toBe('key: not a valid e-mail address');
  });
});

describe('PHONE keys', () => {
  it.each([
    ['+5511987654321', '+5511987654321'],
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['+55 11 9 8765 4321', '+5511987654321'],
    ['+55-21-3456-7890', '+552134567890'],
    ['+5599912345678', '+5599912345678'],
  ])('accepts %j as %s', (input, key) => {
    expect(accepted('PHONE', input)).toBe(key);
  });
  it('requires the +55 country code', () => {
    expect(refusal('PHONE', '11987654321')).toBe('key: a phone key starts with +55 (Brazil country code)');
    expect(refusal('PHONE', '5511987654321')).toMatch(/starts with \+55/);
    expect(refusal('PHONE', '+1 415 555 0100')).toMatch(/starts with \+55/);
  });
  it('refuses area codes with a 0 digit or below 11', () => {
    expect(refusal('PHONE', '+5510987654321')).toMatch(/^key: not a valid area code/);
    expect(refusal('PHONE', '+5501987654321')).toMatch(/^key: not a valid area code/);
    expect(refusal('PHONE', '+5520987654321')).toMatch(/^key: not a valid area code/);
  });
  it('requires 8 digits, or 9 starting with 9, after the area code', () => {
    expect(refusal('PHONE', '+5511887654321')).toBe('key: a 9-digit phone number starts with 9');
    expect(refusal('PHONE', '+55119876543')).toMatch(/8 or 9 digits/);
    expect(refusal('PHONE', '+55119876543210')).toMatch(/8 or 9 digits/);
  });
  it('refuses letters and other punctuation', () => {
    expect(refusal('PHONE', '+55 11 98765.4321')).toMatch(/only digits/);
    expect(refusal('PHONE', '+55 11 9876A4321')).toMatch(/only digits/);
  });
});

describe('EVP keys', () => {
  it('accepts a UUID of any version and lower-cases it', () => {
    expect(accepted('EVP', '123E4567-E89B-12D3-A456-426614174000')).toBe('123e4567-e89b-12d3-a456-426614174000');
    expect(accepted('EVP', 'cf1e1064-930c-42ec-9abf-03871cad65c1')).toBe('cf1e1064-930c-42ec-9abf-03871cad65c1');
    expect(accepted('EVP', '01890a5d-ac96-774b-bcce-b302099a8057')).toBe('01890a5d-ac96-774b-bcce-b302099a8057');
  });
  it.each([
    'cf1e1064930c42ec9abf03871cad65c1',
    'cf1e1064-930c-42ec-9abf-03871cad65c',
    'cf1e1064-930c-42ec-9abf-03871cad65c1x',
    '{cf1e1064-930c-42ec-9abf-03871cad65c1}',
    'gf1e1064-930c-42ec-9abf-03871cad65c1',
  ])('refuses %s', (evp) => {
    expect(refusal('EVP', evp)).toBe('key: not a valid random key (EVP): expected a UUID');
  });
});

it('refuses an unknown key type from an untyped caller', () => {
  const result = normalizePixKey('IBAN' as PixKeyType, 'x');
  expect(result).toEqual({ ok: false, message: 'key_type: must be one of EVP, EMAIL, PHONE, CPF, CNPJ' });
});
