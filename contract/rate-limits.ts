// The rate limits' shape and numbers (pure): the in-memory limits of db/memory-rate-limits.ts and the
// PostgreSQL rows of db/pg/rate-limits.ts implement the same interfaces with the same constants.

/** How many requests an account may send at once (after a quiet spell): two seconds' worth. */
export function burstFor(rps: number): number {
  return rps * 2;
}

/** The growing delay's first step and ceiling (db/pg/rate-limits.ts computes the same in SQL). */
export const GROWING_DELAY = { firstMs: 250, maxMs: 60_000 };

/** After n failures the next check of the key waits this long: 250 ms, 500 ms, 1 s, … up to a minute. */
export function growingDelayMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(GROWING_DELAY.maxMs, GROWING_DELAY.firstMs * 2 ** (failures - 1));
}

/** A limit on requests per key (an account): `take` answers null when allowed, else the seconds to wait. */
export interface RequestRate {
  take(key: string): Promise<number | null>;
}

/** AttemptWindow's calls, awaited (the PostgreSQL rows answer over the network). */
export interface AttemptLimit {
  attempt(key: string): Promise<number | null>;
  succeeded(key: string): Promise<void>;
}

/**
 * The limits of a password check: a window of attempts per client address and a growing delay per email.
 * `begin` is one step: it counts the attempt against the address and, if the address may go on, begins
 * the email's check (clean when the address had nothing counted against it). As one step, concurrent
 * attempts from one address are ordered: the first is the clean one and the others find its check in
 * flight (two separate awaited calls would let a later attempt begin the email first). null when the
 * password may be checked now (then `settle` must follow), else the seconds to wait.
 */
export interface PasswordLimits {
  begin(address: string, email: string): Promise<number | null>;
  /** The check is over: the email's delay grows on a failure; a success no longer counts against the address. */
  settle(address: string, email: string, ok: boolean): Promise<void>;
  /** The email's failures on record (for tests and operators). */
  failures(email: string): Promise<number>;
}

/**
 * docs/decisions.md "Sign-in and token limits". Client tokens are unguessable, so token requests are limited
 * per client address only, never per code; dashboard passwords get a growing delay per email and a
 * window per client address. Two implementations: MemoryRateLimits (one process: SQLite) and
 * PgRateLimits (db/pg/rate-limits.ts: rows shared by every instance on one PostgreSQL, docs/decisions.md
 * "Engines").
 */
export interface RateLimits {
  perAccount: RequestRate;
  tokenByAddress: AttemptLimit;
  signIn: PasswordLimits;
}

export const TOKEN_ATTEMPTS_PER_ADDRESS = { max: 30, windowMs: 60_000 };
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = { max: 20, windowMs: 10 * 60_000 };
export const SIGN_IN_FAILURES_FORGOTTEN_MS = 15 * 60_000;
