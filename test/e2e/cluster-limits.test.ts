// @engines postgres: 2 instances on one PostgreSQL database accept the configured rate together
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../server/domain/accounts';
import { loadMasterKey } from '../../server/domain/master-key';
import { burstFor, SIGN_IN_ATTEMPTS_PER_ADDRESS } from '../../contract/rate-limits';
import { startCluster, type RunningCluster } from '../support/cluster';
import { SERVER_TEST_TIMEOUT_MS } from '../support/server';
import { systemClock } from '../../server/clock';

/**
 * Shared limits across instances (docs/decisions.md "Engines") over HTTP: 2 instances (npm run cluster) on
 * this file's PostgreSQL share their limits
 * (db/pg/rate-limits.ts). Requests of one account spread over both instances are accepted at the
 * configured rate, not twice it; sign-in failures recorded by one instance slow the next attempt on the
 * other, and one address's window counts its attempts on both.
 */
const RPS = 5;
const DURATION_MS = 4_000;
const EVERY_MS = 40; // per instance: 25 req/s each, 10× the rate together

let cluster: RunningCluster;

beforeAll(async () => {
  cluster = await startCluster({
    instances: 2,
    env: { RATE_LIMIT_RPS: String(RPS), TRUSTED_PROXIES: '127.0.0.1', SANDBOX_SETTLEMENT_DELAY_MS: '50' },
  });
}, SERVER_TEST_TIMEOUT_MS);

afterAll(async () => { await cluster?.cleanup(); }, SERVER_TEST_TIMEOUT_MS);

describe('two instances on one PostgreSQL share the limits', () => {
  it('accept together the configured rate × duration + burst (within 20 %), not that much each', async () => {
    expect(cluster.instances).toHaveLength(2);
    const { accessToken } = await cluster.fundedAccount(0, 'Limited Merchant');
    const statuses: number[] = [];
    const retryAfter: number[] = [];
    const get = async (base: string) => {
      const res = await fetch(`${base}/balance`, { headers: { authorization: `Bearer ${accessToken}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 429) retryAfter.push(Number(res.headers.get('retry-after')));
    };
    // a bounded burst: one request to each instance every EVERY_MS for DURATION_MS, each instance's
    // requests one after another, so the load stays what was meant on two shared cores
    const started = performance.now();
    await Promise.all(cluster.instances.map(async (base) => {
      for (let i = 0; ; i++) {
        const due = started + i * EVERY_MS;
        if (due - started >= DURATION_MS) break;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await get(base);
      }
    }));
    const elapsedS = (performance.now() - started) / 1000;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    const accepted = statuses.filter((s) => s === 200).length;
    const allowed = RPS * elapsedS + burstFor(RPS);
    // the expectation, and what two instances each keeping their own limit would have accepted
    console.log(`cluster limits: ${statuses.length} requests over ${elapsedS.toFixed(2)} s on 2 instances; accepted ${accepted}, rate×duration+burst ${allowed.toFixed(1)}, per-instance limits would allow ${(2 * allowed).toFixed(1)}`);
    expect(statuses.length).toBeGreaterThan(4 * allowed);
    expect(accepted).toBeGreaterThanOrEqual(Math.floor(allowed * 0.8));
    expect(accepted).toBeLessThanOrEqual(Math.ceil(allowed * 1.2));
    expect(retryAfter.length).toBeGreaterThan(0);
    expect(retryAfter.every((s) => s >= 1)).toBe(true);
  }, SERVER_TEST_TIMEOUT_MS);

  it('count sign-in failures across instances: a failure on one slows the next attempt on the other; the window of an address holds on both', async () => {
    const [one, two] = cluster.instances;
    const email = 'owner@limits.example';
    const password = 'correct horse battery';
    await createAccount({ db: cluster.db, masterKey: loadMasterKey(cluster.databasePath), clock: systemClock },
      { name: 'Sign-in Merchant', email, password });
    const signIn = async (base: string, address: string, pw: string, who = email) => {
      const res = await fetch(`${base}/api/trpc/session.signIn`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify({ email: who, password: pw }),
      });
      await res.arrayBuffer();
      return { status: res.status, retryAfter: Number(res.headers.get('retry-after')) };
    };
    // wrong passwords from 6 addresses, alternating instances (each address clean, so each is checked):
    // the email's failures add up on the shared row, to a delay of growingDelayMs(6) = 8 s
    for (let i = 0; i < 6; i++) expect((await signIn(i % 2 ? two : one, `203.0.113.${30 + i}`, 'wrong password')).status).toBe(401);
    // one of those addresses, on either instance, now waits for that delay, even with the right password
    // (instances with limits of their own would have seen at most 3 failures each, a 1 s delay long past)
    for (const base of [one, two]) {
      const next = await signIn(base, '203.0.113.30', password);
      expect(next.status).toBe(429);
      expect(next.retryAfter).toBeGreaterThanOrEqual(2);
    }
    // the owner, from an address with nothing against it, signs in at once on either instance
    expect((await signIn(two, '198.51.100.20', password)).status).toBe(200);
    // one address guessing many emails, alternating instances: its window counts on both
    const guesser = '203.0.113.21';
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS.max; i++) {
      expect((await signIn(i % 2 ? one : two, guesser, 'wrong password', `guess${i}@limits.example`)).status).toBe(401);
    }
    for (const base of [one, two]) {
      const refused = await signIn(base, guesser, password);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBeGreaterThan(1);
    }
  }, SERVER_TEST_TIMEOUT_MS);
});
