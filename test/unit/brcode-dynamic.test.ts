// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import { createDynamicPix, hasError, isDynamicPix, parsePix, type PixError } from 'pix-utils';
import fixtures from '../fixtures/pix-fixtures.json';
import {
  BrCodeError,
  buildDynamicPixBrCode,
  buildPixBrCode,
  readPixBrCode,
  verifyBrCodeCrc,
  MAX_LOCATION_URL_LENGTH,
  type DynamicPixBrCodeInput,
} from '../../server/domain/pix/brcode';
import { readBrCode } from '../support/brcode-reader';

// The dynamic BR Code of the API Pix: field 26 holds the GUI and the location URL (26-25), no key, no
// amount, txid "***". Checked against a published dynamic sample, against pix-utils (a generator and
// parser written apart from this project) and against the test's own TLV walk.

const [publishedDynamic] = fixtures.brcodes_valid;

/** pix-utils' reading of a dynamic code, or its refusal as an error. */
function pixUtilsDynamic(code: string) {
  const parsed = parsePix(code);
  if (hasError(parsed)) throw new Error(`pix-utils refused the BR Code: ${(parsed as PixError).message}`);
  if (!isDynamicPix(parsed)) throw new Error(`pix-utils read a ${(parsed as { type?: string }).type} Pix, not a dynamic one`);
  const { url, merchantName, merchantCity, merchantCategoryCode, transactionCurrency, countryCode } = parsed;
  return { url, merchantName, merchantCity, merchantCategoryCode, transactionCurrency, countryCode };
}

const base: DynamicPixBrCodeInput = {
  url: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
  merchantName: 'Loja Exemplo',
  merchantCity: 'Sao Paulo',
};

describe('the published dynamic BR Code', () => {
  it('is read as dynamic: its URL, name, city, single use and txid ***', () => {
    expect(publishedDynamic).toContain('2565qrcode.santsbank.com/');
    expect(readPixBrCode(publishedDynamic)).toEqual({
      kind: 'dynamic',
      url: 'qrcode.santsbank.com/dynamic/cf1e1064-930c-42ec-9abf-03871cad65c1',
      merchantName: 'SYFRA LTDA',
      merchantCity: 'SAO PAULO',
      singleUse: true,
      txid: '***',
    });
    // and pix-utils reads the same URL from it
    expect(pixUtilsDynamic(publishedDynamic).url).toBe('qrcode.santsbank.com/dynamic/cf1e1064-930c-42ec-9abf-03871cad65c1');
  });

  it('is rebuilt byte for byte from what was read (same field order, lengths and CRC)', () => {
    const read = readPixBrCode(publishedDynamic);
    if (read.kind !== 'dynamic') throw new Error('expected a dynamic code');
    expect(buildDynamicPixBrCode({ url: read.url, merchantName: read.merchantName, merchantCity: read.merchantCity })).toBe(publishedDynamic);
  });

  it('the static samples are read as static, with key, amount and description', () => {
    const [, withDescription, brasilia] = fixtures.brcodes_valid;
    expect(readPixBrCode(withDescription)).toEqual({
      kind: 'static', key: 'nubank@thalesog.com', amountCents: 100, description: 'Gerado por Pix-Utils',
      merchantName: 'Thales Ogliari', merchantCity: 'SAO MIGUEL DO O', singleUse: false, txid: '***',
    });
    // upper-case GUI and the one-short field 62 of that sample
    expect(readPixBrCode(brasilia)).toMatchObject({ kind: 'static', key: '+5511943214321', amountCents: 6666, merchantName: 'EMPRESA' });
  });
});

