// EndToEndId: the 32-character id the BCB's instant payment system (SPI) gives each Pix payment:
// "E" + the payer institution's 8-digit ISPB + the UTC minute "yyyyMMddHHmm" + 11 characters
// unique within that institution and minute. A return (devolução) has the same form with "D".
import { randomInt } from 'node:crypto';

export const END_TO_END_ID_LENGTH = 32;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// The BCB format allows lower case in the last 11 characters ([a-zA-Z0-9]{11}), and the valid
// fixtures are all digits there. The fixtures' invalid example ("...23123b9c2d") is refused for
// its length (31), not for its lower case: refusing lower case would refuse ids that real PSPs issue.
const END_TO_END_PATTERN = /^([ED])(\d{8})(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})[A-Za-z0-9]{11}$/;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `yyyyMMddHHmm` in UTC, as the SPI writes it. */
function utcMinute(now: Date): string {
  return (
    pad(now.getUTCFullYear(), 4) +
    pad(now.getUTCMonth() + 1, 2) +
    pad(now.getUTCDate(), 2) +
    pad(now.getUTCHours(), 2) +
    pad(now.getUTCMinutes(), 2)
  );
}

/** `E` for a payment, `D` for a return (devolução) of one. */
export type EndToEndKind = 'E' | 'D';

/** A new end-to-end id for a payment (or, with `D`, a return) sent by the institution `ispb` at `now`. */
export function newEndToEndId(ispb: string, now: Date, kind: EndToEndKind = 'E'): string {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`end-to-end id: ISPB must be 8 digits (got "${ispb}")`);
  const year = now.getUTCFullYear();
  if (Number.isNaN(now.getTime()) || year < 1000 || year > 9999) {
    throw new RangeError('end-to-end id: the date must be valid and have a 4-digit year');
  }
  let suffix = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < 11; i++) suffix += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return `${kind}${ispb}${utcMinute(now)}${suffix}`;
}

/** Checks the shape (of `kind`) and that the timestamp is a real UTC minute (no 13th month, no 24:00). */
export function isValidEndToEndId(s: string, kind: EndToEndKind = 'E'): boolean {
  const match = END_TO_END_PATTERN.exec(s);
  if (!match || match[1] !== kind) return false;
  const [year, month, day, hour, minute] = match.slice(3, 8).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute));
  // Date.UTC rolls over out-of-range parts (month 13 → January next year): compare to catch it.
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute
  );
}
