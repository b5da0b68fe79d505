import { randomBytes } from 'node:crypto';

/** Every identifier carries a prefix from this one map, so a stray id says what it is. */
export const ID_PREFIX = {
  account: 'acc',
  accessToken: 'tok',
  dashboardUser: 'usr',
  session: 'ses',
  ledgerBook: 'lbk',
  ledgerEntry: 'lje',
  event: 'evt',
  withdrawal: 'wd',
  batch: 'wdb',
  transaction: 'txn',
  invoice: 'inv',
  customer: 'cus',
  dispute: 'dsp',
  webhook: 'wh',
  delivery: 'dlv',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** 20 base-36 characters from crypto randomness: ~103 bits. */
export function randomId(length = 20): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % 36];
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomId()}`;
}
