// The rate limits in this process's memory (docs/decisions.md "Sign-in and token limits"): what one
// process serving everything needs, the limits of SQLite (db/stores/limits.ts picks them, or the
// PostgreSQL rows of db/pg/rate-limits.ts shared by every instance).
import {
  burstFor, growingDelayMs, SIGN_IN_ATTEMPTS_PER_ADDRESS, SIGN_IN_FAILURES_FORGOTTEN_MS, TOKEN_ATTEMPTS_PER_ADDRESS,
  type AttemptLimit, type PasswordLimits, type RateLimits, type RequestRate,
} from '../contract/rate-limits';

/**
 * Entries kept per limiter, whatever the number of distinct addresses or emails sent: past this, the
 * expired ones go first, then the oldest (memory stays bounded, and each sweep frees a tenth of the cap
 * so sweeps stay rare).
 */
export const MAX_LIMIT_ENTRIES = 100_000;

/** Drops entries `expired` says may go, then the oldest, until the map holds at most 90% of `cap`. */
function shrink<V>(map: Map<string, V>, cap: number, expired: (v: V) => boolean, evictable: (v: V) => boolean = () => true) {
  for (const [k, v] of map) if (expired(v)) map.delete(k);
  const target = Math.floor(cap * 0.9);
  if (map.size <= target) return;
  for (const [k, v] of map) {
    if (map.size <= target) break;
    if (evictable(v)) map.delete(k);
  }
}

/**
 * Token buckets per account (RATE_LIMIT_RPS, burst twice that), and the limits on credential attempts.
 * In memory: limits are per process, which is what one process serving everything needs (SQLite); every
 * map is bounded (MAX_LIMIT_ENTRIES), however many addresses or emails are thrown at it.
 */
export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly rps: number, private readonly now: () => number = Date.now, private readonly cap = MAX_LIMIT_ENTRIES) {}

  get size() { return this.buckets.size; }

  /** null when allowed, else the seconds to wait. */
  take(key: string): number | null {
    if (this.rps <= 0) return null;
    const capacity = burstFor(this.rps);
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.cap) shrink(this.buckets, this.cap, (x) => t - x.at > 60_000);
      b = { tokens: capacity, at: t };
    }
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.rps);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.buckets.set(key, b);
      return null;
    }
    this.buckets.set(key, b);
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rps));
  }
}

/**
 * Attempts per key in a fixed window (from the key's first attempt). An attempt counts from the moment
 * it starts, before its credential is checked, so concurrent attempts cannot exceed `max`; it stops
 * counting only if it succeeds. Refused attempts are not checked at all.
 */
export class AttemptWindow {
  private entries = new Map<string, { count: number; until: number }>();
  constructor(readonly max: number, readonly windowMs: number, private readonly now: () => number = Date.now, private readonly cap = MAX_LIMIT_ENTRIES) {}

  get size() { return this.entries.size; }

  /** Counts an attempt: null when it may go ahead, else the seconds until the key may try again. */
  attempt(key: string): number | null {
    const t = this.now();
    let e = this.entries.get(key);
    if (!e || t >= e.until) {
      // a new window goes to the back of the map, so the oldest windows are the first evicted
      this.entries.delete(key);
      if (this.entries.size >= this.cap) shrink(this.entries, this.cap, (x) => t >= x.until);
      e = { count: 0, until: t + this.windowMs };
      this.entries.set(key, e);
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
}

/**
 * A growing delay per key (an email): each failure pushes the key's next check further out, and one
 * check runs at a time. It slows guessing without a lock anyone could trigger: `begin(key, clean)` with
 * `clean` (the attempt comes from an address with nothing against it) is never refused, so failures
 * from elsewhere never keep the right person out. Failures are forgotten after `forgetMs` without one.
 */
export class GrowingDelay {
  private entries = new Map<string, { failures: number; notBefore: number; inFlight: number; lastFailure: number }>();
  constructor(private readonly forgetMs: number, private readonly now: () => number = Date.now, private readonly cap = MAX_LIMIT_ENTRIES) {}

  get size() { return this.entries.size; }

  /** null when the attempt may be checked now (it is then in flight until `settle`), else seconds to wait. */
  begin(key: string, clean: boolean): number | null {
    const t = this.now();
    let e = this.entries.get(key);
    if (e && e.inFlight === 0 && t - e.lastFailure >= this.forgetMs) { this.entries.delete(key); e = undefined; }
    if (!e) {
      if (this.entries.size >= this.cap) {
        // a check in flight keeps its entry (its settle must find it)
        shrink(this.entries, this.cap, (x) => x.inFlight === 0 && t - x.lastFailure >= this.forgetMs, (x) => x.inFlight === 0);
      }
      e = { failures: 0, notBefore: 0, inFlight: 0, lastFailure: t };
      this.entries.set(key, e);
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
    // the most recently failing emails are the last evicted
    this.entries.delete(key);
    this.entries.set(key, e);
    e.notBefore = Math.max(e.notBefore, t + growingDelayMs(e.failures));
  }

  failures(key: string): number { return this.entries.get(key)?.failures ?? 0; }
}

/** The limits in this process's memory, on the injected clock: what one process serving everything needs. */
export class MemoryRateLimits implements RateLimits {
  readonly perAccount: RequestRate;
  readonly tokenByAddress: AttemptLimit;
  readonly signIn: PasswordLimits;
  constructor(rps: number, now: () => number = Date.now) {
    const buckets = new TokenBuckets(rps, now);
    this.perAccount = { take: async (key) => buckets.take(key) };
    const tokens = new AttemptWindow(TOKEN_ATTEMPTS_PER_ADDRESS.max, TOKEN_ATTEMPTS_PER_ADDRESS.windowMs, now);
    this.tokenByAddress = { attempt: async (key) => tokens.attempt(key), succeeded: async (key) => tokens.succeeded(key) };
    const byAddress = new AttemptWindow(SIGN_IN_ATTEMPTS_PER_ADDRESS.max, SIGN_IN_ATTEMPTS_PER_ADDRESS.windowMs, now);
    const byEmail = new GrowingDelay(SIGN_IN_FAILURES_FORGOTTEN_MS, now);
    this.signIn = {
      // synchronous inside: nothing runs between the address's count and the email's begin
      begin: async (address, email) => {
        const clean = byAddress.count(address) === 0;
        const wait = byAddress.attempt(address);
        // refused by the email, the attempt stays counted against its address: trying harder only slows it down
        return wait ?? byEmail.begin(email, clean);
      },
      settle: async (address, email, ok) => {
        byEmail.settle(email, ok);
        if (ok) byAddress.succeeded(address);
      },
      failures: async (email) => byEmail.failures(email),
    };
  }
}
