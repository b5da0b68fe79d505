import ipaddr from 'ipaddr.js';

/**
 * What credential limits count a client address under. An IPv6 client is handed a whole /64 (often
 * far more) and can pick any address in it, so per-address limits on single IPv6 addresses would be no
 * limit at all: IPv6 counts per /64. IPv4 (and IPv4-mapped IPv6, the same client) counts per address.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  if (a.kind() === 'ipv4') return a.toString();
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

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

/** How many requests an account may send at once (after a quiet spell): two seconds' worth. */
export function burstFor(rps: number): number {
  return rps * 2;
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

/** The growing delay's first step and ceiling (db/pg/rate-limits.ts computes the same in SQL). */
export const GROWING_DELAY = { firstMs: 250, maxMs: 60_000 };

/** After n failures the next check of the key waits this long: 250 ms, 500 ms, 1 s, … up to a minute. */
export function growingDelayMs(failures: number): number {
  return failures <= 0 ? 0 : Math.min(GROWING_DELAY.maxMs, GROWING_DELAY.firstMs * 2 ** (failures - 1));
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
