import { randomBytes } from 'node:crypto';

/** Every identifier carries a prefix from this one map, so a stray id says what it is. */
export const ID_PREFIX = {
  account: 'acc',
  accessToken: 'tok',
  dashboardUser: 'usr',
  session: 'ses',
  auditEntry: 'aud',
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
  refund: 'rf',
  // a statement movement is a ledger line; its id is this prefix and the line's sequence number
  ledgerLine: 'lnl',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn in blocks: one syscall per id showed up on the write path.
let pool = Buffer.alloc(0);
let offset = 0;
function takeRandom(n: number): Buffer {
  if (offset + n > pool.length) { pool = randomBytes(4096); offset = 0; }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

/** base-36 characters from crypto randomness (20 give ~103 bits); bytes ≥ 252 are redrawn to avoid bias. */
export function randomId(length = 20): string {
  let out = '';
  while (out.length < length) {
    const bytes = takeRandom(length - out.length);
    for (const b of bytes) if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

/**
 * `<prefix>_` + 9 base-36 characters of the millisecond clock + 11 random ones (~57 bits). Time first
 * so that new rows land at the right edge of every index keyed by id: with fully random ids each insert
 * dirtied a random page of every such index, and a group commit of 50 withdrawals wrote ~2 MB of WAL.
 * Ids stay unguessable enough for their use: every read is scoped to the caller's account anyway.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${now.toString(36).padStart(9, '0')}${randomId(11)}`;
}
