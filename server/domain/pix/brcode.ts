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
  return closePayload(merchantAccount, formatBrCodeAmount(input.amountCents), input, txid);
}

export interface DynamicPixBrCodeInput {
  /**
   * The location of the charge's payload without its scheme (`pix.example.com/qr/v2/…`): the payer's
   * bank prefixes `https://` itself, as the BCB manual prescribes.
   */
  url: string;
  merchantName: string;
  merchantCity: string;
}

/** The BCB manual caps the location URL (field 26-25) at 77 characters, so that field 26 fits in 99. */
export const MAX_LOCATION_URL_LENGTH = 77;

/**
 * The BR Code of a dynamic QR code (a `cob` or `cobv` of the API Pix): field 26 carries the GUI and
 * the location URL (sub-field 25) instead of a key; no amount (the payload at the URL says it, and for
 * a cobv it depends on the day paid) and txid "***" in 62-05, as the manual requires of dynamic codes
 * (the txid travels in the signed payload). Point of initiation 12: a charge is paid once.
 */
export function buildDynamicPixBrCode(input: DynamicPixBrCodeInput): string {
  const url = input.url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new BrCodeError('brcode: the location URL is written without its scheme (no "https://")');
  }
  if (!/^[\x21-\x7e]+$/.test(url) || !url.includes('/')) {
    throw new BrCodeError('brcode: the location URL must be host/path in printable ASCII without spaces');
  }
  if (url.length > MAX_LOCATION_URL_LENGTH) {
    throw new BrCodeError(`brcode: the location URL is ${url.length} characters long (at most ${MAX_LOCATION_URL_LENGTH})`);
  }
  return closePayload(field('00', PIX_GUI) + field('25', url), undefined, input, NO_TXID);
}

/** Everything after the merchant account: the fields both forms share, in EMV order, and the CRC. */
function closePayload(
  merchantAccount: string,
  amount: string | undefined,
  merchant: { merchantName: string; merchantCity: string },
  txid: string,
): string {
  const payload =
    field('00', '01') + // payload format indicator
    field('01', '12') + // point of initiation: 12 = single use
    field('26', merchantAccount) +
    field('52', '0000') + // merchant category code: not informed
    field('53', '986') + // currency: BRL (ISO 4217)
    (amount === undefined ? '' : field('54', amount)) +
    field('58', 'BR') +
    field('59', requiredText('merchant name', merchant.merchantName, MAX_MERCHANT_NAME_LENGTH)) +
    field('60', requiredText('merchant city', merchant.merchantCity, MAX_MERCHANT_CITY_LENGTH)) +
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

interface ReadBrCodeCommon {
  merchantName: string;
  merchantCity: string;
  /** Field 01 is "12": the code may be paid once. */
  singleUse: boolean;
  /** 62-05 as written: "***" when the code names no txid (always so in a dynamic code). */
  txid: string;
}
/** A static code: the key and, when given, the amount to pay. */
export interface StaticPixBrCode extends ReadBrCodeCommon {
  kind: 'static';
  key: string;
  amountCents?: number;
  description?: string;
}
/** A dynamic code: where the payer's bank fetches the signed payload (`https://` + url). */
export interface DynamicPixBrCode extends ReadBrCodeCommon {
  kind: 'dynamic';
  url: string;
}
export type PixBrCode = StaticPixBrCode | DynamicPixBrCode;

/** EMV writes amounts as "1", "1.5" or "1.50"; integer cents by string arithmetic, as when writing. */
function amountToCents(text: string): number {
  const m = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new BrCodeError(`brcode: field 54 "${text}" is not an amount`);
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/**
 * A Pix BR Code read as a payer's app would: the CRC checked, then either the key (static) or the
 * location URL (dynamic) of the Pix merchant account template (GUI br.gov.bcb.pix, in any of 26–51;
 * the GUI compared without case, as published samples write it both ways). Throws BrCodeError on a
 * code that is malformed, fails its CRC or is not a Pix.
 */
export function readPixBrCode(s: string): PixBrCode {
  if (!verifyBrCodeCrc(s)) throw new BrCodeError('brcode: the CRC (field 63) does not match the payload');
  const fields = parseBrCode(s);
  if (fields['00'] !== '01') throw new BrCodeError('brcode: field 00 (payload format indicator) must be "01"');
  let account: BrCodeFields | undefined;
  for (let id = 26; id <= 51 && !account; id++) {
    const t = fields[String(id)];
    if (typeof t === 'object' && typeof t['00'] === 'string' && t['00'].toLowerCase() === PIX_GUI) account = t;
  }
  if (!account) throw new BrCodeError(`brcode: no merchant account template with the GUI ${PIX_GUI}`);
  const text = (id: string, label: string): string => {
    const v = fields[id];
    if (typeof v !== 'string' || v === '') throw new BrCodeError(`brcode: field ${id} (${label}) is missing`);
    return v;
  };
  const extra = fields['62'];
  const common: ReadBrCodeCommon = {
    merchantName: text('59', 'merchant name'),
    merchantCity: text('60', 'merchant city'),
    singleUse: fields['01'] === '12',
    txid: typeof extra === 'object' && typeof extra['05'] === 'string' ? extra['05'] : NO_TXID,
  };
  const url = account['25'];
  const key = account['01'];
  if (typeof url === 'string' && typeof key === 'string') {
    throw new BrCodeError('brcode: the merchant account template holds both a key (01) and a URL (25)');
  }
  if (typeof url === 'string') {
    if (url === '') throw new BrCodeError('brcode: the location URL (26-25) is empty');
    return { kind: 'dynamic', url, ...common };
  }
  if (typeof key !== 'string' || key === '') throw new BrCodeError('brcode: the merchant account template holds neither a key (01) nor a URL (25)');
  const amount = fields['54'];
  const description = account['02'];
  return {
    kind: 'static',
    key,
    ...(typeof amount === 'string' ? { amountCents: amountToCents(amount) } : {}),
    ...(typeof description === 'string' ? { description } : {}),
    ...common,
  };
}
