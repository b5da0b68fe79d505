// The Pix charge behind a PIX transaction: the merchant's receiving key and the BR Code payload.
import { createHash } from 'node:crypto';
import { buildPixBrCode, toBrCodeText, MAX_MERCHANT_NAME_LENGTH } from '../pix/brcode';

/**
 * The EVP an account is created with (and that accounts created before keys were stored were given by
 * the start-up backfill): the first 16 bytes of SHA-256("pix-evp:" + account id) shaped as a UUID v4
 * (version nibble 4, variant 10xx). The same account always gets the same key; it is stored as the
 * account's first key (server/domain/pix-api/keys.ts), which is what charges read now.
 */
export function merchantPixKey(accountId: string): string {
  const b = createHash('sha256').update(`pix-evp:${accountId}`).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The transaction's `identifier`, which is also the BR Code's txid: the transaction id without its
 * underscore (`txn_abc…` → `txnabc…`, 23 letters and digits; the txid allows [A-Za-z0-9]{1,25}), so a
 * payment received with that txid reconciles to exactly one transaction.
 */
export function transactionIdentifier(transactionId: string): string {
  return transactionId.replace('_', '');
}

/** `key`: the account's receiving key (server/domain/pix-api/keys.ts); the derived EVP when not given. */
export function pixChargeBrCode(o: { accountId: string; key?: string; merchantName: string; merchantCity: string; amount: number; txid: string }): string {
  // A name with no printable Latin characters left after transliteration would make no field 59.
  const name = toBrCodeText(o.merchantName, MAX_MERCHANT_NAME_LENGTH) || 'MERCHANT';
  return buildPixBrCode({ key: o.key ?? merchantPixKey(o.accountId), amountCents: o.amount, merchantName: name, merchantCity: o.merchantCity, txid: o.txid });
}
