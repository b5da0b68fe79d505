// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import fixtures from '../fixtures/pix-fixtures.json';
import { crc16CcittFalse } from '../../server/domain/pix/crc16';
import {
  BrCodeError,
  buildPixBrCode,
  formatBrCodeAmount,
  parseBrCode,
  verifyBrCodeCrc,
  type BrCodeFields,
  type PixBrCodeInput,
} from '../../server/domain/pix/brcode';
import { parseWithPixUtils } from '../support/brcode-reader';

// Two independent readings of a payload, both apart from the module under test: pix-utils' parsePix
// (a published parser, through parseWithPixUtils) and, below, a flat TLV walk into [id, value] pairs
// with a bit-by-bit CRC, which also sees the field order and the ids pix-utils does not report.
function readTlv(payload: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let rest = payload;
  while (rest.length > 0) {
    const m = /^(\d\d)(\d\d)/.exec(rest);
    if (!m) throw new Error(`bad TLV header in ${rest}`);
    const length = parseInt(m[2], 10);
    if (rest.length < 4 + length) throw new Error(`field ${m[1]} overruns the payload`);
    pairs.push([m[1], rest.substr(4, length)]);
    rest = rest.substring(4 + length);
  }
  return pairs;
}

function value(pairs: Array<[string, string]>, id: string): string | undefined {
  return pairs.find(([fieldId]) => fieldId === id)?.[1];
}

function bitwiseCrc(text: string): number {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const base: PixBrCodeInput = {
  key: 'fail@sandbox.test',
  amountCents: 123456,
  merchantName: 'Loja Exemplo',
  merchantCity: 'Sao Paulo',
  txid: 'txn01HZX8ABCDEF',
};

function sub(fields: BrCodeFields, id: string): BrCodeFields {
  const template = fields[id];
  if (typeof template !== 'object') throw new Error(`field ${id} is not a template`);
  return template;
}

describe('crc16CcittFalse', () => {
  it('matches the standard check value', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
    expect(crc16CcittFalse('')).toBe('FFFF');
  });
  it('pads to 4 upper-case hex digits', () => {
    for (const text of ['a', 'ab', 'pix', '000201', 'Z'.repeat(50)]) {
      expect(crc16CcittFalse(text)).toMatch(/^[0-9A-F]{4}$/);
      expect(parseInt(crc16CcittFalse(text), 16)).toBe(bitwiseCrc(text));
    }
  });
});

describe('published BR Codes', () => {
  it.each(fixtures.brcodes_valid)('verifies and parses %s', (code) => {
    expect(verifyBrCodeCrc(code)).toBe(true);
    const fields = parseBrCode(code);
    expect(fields['00']).toBe('01');
    expect(String(sub(fields, '26')['00']).toLowerCase()).toBe('br.gov.bcb.pix');
    expect(fields['53']).toBe('986');
    expect(fields['58']).toBe('BR');
    expect(sub(fields, '62')['05']).toBe('***');
  });
  it('reads the amount, name and city of each', () => {
    const [dynamic, withDescription, brasilia] = fixtures.brcodes_valid.map(parseBrCode);
    expect(dynamic['54']).toBeUndefined();
    expect(sub(dynamic, '26')['25']).toBe('qrcode.santsbank.com/dynamic/cf1e1064-930c-42ec-9abf-03871cad65c1');
    expect([dynamic['59'], dynamic['60']]).toEqual(['SYFRA LTDA', 'SAO PAULO']);
    expect(withDescription['54']).toBe('1.00');
    expect(sub(withDescription, '26')).toEqual({
      '00': 'br.gov.bcb.pix',
      '01': 'nubank@thalesog.com',
      '02': 'Gerado por Pix-Utils',
    });
    expect([withDescription['59'], withDescription['60']]).toEqual(['Thales Ogliari', 'SAO MIGUEL DO O']);
    expect(brasilia['54']).toBe('66.66');
    expect(sub(brasilia, '26')['01']).toBe('+5511943214321');
    expect([brasilia['59'], brasilia['60']]).toEqual(['EMPRESA', 'BRASILIA']);
  });
  it('reads the same through pix-utils, which refuses the sample with a wrong declared length', () => {
    // Fixture 2 (a gateway integration's published sample) writes "6208" before the 7-character
    // "0503***": its field 62 declares one character more than it holds. Its CRC is right (computed
    // over exactly those bytes), and our parseBrCode tolerates that one off-by-one, but pix-utils'
    // strict EMV walk refuses the whole payload ("invalid emv code"). So only fixtures 0 and 1 are
    // cross-checked with pix-utils; fixture 2 is kept to pin down that difference.
    const [dynamic, withDescription, wrongLength] = fixtures.brcodes_valid;
    expect(() => parseWithPixUtils(dynamic)).toThrow(/DYNAMIC Pix, not a static one/);
    expect(parseWithPixUtils(withDescription)).toEqual({
      pixKey: 'nubank@thalesog.com', transactionAmount: 1, merchantName: 'Thales Ogliari', merchantCity: 'SAO MIGUEL DO O',
      txid: '***', infoAdicional: 'Gerado por Pix-Utils', merchantCategoryCode: '0000', transactionCurrency: '986', countryCode: 'BR',
    });
    expect(() => parseWithPixUtils(wrongLength)).toThrow('pix-utils refused the BR Code: invalid emv code');
    expect(verifyBrCodeCrc(wrongLength)).toBe(true);
  });
  it('fails verification when any character changes', () => {
    const code = fixtures.brcodes_valid[1];
    const tampered = code.replace('1.00', '9.00');
    expect(verifyBrCodeCrc(tampered)).toBe(false);
    expect(verifyBrCodeCrc(code.slice(0, -1) + (code.endsWith('A') ? 'B' : 'A'))).toBe(false);
    expect(verifyBrCodeCrc(code.slice(0, -8))).toBe(false);
    expect(verifyBrCodeCrc('')).toBe(false);
  });
  it('accepts a lower-case CRC and surrounding whitespace', () => {
    const code = fixtures.brcodes_valid[1];
    expect(verifyBrCodeCrc(`${code.slice(0, -4)}${code.slice(-4).toLowerCase()}\n`)).toBe(true);
  });
});

