// Pix BR Code: the EMV QR Code "Merchant-Presented Mode" payload (EMVCo MPM 1.1 as profiled by
// the BCB's "Manual de Padrões para Iniciação do Pix"). A payload is a run of TLV fields: a 2-digit
// id, a 2-digit length, then the value; some fields are templates holding TLV fields of their own.
import { crc16CcittFalse } from './crc16';

export class BrCodeError extends Error {
  override name = 'BrCodeError';
}

export interface PixBrCodeInput {
  /** A Pix key already normalised by normalizePixKey. */
  key: string;
  amountCents: number;
  merchantName: string;
  merchantCity: string;
  /** Up to 25 letters or digits; "***" (no txid) when absent. */
  txid?: string;
  /** Shown to the payer by some banking apps. */
  description?: string;
}

/** A parsed payload: field id → value, or → the fields of a template. */
export type BrCodeFields = { [id: string]: string | BrCodeFields };

export const PIX_GUI = 'br.gov.bcb.pix';
export const MAX_MERCHANT_NAME_LENGTH = 25;
export const MAX_MERCHANT_CITY_LENGTH = 15;
export const MAX_TXID_LENGTH = 25;
// EMV caps the transaction amount field (54) at 13 characters.
const MAX_AMOUNT_LENGTH = 13;

const NO_TXID = '***';

function field(id: string, value: string): string {
  // The length is written with two digits, so 99 is the most a field can hold.
  if (value.length > 99) {
    throw new BrCodeError(`brcode: field ${id} would be ${value.length} characters long (at most 99)`);
  }
  return id + String(value.length).padStart(2, '0') + value;
}

/**
 * What a BR Code can carry of a free text: accents stripped (São → Sao), only printable ASCII
 * kept, whitespace collapsed, cut to `maxLength`: the character set the BCB manual allows.
 */
export function toBrCodeText(text: string, maxLength: number): string {
  return text
    .normalize('NFKD') // NFD, plus compatibility forms: "nº" → "no", "ﬁ" → "fi"
    .replace(/\p{M}/gu, '')
    .replace(/\s/g, ' ')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, maxLength)
    .trim();
}

/** Integer cents → "1234.56", with string arithmetic only, so no float can round a cent away. */
export function formatBrCodeAmount(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new BrCodeError(`brcode: amount must be a positive integer number of cents (got ${amountCents})`);
  }
  const digits = String(amountCents).padStart(3, '0');
  const amount = `${digits.slice(0, -2)}.${digits.slice(-2)}`;
  if (amount.length > MAX_AMOUNT_LENGTH) {
    throw new BrCodeError(`brcode: amount ${amount} is longer than ${MAX_AMOUNT_LENGTH} characters`);
  }
  return amount;
}

function requiredText(label: string, text: string, maxLength: number): string {
  const value = toBrCodeText(text, maxLength);
  if (value === '') throw new BrCodeError(`brcode: ${label} has no printable characters`);
  return value;
}

/** The copy-and-paste Pix payload ("Pix Copia e Cola") for one single-use charge. */
export function buildPixBrCode(input: PixBrCodeInput): string {
  if (!/^[\x21-\x7e]+$/.test(input.key)) {
    throw new BrCodeError('brcode: key must be non-empty printable ASCII (normalise it first)');
  }
  const txid = input.txid ?? NO_TXID;
  if (txid !== NO_TXID && !/^[A-Za-z0-9]{1,25}$/.test(txid)) {
    throw new BrCodeError(`brcode: txid must be 1 to ${MAX_TXID_LENGTH} letters or digits`);
  }
  const description = input.description === undefined ? '' : toBrCodeText(input.description, 99);

  const merchantAccount =
    field('00', PIX_GUI) + field('01', input.key) + (description ? field('02', description) : '');

  const payload =
    field('00', '01') + // payload format indicator
    field('01', '12') + // point of initiation: 12 = single use
    field('26', merchantAccount) +
    field('52', '0000') + // merchant category code: not informed
    field('53', '986') + // currency: BRL (ISO 4217)
    field('54', formatBrCodeAmount(input.amountCents)) +
    field('58', 'BR') +
    field('59', requiredText('merchant name', input.merchantName, MAX_MERCHANT_NAME_LENGTH)) +
    field('60', requiredText('merchant city', input.merchantCity, MAX_MERCHANT_CITY_LENGTH)) +
    field('62', field('05', txid)) +
    '6304'; // the CRC covers everything up to and including its own id and length
  return payload + crc16CcittFalse(payload);
}

// Templates in EMV MPM: 26–51 merchant account information, 62 additional data, 64 language
// template, 80–99 unreserved templates. Everything else holds a plain value.
function isTemplate(id: number): boolean {
  return (id >= 26 && id <= 51) || id === 62 || id === 64 || (id >= 80 && id <= 99);
}

function parseFields(payload: string, template?: string, offByOneAtEnd = false): BrCodeFields {
  const where = template ? ` in field ${template}` : '';
  const fields: BrCodeFields = {};
  let at = 0;
  while (at < payload.length) {
    const header = payload.slice(at, at + 4);
    if (!/^\d{4}$/.test(header)) {
      throw new BrCodeError(`brcode: expected a 2-digit id and 2-digit length at position ${at}${where}`);
    }
    const id = header.slice(0, 2);
    const length = Number(header.slice(2));
    const value = payload.slice(at + 4, at + 4 + length);
    const toleratedAtEnd = offByOneAtEnd && value.length === length - 1;
    if (value.length !== length && !toleratedAtEnd) {
      throw new BrCodeError(
        `brcode: field ${id}${where} declares ${length} characters but ${value.length} remain`,
      );
    }
    fields[id] = !template && isTemplate(Number(id)) ? parseFields(value, id) : value;
    at += 4 + length;
  }
  return fields;
}

/** Splits a payload into its fields, templates as nested objects; throws BrCodeError if malformed. */
export function parseBrCode(s: string): BrCodeFields {
  const payload = s.trim();
  // The CRC is always the last field, so it is split off by position. The field before it may then
  // declare one character more than it has: a published gateway sample (in test/fixtures) writes
  // "6208" before the 7-character "0503***" and computes its CRC over exactly that. Only that
  // off-by-one, only there, is read up to the CRC; every other length must be exact. (Stricter
  // readers refuse that sample: pix-utils answers "invalid emv code". What we generate is exact.)
  const crc = /6304([0-9A-Fa-f]{4})$/.exec(payload);
  if (!crc) return parseFields(payload);
  const fields = parseFields(payload.slice(0, -8), undefined, true);
  fields['63'] = crc[1];
  return fields;
}

/** True when the payload ends in field 63 and its CRC matches everything before it. */
export function verifyBrCodeCrc(s: string): boolean {
  const match = /^([\s\S]*6304)([0-9A-Fa-f]{4})$/.exec(s.trim());
  if (!match) return false;
  return crc16CcittFalse(match[1]) === match[2].toUpperCase();
}
