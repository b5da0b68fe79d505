import { describe, expect, it } from 'vitest';
import { hostOf, pickFairly, rotation, SlotUse, type Candidate } from '../../server/domain/webhooks/fair-share';

/** `n` due deliveries of `account` to `url`, oldest first. */
const due = (account: string, n: number, url = `http://${account}.example/hook`): Candidate[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${account}-${i}`, account_id: account, url }));
const count = (picked: Candidate[], account: string) => picked.filter((c) => c.account_id === account).length;

describe('fair share of the delivery slots', () => {
  it('takes accounts round-robin, one per round, oldest first within each', () => {
    const use = new SlotUse({ total: 5, perAccount: 16, perHost: 16 });
    const picked = pickFairly(['a', 'b', 'c'], [...due('a', 10), ...due('b', 10), ...due('c', 1)], use);
    expect(picked.map((c) => c.id)).toEqual(['a-0', 'b-0', 'c-0', 'a-1', 'b-1']);
  });

  it("one account's backlog gets at most its cap; another account's work still gets a slot", () => {
    const use = new SlotUse({ total: 64, perAccount: 16, perHost: 16 });
    const picked = pickFairly(['a', 'b'], [...due('a', 100), ...due('b', 1)], use);
    expect(count(picked, 'a')).toBe(16);
    expect(count(picked, 'b')).toBe(1);
  });

  it('counts what is already in flight against the account, the host and the total; giving a slot back frees it', () => {
    const use = new SlotUse({ total: 20, perAccount: 16, perHost: 15 });
    for (let i = 0; i < 15; i++) use.take(`x${i}`, 'a', 'hang.example');
    expect(use.accountRoom('a')).toBe(1);
    expect(use.hostRoom('hang.example')).toBe(0);
    expect(use.room).toBe(5);
    expect(use.fullAccounts()).toEqual([]);
    // a's next deliveries go to the full host: passed over (left due); its one to another host starts
    const picked = pickFairly(['a', 'b'], [...due('a', 3, 'http://hang.example/x'), ...due('a', 1, 'http://ok.example/'), ...due('b', 9)], use);
    expect(picked.filter((c) => c.account_id === 'a').map((c) => c.url)).toEqual(['http://ok.example/']);
    expect(count(picked, 'b')).toBe(4);
    use.take('x15', 'a', 'ok.example');
    expect(use.fullAccounts()).toEqual(['a']);
    use.give('x0');
    use.give('x0'); // twice is once
    expect(use.accountRoom('a')).toBe(1);
    expect(use.hostRoom('hang.example')).toBe(1);
    expect(use.total).toBe(15);
  });

  it('caps deliveries to one host across accounts', () => {
    const use = new SlotUse({ total: 64, perAccount: 16, perHost: 4 });
    const shared = 'http://receiver.example:8443/hooks';
    const picked = pickFairly(['a', 'b', 'c'], [...due('a', 5, shared), ...due('b', 5, shared), ...due('c', 2)], use);
    expect(picked.filter((c) => c.url === shared)).toHaveLength(4);
    expect(count(picked, 'c')).toBe(2);
  });

  it('the rotation continues after the account served last and leaves out accounts at their cap', () => {
    const use = new SlotUse({ total: 64, perAccount: 1, perHost: 16 });
    use.take('x', 'c', 'h');
    expect(rotation(['d', 'b', 'a', 'c'], null, use, 10)).toEqual(['a', 'b', 'd']);
    expect(rotation(['d', 'b', 'a', 'c'], 'b', use, 10)).toEqual(['d', 'a', 'b']);
    expect(rotation(['d', 'b', 'a', 'c'], 'z', use, 2)).toEqual(['a', 'b']);
  });

  it('keys hosts by host:port as the URL gives them', () => {
    expect(hostOf('https://Example.COM/a?b')).toBe('example.com');
    expect(hostOf('https://example.com:443/')).toBe('example.com');
    expect(hostOf('http://127.0.0.1:8080/x')).toBe('127.0.0.1:8080');
    expect(hostOf('not a url')).toBe('not a url');
  });
});
