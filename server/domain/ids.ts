import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../../contract/ids';


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
