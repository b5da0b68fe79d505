/**
 * Token buckets per account (RATE_LIMIT_RPS, burst twice that) and a fixed-window counter of failed
 * sign-ins per client code and per IP. In memory: limits are per process, which is what one process
 * serving everything needs.
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

export class FailureWindow {
  private counts = new Map<string, { n: number; until: number }>();
  constructor(private readonly max: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Seconds until the key may try again, or null. */
  blocked(key: string): number | null {
    const c = this.counts.get(key);
    if (!c) return null;
    const t = this.now();
    if (t >= c.until) { this.counts.delete(key); return null; }
    return c.n >= this.max ? Math.ceil((c.until - t) / 1000) : null;
  }

  /** Failures counted for the key in its current window (0 once the window is over). */
  failures(key: string): number {
    const c = this.counts.get(key);
    return c && this.now() < c.until ? c.n : 0;
  }

  fail(key: string) {
    const t = this.now();
    const c = this.counts.get(key);
    if (!c || t >= c.until) this.counts.set(key, { n: 1, until: t + this.windowMs });
    else c.n += 1;
    if (this.counts.size > 100_000) for (const [k, v] of this.counts) if (t >= v.until) this.counts.delete(k);
  }

  reset(key: string) { this.counts.delete(key); }
}

export interface RateLimits {
  perAccount: TokenBuckets;
  failedTokenByCode: FailureWindow;
  failedTokenByIp: FailureWindow;
  failedSignInByEmail: FailureWindow;
  failedSignInByIp: FailureWindow;
}

export function createRateLimits(rps: number): RateLimits {
  return {
    perAccount: new TokenBuckets(rps),
    failedTokenByCode: new FailureWindow(10, 60_000),
    failedTokenByIp: new FailureWindow(30, 60_000),
    failedSignInByEmail: new FailureWindow(5, 60_000),
    failedSignInByIp: new FailureWindow(30, 60_000),
  };
}
