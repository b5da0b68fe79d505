// Independent readers of Pix BR Codes for tests, written apart from server/domain/pix: readBrCode, a
// TLV walk (nested one level for templates 26 and 62) and a bit-by-bit CRC16-CCITT-FALSE, which also
// sees the field order and the fields pix-utils does not return; and parseWithPixUtils, the published
// pix-utils parser (a dev dependency), so the check does not rest on code of ours alone.
import { hasError, isStaticPix, parsePix, type PixError } from 'pix-utils';

function tlv(payload: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let i = 0;
  while (i < payload.length) {
    const id = payload.substring(i, i + 2);
    const len = parseInt(payload.substring(i + 2, i + 4), 10);
    if (!/^\d\d$/.test(id) || Number.isNaN(len) || i + 4 + len > payload.length) throw new Error(`bad TLV at ${i}`);
    out.push([id, payload.substring(i + 4, i + 4 + len)]);
    i += 4 + len;
  }
  return out;
}

function crc(text: string): string {
  let c = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    c ^= byte << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
  }
  return c.toString(16).toUpperCase().padStart(4, '0');
}

export function readBrCode(code: string) {
  const top = tlv(code);
  const get = (id: string) => top.find(([k]) => k === id)?.[1];
  const sub = (id: string) => tlv(get(id) ?? '');
  const acct = sub('26');
  const extra = sub('62');
  return {
    order: top.map(([k]) => k),
    crcOk: code.endsWith(get('63') ?? '####') && crc(code.slice(0, -4)) === get('63'),
    format: get('00'),
    initiation: get('01'),
    gui: acct.find(([k]) => k === '00')?.[1].toLowerCase(),
    key: acct.find(([k]) => k === '01')?.[1],
    mcc: get('52'),
    currency: get('53'),
    amount: get('54'),
    country: get('58'),
    name: get('59'),
    city: get('60'),
    txid: extra.find(([k]) => k === '05')?.[1],
  };
}

/**
 * The same payload read by pix-utils (an npm package written apart from this project, with its own
 * EMV walker and CRC check): the fields a payer's app takes from a static BR Code. Throws with
 * pix-utils' own message ("invalid emv code", "invalid crc", …) when it refuses the payload, and
 * when the payload is not a static (key-based) Pix.
 */
export function parseWithPixUtils(code: string) {
  const parsed = parsePix(code);
  if (hasError(parsed)) throw new Error(`pix-utils refused the BR Code: ${(parsed as PixError).message}`);
  if (!isStaticPix(parsed)) throw new Error(`pix-utils read a ${(parsed as { type?: string }).type} Pix, not a static one`);
  const { pixKey, transactionAmount, merchantName, merchantCity, txid, infoAdicional, merchantCategoryCode, transactionCurrency, countryCode } = parsed;
  return { pixKey, transactionAmount, merchantName, merchantCity, txid, infoAdicional, merchantCategoryCode, transactionCurrency, countryCode };
}