describe('parseBrCode', () => {
  it('throws BrCodeError on a field that overruns the payload', () => {
    expect(() => parseBrCode('000201260500')).toThrow(BrCodeError);
    expect(() => parseBrCode('0002019')).toThrow(/position 6/);
    expect(() => parseBrCode('26100014br.gov')).toThrow(BrCodeError);
  });
  it('reads a last field one character short of its declared length (a published sample does this)', () => {
    const sample = fixtures.brcodes_valid[2];
    expect(sample).toContain('62080503***6304');
    expect(sub(parseBrCode(sample), '62')).toEqual({ '05': '***' });
    expect(parseBrCode(sample)['63']).toBe('170E');
  });
  it('tolerates nothing else: a wrong length anywhere else still throws', () => {
    const code = buildPixBrCode(base);
    expect(() => parseBrCode(code.replace('5303986', '5399986'))).toThrow(BrCodeError);
    expect(() => parseBrCode(code.replace('62190515', '62210515'))).toThrow(BrCodeError); // 2 short
    expect(() => parseBrCode(code.replace('5802BR', '5803BR'))).toThrow(BrCodeError);
    expect(() => parseBrCode(code.replace('0515txn', '0516txn'))).toThrow(/in field 62/);
  });
});

describe('formatBrCodeAmount', () => {
  it.each([
    [1, '0.01'],
    [10, '0.10'],
    [100, '1.00'],
    [6666, '66.66'],
    [123456, '1234.56'],
    [1500000, '15000.00'],
    [999999999999, '9999999999.99'],
  ])('%i cents → %s', (cents, text) => {
    expect(formatBrCodeAmount(cents)).toBe(text);
  });
  it('refuses zero, negatives, fractions and amounts over 13 characters', () => {
    for (const cents of [0, -1, 1.5, Number.NaN, 1000000000000]) {
      expect(() => formatBrCodeAmount(cents)).toThrow(BrCodeError);
    }
  });
});

