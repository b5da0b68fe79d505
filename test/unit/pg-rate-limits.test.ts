// @engines postgres: the limits as rows every instance shares exist on PostgreSQL only (one SQLite process keeps them in memory)
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRow } from '../../db/query';
import { openPostgres } from '../../db/pg/open';
import { PgRateLimits, SIGN_IN_LEASE_MS } from '../../db/pg/rate-limits';
import { makeTestServices } from '../support/services';
import { burstFor, growingDelayMs, SIGN_IN_ATTEMPTS_PER_ADDRESS, TOKEN_ATTEMPTS_PER_ADDRESS } from '../../contract/rate-limits';
import { MemoryRateLimits } from '../../db/memory-rate-limits';

/**
 * Shared limits across instances (docs/decisions.md "Engines"): the limits as rows of one PostgreSQL
 * (db/pg/rate-limits.ts), on an injected clock. Two handles on two pools play two instances. PostgreSQL
 * only (vitest.pg.config.ts gives this file its migrated database in DATABASE_URL).
 */
let t = Date.UTC(2026, 10, 23, 12, 0, 0);
const now = () => t;
const instances: ReturnType<typeof openPostgres>[] = [];

beforeAll(() => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('run with vitest.pg.config.ts: this file needs its PostgreSQL in DATABASE_URL');
  instances.push(openPostgres(url), openPostgres(url));
});
afterAll(async () => {
  for (const i of instances) await i.close();
});

const limitsOn = (i: number, rps: number) => new PgRateLimits(instances[i].read, rps, now);
let keys = 0;
const newKey = (what: string) => `${what}-${++keys}`;

describe('the service on PostgreSQL', () => {
  it('keeps its limits in these rows (server/services.ts picks them when DATABASE_URL is set)', async () => {
    const s = await makeTestServices();
    try {
      expect(s.limits).toBeInstanceOf(PgRateLimits);
    } finally {
      await s.cleanup();
    }
  });
});

describe('per-account requests: GCRA in one row', () => {
  it('decides exactly as the in-memory token bucket, request by request, whatever the spacing', async () => {
    const rps = 8; // one request per 125 ms: clock steps of whole periods keep the bucket's arithmetic exact
    const pg = limitsOn(0, rps);
    const memory = new MemoryRateLimits(rps, now);
    const key = newKey('acc');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let refused = 0;
    for (let step = 0; step < 300; step++) {
      t += Math.floor(random() * 3) * 125 * (random() < 0.05 ? 40 : 1);
      for (let n = Math.floor(random() * 6); n > 0; n--) {
        const [a, b] = [await pg.perAccount.take(key), await memory.perAccount.take(key)];
        expect({ step, pg: a }).toEqual({ step, pg: b });
        if (a !== null) refused += 1;
      }
    }
    // the sequence really went past the burst, often
    expect(refused).toBeGreaterThan(30);
  });

  it('a quiet key takes its burst at once, then one request per period; the wait it answers is when the next fits', async () => {
    const rps = 10;
    const pg = limitsOn(0, rps);
    const key = newKey('acc');
    for (let i = 0; i < burstFor(rps); i++) expect(await pg.perAccount.take(key)).toBeNull();
    expect(await pg.perAccount.take(key)).toBe(1);
    t += 100;
    expect(await pg.perAccount.take(key)).toBeNull();
    expect(await pg.perAccount.take(key)).not.toBeNull();
    t += 1_000;
    const accepted = (await Promise.all(Array.from({ length: 30 }, () => pg.perAccount.take(key)))).filter((w) => w === null).length;
    expect(accepted).toBe(rps);
    // a long silence refills to the burst, not beyond
    t += 60_000;
    const after = (await Promise.all(Array.from({ length: 100 }, () => pg.perAccount.take(key)))).filter((w) => w === null).length;
    expect(after).toBe(burstFor(rps));
    // another key is not touched
    expect(await pg.perAccount.take(newKey('acc'))).toBeNull();
  });

  it('N concurrent takes on one key from two instances accept exactly the burst', async () => {
    const rps = 25;
    const [a, b] = [limitsOn(0, rps), limitsOn(1, rps)];
    const key = newKey('acc');
    const answers = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).perAccount.take(key)));
    expect(answers.filter((w) => w === null)).toHaveLength(burstFor(rps));
    expect(answers.filter((w) => w !== null).every((w) => w! >= 1)).toBe(true);
  });

  it('a rate of 0 limits nothing', async () => {
    const pg = limitsOn(0, 0);
    for (let i = 0; i < 50; i++) expect(await pg.perAccount.take('any')).toBeNull();
  });
});

