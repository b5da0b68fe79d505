import { onPostgres } from '../../db/dialect';
import { rawExec, rawRow } from '../../db/query';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { purgeExpiredIdempotencyKeys, requestFingerprint, runIdempotent } from '../../server/domain/idempotency';
import { DomainError } from '../../server/errors';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

async function scratch() {
  await s.db.write((tx) => rawExec(tx, onPostgres ? sql`CREATE TABLE IF NOT EXISTS effects (n integer NOT NULL)` : sql`CREATE TABLE IF NOT EXISTS effects (n INTEGER NOT NULL) STRICT`));
}
const effects = async () => (await rawRow<{ n: number }>(s.db.read, sql`SELECT count(*) AS n FROM effects`))!.n;

describe('idempotency store', () => {
  it('replays the stored answer for the same key and request, runs the effect once', async () => {
    const { account_id } = await makeAccount(s);
    await scratch();
    const scope = { accountId: account_id, operation: 'withdrawal.create' as const, key: 'k1' };
    const fp = requestFingerprint(s.masterKey, 'withdrawal.create', { a: 1, b: [2] });
    let n = 0;
    const run = () => runIdempotent(s, scope, fp, async (tx) => {
      await rawExec(tx, sql`INSERT INTO effects VALUES (1)`);
      n += 1;
      return { id: `r${n}`, at: clock.now().toISOString() };
    });
    const first = await run();
    const again = await run();
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ ...first, replayed: true });
    expect(JSON.stringify({ ...again, replayed: false })).toBe(JSON.stringify(first));
    expect(await effects()).toBe(1);
  });

  it('fingerprints ignore key order but not values, and never store the request', async () => {
    expect(requestFingerprint(s.masterKey, 'withdrawal.create', { a: 1, b: 2 })).toBe(requestFingerprint(s.masterKey, 'withdrawal.create', { b: 2, a: 1 }));
    expect(requestFingerprint(s.masterKey, 'withdrawal.create', { a: 1 })).not.toBe(requestFingerprint(s.masterKey, 'withdrawal.create', { a: 2 }));
    expect(requestFingerprint(s.masterKey, 'withdrawal.create', { card: '4111111111111111' })).not.toContain('4111');
  });

  it('answers 422 to the same key with a different request, and changes nothing', async () => {
    const { account_id } = await makeAccount(s);
    await scratch();
    const scope = { accountId: account_id, operation: 'withdrawal.create' as const, key: 'k2' };
    const effect = async (tx: Parameters<Parameters<typeof s.db.write>[0]>[0]) => { await rawExec(tx, sql`INSERT INTO effects VALUES (1)`); return {}; };
    await runIdempotent(s, scope, 'fp-a', effect);
    const err = await runIdempotent(s, scope, 'fp-b', effect).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(err.status).toBe(422);
    expect(await effects()).toBe(1);
  });

  it('answers 409 while the first request with the key is still in flight', async () => {
    const { account_id } = await makeAccount(s);
    const scope = { accountId: account_id, operation: 'withdrawal.create' as const, key: 'k3' };
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const first = runIdempotent(s, scope, 'fp', async () => ({}), () => gate);
    const second = await runIdempotent(s, scope, 'fp', async () => ({})).catch((e) => e);
    expect(second.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(second.status).toBe(409);
    expect(second.extra.retryAfterSeconds).toBeGreaterThan(0);
    release();
    await first;
  });

  it('does not store failures: a retry after an error runs again', async () => {
    const { account_id } = await makeAccount(s);
    const scope = { accountId: account_id, operation: 'withdrawal.create' as const, key: 'k4' };
    await expect(runIdempotent(s, scope, 'fp', async () => { throw new DomainError('INSUFFICIENT_FUNDS', 'no'); })).rejects.toThrow('no');
    const ok = await runIdempotent(s, scope, 'fp', async () => ({ ok: true }));
    expect(ok).toEqual({ ok: true, replayed: false });
  });

  it('keeps answers 24 hours, then forgets them (cleanup, and an expired key runs anew)', async () => {
    const { account_id } = await makeAccount(s);
    await scratch();
    const scope = { accountId: account_id, operation: 'withdrawal.create' as const, key: 'k5' };
    const run = () => runIdempotent(s, scope, 'fp', async (tx) => { await rawExec(tx, sql`INSERT INTO effects VALUES (1)`); return {}; });
    await run();
    clock.advance(23 * 3600_000);
    expect((await run()).replayed).toBe(true);
    clock.advance(2 * 3600_000);
    expect((await run()).replayed).toBe(false);
    expect(await effects()).toBe(2);
    clock.advance(25 * 3600_000);
    expect(await purgeExpiredIdempotencyKeys(s, clock.now())).toBe(1);
    expect((await rawRow<{ n: number }>(s.db.read, sql`SELECT count(*) AS n FROM idempotency_keys`))!.n).toBe(0);
  });
});
