/**
 * Token buckets per account (RATE_LIMIT_RPS, burst twice that), and the limits on credential attempts.
 * In memory: limits are per process, which is what one process serving everything needs.
 */
export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly rps: number, private readonly now: () => number = Date.now) {}

  /** null when allowed, else the seconds to wait. */
  take(key: string): number | null {
    if (this.rps <= 0) return null;
    const capacity = this.rps * 2;
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.rps);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.buckets.set(key, b);
      return null;
    }
    this.buckets.set(key, b);
    if (this.buckets.size > 100_000) this.sweep(t);
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rps));
  }

  private sweep(t: number) {
    for (const [k, b] of this.buckets) if (t - b.at > 60_000) this.buckets.delete(k);
  }
}

/**
 * Attempts per key in a fixed window (from the key's first attempt). An attempt counts from the moment
 * it starts, before its credential is checked, so concurrent attempts cannot exceed `max`; it stops
 * counting only if it succeeds. Refused attempts are not checked at all.
 */
export class AttemptWindow {
  private entries = new Map<string, { count: number; until: number }>();
  constructor(readonly max: number, readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Counts an attempt: null when it may go ahead, else the seconds until the key may try again. */
  attempt(key: string): number | null {
    const t = this.now();
    let e = this.entries.get(key);
    if (!e || t >= e.until) {
      e = { count: 0, until: t + this.windowMs };
      this.entries.set(key, e);
      if (this.entries.size > 100_000) this.sweep(t);
    }
    if (e.count >= this.max) return Math.max(1, Math.ceil((e.until - t) / 1000));
    e.count += 1;
    return null;
  }

  /** The attempt turned out right: it no longer counts against the key. */
  succeeded(key: string) {
    const e = this.entries.get(key);
    if (e && e.count > 0) e.count -= 1;
  }

  /** Attempts counted against the key in its current window (in flight, failed or refused). */
  count(key: string): number {
    const e = this.entries.get(key);
    return e && this.now() < e.until ? e.count : 0;
  }

  private sweep(t: number) {
    for (const [k, e] of this.entries) if (t >= e.until) this.entries.delete(k);
  }
}

/** After n failures the next check of the key waits this long: 250 ms, 500 ms, 1 s, … up to a minute. */
export function growingDelayMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(60_000, 250 * 2 ** (failures - 1));
}

/**
 * A growing delay per key (an email): each failure pushes the key's next check further out, and one
 * check runs at a time. It slows guessing without a lock anyone could trigger: `begin(key, clean)` with
 * `clean` (the attempt comes from an address with nothing against it) is never refused, so failures
 * from elsewhere never keep the right person out. Failures are forgotten after `forgetMs` without one.
 */
export class GrowingDelay {
  private entries = new Map<string, { failures: number; notBefore: number; inFlight: number; lastFailure: number }>();
  constructor(private readonly forgetMs: number, private readonly now: () => number = Date.now) {}

  /** null when the attempt may be checked now (it is then in flight until `settle`), else seconds to wait. */
  begin(key: string, clean: boolean): number | null {
    const t = this.now();
    let e = this.entries.get(key);
    if (e && e.inFlight === 0 && t - e.lastFailure >= this.forgetMs) { this.entries.delete(key); e = undefined; }
    if (!e) {
      e = { failures: 0, notBefore: 0, inFlight: 0, lastFailure: t };
      this.entries.set(key, e);
      if (this.entries.size > 100_000) this.sweep(t);
    }
    if (!clean && (e.inFlight > 0 || t < e.notBefore)) return Math.max(1, Math.ceil((e.notBefore - t) / 1000));
    e.inFlight += 1;
    return null;
  }

  settle(key: string, ok: boolean) {
    const e = this.entries.get(key);
    if (!e) return;
    e.inFlight = Math.max(0, e.inFlight - 1);
    if (ok) { e.failures = 0; e.notBefore = 0; return; }
    const t = this.now();
    e.failures += 1;
    e.lastFailure = t;
    e.notBefore = Math.max(e.notBefore, t + growingDelayMs(e.failures));
  }

  failures(key: string): number { return this.entries.get(key)?.failures ?? 0; }

  private sweep(t: number) {
    for (const [k, e] of this.entries) if (e.inFlight === 0 && t - e.lastFailure >= this.forgetMs) this.entries.delete(k);
  }
}

/**
 * DECISIONS "Sign-in and token limits". Client tokens are unguessable, so token requests are limited
 * per client address only, never per code; dashboard passwords get a growing delay per email and a
 * window per client address.
 */
export interface RateLimits {
  perAccount: TokenBuckets;
  tokenByAddress: AttemptWindow;
  signInByAddress: AttemptWindow;
  signInByEmail: GrowingDelay;
}

export const TOKEN_ATTEMPTS_PER_ADDRESS = { max: 30, windowMs: 60_000 };
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = { max: 20, windowMs: 10 * 60_000 };
export const SIGN_IN_FAILURES_FORGOTTEN_MS = 15 * 60_000;

export function createRateLimits(rps: number, now: () => number = Date.now): RateLimits {
  return {
    perAccount: new TokenBuckets(rps),
    tokenByAddress: new AttemptWindow(TOKEN_ATTEMPTS_PER_ADDRESS.max, TOKEN_ATTEMPTS_PER_ADDRESS.windowMs, now),
    signInByAddress: new AttemptWindow(SIGN_IN_ATTEMPTS_PER_ADDRESS.max, SIGN_IN_ATTEMPTS_PER_ADDRESS.windowMs, now),
    signInByEmail: new GrowingDelay(SIGN_IN_FAILURES_FORGOTTEN_MS, now),
  };
}