describe('buildPixBrCode', () => {
  it('writes the fields in order with a valid CRC', () => {
    const code = buildPixBrCode(base);
    expect(code).toBe(
      '000201010212' +
        '26390014br.gov.bcb.pix0117fail@sandbox.test' +
        '52040000530398654071234.565802BR5912Loja Exemplo6009Sao Paulo' +
        '62190515txn01HZX8ABCDEF' +
        '6304' +
        crc16CcittFalse(code.slice(0, -4)),
    );
    expect(verifyBrCodeCrc(code)).toBe(true);
  });

  it('round-trips through an independent parser', () => {
    const inputs: PixBrCodeInput[] = [
      base,
      { ...base, amountCents: 1, txid: undefined },
      { ...base, key: '+5511987654321', description: 'Pedido 42 — açaí', amountCents: 1500000 },
      { ...base, key: '123e4567-e89b-12d3-a456-426614174000', txid: 'A'.repeat(25) },
      { ...base, key: '2P76BMNX000166', merchantName: 'Padaria São João da Esquina Ltda ME', merchantCity: 'São José dos Campos' },
    ];
    for (const input of inputs) {
      const code = buildPixBrCode(input);
      const top = readTlv(code);
      expect(top.map(([id]) => id)).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
      expect(value(top, '01')).toBe('12');
      const account = readTlv(value(top, '26')!);
      expect(value(account, '00')).toBe('br.gov.bcb.pix');
      expect(value(account, '01')).toBe(input.key);
      expect(value(top, '53')).toBe('986');
      expect(Math.round(Number(value(top, '54')) * 100)).toBe(input.amountCents);
      expect(value(readTlv(value(top, '62')!), '05')).toBe(input.txid ?? '***');
      expect(parseInt(value(top, '63')!, 16)).toBe(bitwiseCrc(code.slice(0, -4)));
      expect(code).toMatch(/^[\x20-\x7e]+$/);
      // and the module's own parser agrees with the independent one
      const fields = parseBrCode(code);
      expect(fields['59']).toBe(value(top, '59'));
      expect(sub(fields, '26')['01']).toBe(input.key);
    }
  });

  it('round-trips through pix-utils: key, amount, name, city, txid and description as sent', () => {
    const cases: [PixBrCodeInput, { merchantName: string; merchantCity: string; infoAdicional?: string }][] = [
      [base, { merchantName: 'Loja Exemplo', merchantCity: 'Sao Paulo' }],
      [{ ...base, amountCents: 1, txid: undefined }, { merchantName: 'Loja Exemplo', merchantCity: 'Sao Paulo' }],
      [{ ...base, key: '+5511987654321', description: 'Pedido 42 — açaí', amountCents: 1500000 }, { merchantName: 'Loja Exemplo', merchantCity: 'Sao Paulo', infoAdicional: 'Pedido 42 acai' }],
      [{ ...base, key: '123e4567-e89b-12d3-a456-426614174000', txid: 'A'.repeat(25), amountCents: 999999999999 }, { merchantName: 'Loja Exemplo', merchantCity: 'Sao Paulo' }],
      [{ ...base, key: '2P76BMNX000166', merchantName: 'Padaria São João da Esquina Ltda ME', merchantCity: 'São José dos Campos' }, { merchantName: 'Padaria Sao Joao da Esqui', merchantCity: 'Sao Jose dos Ca' }],
      [{ ...base, key: `${'a'.repeat(65)}@example.com` }, { merchantName: 'Loja Exemplo', merchantCity: 'Sao Paulo' }],
    ];
    for (const [input, text] of cases) {
      const read = parseWithPixUtils(buildPixBrCode(input));
      expect(read).toEqual({
        pixKey: input.key,
        transactionAmount: input.amountCents / 100,
        txid: input.txid ?? '***',
        infoAdicional: text.infoAdicional,
        merchantName: text.merchantName,
        merchantCity: text.merchantCity,
        merchantCategoryCode: '0000',
        transactionCurrency: '986',
        countryCode: 'BR',
      });
      // amounts compared in cents too: pix-utils hands back a float
      expect(Math.round(read.transactionAmount! * 100)).toBe(input.amountCents);
    }
  });

  it('is refused by pix-utils when a character changes (its CRC check is live)', () => {
    const code = buildPixBrCode(base);
    expect(() => parseWithPixUtils(code.replace('1234.56', '1234.57'))).toThrow('pix-utils refused the BR Code: invalid crc');
    expect(() => parseWithPixUtils(code.replace('5912Loja', '5913Loja'))).toThrow(/pix-utils refused/);
  });

  it('strips accents and truncates name (25) and city (15)', () => {
    const code = buildPixBrCode({
      ...base,
      merchantName: 'Padaria São João da Esquina Ltda ME',
      merchantCity: 'São José dos Campos',
    });
    const fields = readTlv(code);
    expect(value(fields, '59')).toBe('Padaria Sao Joao da Esqui');
    expect(value(fields, '60')).toBe('Sao Jose dos Ca');
    expect(verifyBrCodeCrc(code)).toBe(true);
  });

  it('trims what truncation leaves at the edges and drops non-printable characters', () => {
    const fields = parseBrCode(
      buildPixBrCode({ ...base, merchantName: '  Açougue  Bom\tPreço 🥩 Ltda  ', merchantCity: 'Rio de Janeiro RJ' }),
    );
    expect(fields['59']).toBe('Acougue Bom Preco Ltda');
    expect(fields['60']).toBe('Rio de Janeiro'); // "Rio de Janeiro " cut at 15, then trimmed
  });

  it('writes the description in the merchant account template', () => {
    const fields = parseBrCode(buildPixBrCode({ ...base, description: 'Pedido nº 42' }));
    expect(sub(fields, '26')['02']).toBe('Pedido no 42');
  });

  it('refuses a template over 99 characters', () => {
    const key = `${'a'.repeat(65)}@example.com`; // 77 characters: the longest e-mail key
    expect(verifyBrCodeCrc(buildPixBrCode({ ...base, key }))).toBe(true); // 26 is exactly 99
    expect(() => buildPixBrCode({ ...base, key, description: 'x' })).toThrow('brcode: field 26 would be 104 characters long (at most 99)');
  });

  it('refuses a bad txid, an empty name or city, and a key that is not printable ASCII', () => {
    expect(() => buildPixBrCode({ ...base, txid: 'txn_123' })).toThrow(/txid/);
    expect(() => buildPixBrCode({ ...base, txid: 'A'.repeat(26) })).toThrow(/txid/);
    expect(() => buildPixBrCode({ ...base, txid: '' })).toThrow(/txid/);
    expect(() => buildPixBrCode({ ...base, merchantName: '  ' })).toThrow(/merchant name/);
    expect(() => buildPixBrCode({ ...base, merchantCity: '🥩' })).toThrow(/merchant city/);
    expect(() => buildPixBrCode({ ...base, key: '' })).toThrow(/key/);
    expect(() => buildPixBrCode({ ...base, key: 'joão@example.com' })).toThrow(/key/);
  });
});