describe('buildDynamicPixBrCode', () => {
  it('writes the fields in EMV order: GUI and URL in 26, no key, no amount, 01 = 12, 62-05 = ***', () => {
    const code = buildDynamicPixBrCode(base);
    const read = readBrCode(code);
    expect(read.order).toEqual(['00', '01', '26', '52', '53', '58', '59', '60', '62', '63']);
    expect(read).toMatchObject({ format: '01', initiation: '12', gui: 'br.gov.bcb.pix', key: undefined, amount: undefined, txid: '***', crcOk: true });
    expect(code).toContain(`25${base.url.length}${base.url}`);
    expect(code.startsWith(`00020101021226${String(18 + 4 + base.url.length).padStart(2, '0')}0014br.gov.bcb.pix25`)).toBe(true);
    expect(verifyBrCodeCrc(code)).toBe(true);
  });

  it('is exactly what pix-utils generates for the same single-use dynamic code', () => {
    // pix-utils writes name and city in capitals; we keep them as given, so compare on capitals
    for (const input of [
      { ...base, merchantName: 'LOJA EXEMPLO', merchantCity: 'SAO PAULO' },
      { url: 'qrcode.santsbank.com/dynamic/cf1e1064-930c-42ec-9abf-03871cad65c1', merchantName: 'SYFRA LTDA', merchantCity: 'SAO PAULO' },
      { url: 'pix.example.com/v2/cobv/' + 'a'.repeat(53), merchantName: 'EMPRESA', merchantCity: 'BRASILIA' },
    ]) {
      const theirs = createDynamicPix({ ...input, oneTime: true });
      if (hasError(theirs)) throw new Error('pix-utils could not build the code');
      expect(buildDynamicPixBrCode(input)).toBe(theirs.toBRCode());
    }
  });

  it('round-trips through readPixBrCode and through pix-utils', () => {
    const inputs: DynamicPixBrCodeInput[] = [
      base,
      { ...base, merchantName: 'Padaria São João da Esquina Ltda ME', merchantCity: 'São José dos Campos' },
      { ...base, url: `h.io/${'x'.repeat(MAX_LOCATION_URL_LENGTH - 5)}` },
      { ...base, url: 'pix.example.com:8443/qr/v2/cobv/ABC123' },
    ];
    for (const input of inputs) {
      const code = buildDynamicPixBrCode(input);
      const read = readPixBrCode(code);
      expect(read).toEqual({
        kind: 'dynamic', url: input.url, singleUse: true, txid: '***',
        merchantName: read.merchantName, merchantCity: read.merchantCity,
      });
      expect(pixUtilsDynamic(code)).toEqual({
        url: input.url, merchantName: read.merchantName, merchantCity: read.merchantCity,
        merchantCategoryCode: '0000', transactionCurrency: '986', countryCode: 'BR',
      });
    }
    expect(readPixBrCode(buildDynamicPixBrCode(inputs[1]))).toMatchObject({ merchantName: 'Padaria Sao Joao da Esqui', merchantCity: 'Sao Jose dos Ca' });
  });

  it('a 77-character URL fills field 26 to exactly 99; one more is refused', () => {
    const url = `pix.example.com/${'a'.repeat(MAX_LOCATION_URL_LENGTH - 16)}`;
    expect(url).toHaveLength(77);
    expect(buildDynamicPixBrCode({ ...base, url })).toContain(`2699${'0014br.gov.bcb.pix'}2577${url}`);
    expect(() => buildDynamicPixBrCode({ ...base, url: `${url}a` })).toThrow('brcode: the location URL is 78 characters long (at most 77)');
  });

  it('refuses a URL with a scheme, spaces, no path, or characters outside printable ASCII', () => {
    expect(() => buildDynamicPixBrCode({ ...base, url: `https://${base.url}` })).toThrow(/without its scheme/);
    expect(() => buildDynamicPixBrCode({ ...base, url: 'HTTP://pix.example.com/x' })).toThrow(/without its scheme/);
    expect(() => buildDynamicPixBrCode({ ...base, url: 'pix.example.com/a b' })).toThrow(BrCodeError);
    expect(() => buildDynamicPixBrCode({ ...base, url: 'pix.example.com' })).toThrow(BrCodeError);
    expect(() => buildDynamicPixBrCode({ ...base, url: 'pix.exämple.com/x' })).toThrow(BrCodeError);
    expect(() => buildDynamicPixBrCode({ ...base, url: '' })).toThrow(BrCodeError);
    expect(() => buildDynamicPixBrCode({ ...base, merchantName: '  ' })).toThrow(/merchant name/);
  });
});

describe('readPixBrCode refuses', () => {
  const code = buildDynamicPixBrCode(base);
  it('a code whose CRC does not match (one character of the URL changed)', () => {
    expect(() => readPixBrCode(code.replace('/qr/v2/', '/qr/v3/'))).toThrow('brcode: the CRC (field 63) does not match the payload');
  });
  it('a code without the Pix GUI, or with both a key and a URL, or with neither', () => {
    const f = (id: string, v: string) => id + String(v.length).padStart(2, '0') + v;
    const withCrc = (account: string) => {
      const body = f('00', '01') + f('01', '12') + f('26', account) + '5204000053039865802BR5907EMPRESA6008BRASILIA62070503***6304';
      return body + crcOf(body);
    };
    expect(readPixBrCode(withCrc(f('00', 'br.gov.bcb.pix') + f('25', 'x.io/y')))).toMatchObject({ kind: 'dynamic', url: 'x.io/y' });
    expect(() => readPixBrCode(withCrc(f('00', 'com.example.pay') + f('25', 'x.io/y')))).toThrow(/GUI/);
    expect(() => readPixBrCode(withCrc(f('00', 'br.gov.bcb.pix') + f('01', 'a@b.co') + f('25', 'x.io/y')))).toThrow(/both a key/);
    expect(() => readPixBrCode(withCrc(f('00', 'br.gov.bcb.pix')))).toThrow(/neither a key/);
  });
  it('what is not a BR Code at all', () => {
    expect(() => readPixBrCode('')).toThrow(BrCodeError);
    expect(() => readPixBrCode('hello')).toThrow(BrCodeError);
    // a well-formed static code still reads; the builder of static codes is untouched
    expect(readPixBrCode(buildPixBrCode({ key: 'a@b.co', amountCents: 150, merchantName: 'X', merchantCity: 'Y', txid: 'abc' }))).toMatchObject({ kind: 'static', amountCents: 150, txid: 'abc', singleUse: true });
  });
});

// A bit-by-bit CRC16-CCITT-FALSE, apart from the module under test, to seal hand-made payloads.
function crcOf(text: string): string {
  let c = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    c ^= byte << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  }
  return c.toString(16).toUpperCase().padStart(4, '0');
}
