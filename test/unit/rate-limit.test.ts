// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { addressKey } from '../../server/rate-limit';
import { AttemptWindow, GrowingDelay, TokenBuckets } from '../../db/memory-rate-limits';

describe('credential limits count what a client can vary as one', () => {
  it('an IPv6 client counts per /64; IPv4 and its IPv4-mapped form are one address', () => {
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:198.51.100.7')).toBe(addressKey('198.51.100.7'));
    expect(addressKey('198.51.100.7')).not.toBe(addressKey('198.51.100.8'));
  });
});

describe('the in-memory limiters stay bounded under many distinct keys', () => {
  const cap = 1_000;
  let t = 0;
  const now = () => t;

  it('an attempt window keeps at most its cap, however many live windows are opened', () => {
    const w = new AttemptWindow(5, 10 * 60_000, now, cap);
    for (let i = 0; i < 20 * cap; i++) expect(w.attempt(`addr${i}`)).toBeNull();
    expect(w.size).toBeLessThanOrEqual(cap);
    // the newest windows are still counted
    for (let i = 0; i < 4; i++) w.attempt(`addr${20 * cap - 1}`);
    expect(w.attempt(`addr${20 * cap - 1}`)).not.toBeNull();
  });

  it('the per-email delay keeps at most its cap, and never drops a check in flight', () => {
    const d = new GrowingDelay(15 * 60_000, now, cap);
    expect(d.begin('victim@example.com', true)).toBeNull();
    for (let i = 0; i < 20 * cap; i++) {
      d.begin(`guess${i}@example.com`, true);
      d.settle(`guess${i}@example.com`, false);
    }
    expect(d.size).toBeLessThanOrEqual(cap);
    d.settle('victim@example.com', false);
    expect(d.failures('victim@example.com')).toBe(1);
  });

  it('token buckets keep at most their cap', () => {
    const b = new TokenBuckets(10, now, cap);
    for (let i = 0; i < 20 * cap; i++) b.take(`acc${i}`);
    expect(b.size).toBeLessThanOrEqual(cap);
  });
});