describe('credential attempts: windows and sign-in delays shared by every instance', () => {
  it('token attempts per address: the window holds across instances, a success gives its attempt back, the window passes', async () => {
    const [a, b] = [limitsOn(0, 0), limitsOn(1, 0)];
    const address = newKey('203.0.113');
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).tokenByAddress.attempt(address)));
    expect(answers.filter((w) => w === null)).toHaveLength(TOKEN_ATTEMPTS_PER_ADDRESS.max);
    expect(Math.max(...answers.map((w) => w ?? 0))).toBeLessThanOrEqual(TOKEN_ATTEMPTS_PER_ADDRESS.windowMs / 1000);
    await a.tokenByAddress.succeeded(address);
    expect(await b.tokenByAddress.attempt(address)).toBeNull();
    expect(await b.tokenByAddress.attempt(address)).not.toBeNull();
    t += TOKEN_ATTEMPTS_PER_ADDRESS.windowMs;
    expect(await a.tokenByAddress.attempt(address)).toBeNull();
  });

  it('60 concurrent sign-ins of one address over two instances: one check, the others wait; failures count across instances', async () => {
    const [a, b] = [limitsOn(0, 0), limitsOn(1, 0)];
    const address = newKey('198.51.100');
    const email = `${newKey('owner')}@shop.example`;
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).signIn.begin(address, email)));
    expect(answers.filter((w) => w === null)).toHaveLength(1);
    await a.signIn.settle(address, email, false);
    expect(await b.signIn.failures(email)).toBe(1);
    // the window of the address is full (20 counted): even after the delay it waits
    t += growingDelayMs(1);
    expect(await b.signIn.begin(address, email)).not.toBeNull();
    // failures of one email from many addresses, on both instances, grow its delay
    for (let i = 0; i < 6; i++) {
      const from = newKey('192.0.2');
      const limits = i % 2 ? a : b;
      expect(await limits.signIn.begin(from, email)).toBeNull(); // clean addresses are never refused
      await limits.signIn.settle(from, email, false);
    }
    expect(await a.signIn.failures(email)).toBe(7);
    // an address with one failure of its own waits for the email's delay, then may try
    const guesser = newKey('192.0.2');
    const other = `${newKey('other')}@shop.example`;
    expect(await a.signIn.begin(guesser, other)).toBeNull();
    await a.signIn.settle(guesser, other, false);
    const wait = await b.signIn.begin(guesser, email);
    expect(wait).toBe(Math.ceil(growingDelayMs(7) / 1000));
    t += growingDelayMs(7);
    expect(await b.signIn.begin(guesser, email)).toBeNull();
    // the right password: the delay starts over, and the attempt no longer counts against its address
    await b.signIn.settle(guesser, email, true);
    expect(await a.signIn.failures(email)).toBe(0);
  });

  it('the address window refuses past its allowance, and the owner from elsewhere is never refused', async () => {
    const pg = limitsOn(0, 0);
    const address = newKey('203.0.113');
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS.max; i++) {
      const email = `guess${i}-${keys}@shop.example`;
      expect(await pg.signIn.begin(address, email)).toBeNull();
      await pg.signIn.settle(address, email, false);
    }
    expect(await pg.signIn.begin(address, 'victim@shop.example')).toBeGreaterThan(0);
    expect(await limitsOn(1, 0).signIn.begin(newKey('203.0.113'), 'victim@shop.example')).toBeNull();
  });

  it('a check whose instance died holds its email only until its lease runs out', async () => {
    const [a, b] = [limitsOn(0, 0), limitsOn(1, 0)];
    const email = `${newKey('lease')}@shop.example`;
    // a failure from `tried` makes it not clean
    const tried = newKey('192.0.2');
    const other = `${newKey('x')}@shop.example`;
    expect(await b.signIn.begin(tried, other)).toBeNull();
    await b.signIn.settle(tried, other, false);
    // instance a begins a check of the email and never settles it
    expect(await a.signIn.begin(newKey('192.0.2'), email)).toBeNull();
    expect(await b.signIn.begin(tried, email)).not.toBeNull();
    t += SIGN_IN_LEASE_MS;
    expect(await b.signIn.begin(tried, email)).toBeNull();
  });
});

describe('expired rows', () => {
  it('are purged: a purged key behaves as a fresh one', async () => {
    const pg = limitsOn(0, 5);
    const key = newKey('acc');
    for (let i = 0; i < burstFor(5); i++) await pg.perAccount.take(key);
    expect(await pg.perAccount.take(key)).not.toBeNull();
    const rows = async () => (await rawRow<{ n: number }>(instances[0].read,
      sql`SELECT (SELECT count(*) FROM limit_buckets) + (SELECT count(*) FROM limit_attempts) + (SELECT count(*) FROM limit_sign_in_delays) AS n`))!.n;
    expect(await rows()).toBeGreaterThan(0);
    t += 24 * 3600_000;
    await pg.purge();
    expect(await rows()).toBe(0);
    expect(await pg.perAccount.take(key)).toBeNull();
  });
});
