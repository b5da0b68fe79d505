import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { rotateClientToken } from '../../server/domain/accounts';
import { appRouter } from '../../server/routers';
import { createCallerFactory, merchantProcedure, router, webhookApiProcedure } from '../../server/trpc';
import { peek } from '../support/peek';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

const caller = createCallerFactory(appRouter);
const anon = (headers: Record<string, string> = {}, ip = '10.0.0.1') =>
  caller(createContextInner({ services: s, headers, ip, transport: 'trpc' }));

async function codeOf(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(TRPCError);
  return (e as TRPCError).code;
}

describe('access tokens', () => {
  it('are issued for the right pair, work as bearer tokens, expire after an hour and can be revoked', async () => {
    const acc = await makeAccount(s, { balance: 1234 });
    const issued = await anon().auth.token({ code: acc.code, token: acc.token });
    expect(issued).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(issued.access_token).toMatch(/^at_[A-Za-z0-9_-]{40,}$/);
    const withToken = anon({ authorization: `Bearer ${issued.access_token}` });
    expect(await withToken.account.balance()).toMatchObject({ available: 1234, blocked: 0, currency: 'BRL' });

    clock.advance(3599_000);
    expect((await withToken.account.balance()).available).toBe(1234);
    clock.advance(2_000);
    expect(await codeOf(withToken.account.balance())).toBe('UNAUTHORIZED');

    const second = await anon().auth.token({ code: acc.code, token: acc.token });
    const c2 = anon({ authorization: `Bearer ${second.access_token}` });
    expect(await c2.auth.revoke()).toEqual({ revoked: true });
    expect(await codeOf(c2.account.balance())).toBe('UNAUTHORIZED');
  });

  it('are refused for a wrong token or unknown code, alike', async () => {
    const acc = await makeAccount(s);
    expect(await codeOf(anon().auth.token({ code: acc.code, token: 'sk_wrong' }))).toBe('UNAUTHORIZED');
    expect(await codeOf(anon().auth.token({ code: 'cli_nope', token: acc.token }))).toBe('UNAUTHORIZED');
    expect(await codeOf(anon({ authorization: 'Bearer at_forged' }).account.balance())).toBe('UNAUTHORIZED');
    expect(await codeOf(anon({ authorization: 'Basic abc' }).account.balance())).toBe('UNAUTHORIZED');
    expect(await codeOf(anon().account.balance())).toBe('UNAUTHORIZED');
  });

  it('stores only hashes of secrets', async () => {
    const acc = await makeAccount(s);
    const issued = await anon().auth.token({ code: acc.code, token: acc.token });
    const rows = JSON.stringify(await peek(s.config.databasePath, async (raw) => [await raw.all('SELECT * FROM accounts'), await raw.all('SELECT * FROM access_tokens')]));
    expect(rows).not.toContain(acc.token);
    expect(rows).not.toContain(issued.access_token);
    expect(rows).toContain(acc.code); // the public half is stored as is
  });

  it('throttles failed attempts per client address only: a code is never locked', async () => {
    const acc = await makeAccount(s);
    // wrong tokens for the victim's public code from one address…
    for (let i = 0; i < 30; i++) expect(await codeOf(anon({}, '10.0.0.9').auth.token({ code: acc.code, token: 'sk_bad' }))).toBe('UNAUTHORIZED');
    // …throttle that address, even for a right pair…
    expect(await codeOf(anon({}, '10.0.0.9').auth.token({ code: acc.code, token: acc.token }))).toBe('TOO_MANY_REQUESTS');
    // …and nobody else: the victim's right pair works from its own address
    expect(await anon({}, '10.0.0.10').auth.token({ code: acc.code, token: acc.token })).toMatchObject({ token_type: 'Bearer' });
    // successes do not count against an address (many clients behind one NAT)
    for (let i = 0; i < 40; i++) await anon({}, '10.0.0.11').auth.token({ code: acc.code, token: acc.token });
    // the window passes
    clock.advance(60_000);
    expect(await anon({}, '10.0.0.9').auth.token({ code: acc.code, token: acc.token })).toMatchObject({ token_type: 'Bearer' });
  });

  it('counts an attempt before the pair is checked: 60 at once from one address check at most 30', async () => {
    const acc = await makeAccount(s);
    const burst = Array.from({ length: 60 }, () => anon({}, '10.0.0.12').auth.token({ code: acc.code, token: 'sk_bad' }));
    burst.push(anon({}, '10.0.0.12').auth.token({ code: acc.code, token: acc.token }));
    const codes = await Promise.all(burst.map((p) => p.then(() => 'OK', (e: TRPCError) => e.code)));
    expect(codes.filter((c) => c === 'UNAUTHORIZED')).toHaveLength(30);
    expect(codes.filter((c) => c === 'TOO_MANY_REQUESTS')).toHaveLength(31);
  });

  it('rotating the client token retires the old one and every access token it issued', async () => {
    const acc = await makeAccount(s);
    const issued = await anon().auth.token({ code: acc.code, token: acc.token });
    const rotated = await rotateClientToken({ db: s.db, masterKey: s.masterKey, clock }, acc.account_id);
    expect(await codeOf(anon().auth.token({ code: acc.code, token: acc.token }))).toBe('UNAUTHORIZED');
    expect(await codeOf(anon({ authorization: `Bearer ${issued.access_token}` }).account.balance())).toBe('UNAUTHORIZED');
    expect((await anon().auth.token({ code: acc.code, token: rotated.token })).token_type).toBe('Bearer');
  });
});

describe('webhook API credentials', () => {
  const probe = router({
    who: webhookApiProcedure.input(z.void()).query(({ ctx }) => ctx.auth.accountId),
    bearerWho: merchantProcedure.query(({ ctx }) => ctx.auth.accountId),
  });
  const probeCaller = createCallerFactory(probe);
  const as = (headers: Record<string, string>) => probeCaller(createContextInner({ services: s, headers }));

  it('need x-api-key and x-token of the same account', async () => {
    const a = await makeAccount(s);
    const b = await makeAccount(s);
    const ta = (await anon().auth.token({ code: a.code, token: a.token })).access_token;
    const tb = (await anon().auth.token({ code: b.code, token: b.token })).access_token;
    expect(await as({ 'x-api-key': a.api_key, 'x-token': ta }).who()).toBe(a.account_id);
    expect(await codeOf(as({ 'x-api-key': a.api_key, 'x-token': tb }).who())).toBe('UNAUTHORIZED');
    expect(await codeOf(as({ 'x-api-key': a.api_key }).who())).toBe('UNAUTHORIZED');
    expect(await codeOf(as({ 'x-token': ta }).who())).toBe('UNAUTHORIZED');
    expect(await codeOf(as({ 'x-api-key': 'pk_unknown', 'x-token': ta }).who())).toBe('UNAUTHORIZED');
    clock.advance(3601_000);
    expect(await codeOf(as({ 'x-api-key': a.api_key, 'x-token': ta }).who())).toBe('UNAUTHORIZED');
  });
});

describe('input coercion trap', () => {
  it('refuses "250" for an amount on the tRPC path, before and after a REST-style coercion pass', async () => {
    const acc = await makeAccount(s);
    const c = caller(createContextInner({ services: s, auth: { kind: 'bearer', accountId: acc.account_id } }));
    for (const bad of ['250', true, 12.5, 1e20, null, -1, 0]) {
      expect(await codeOf(c.account.sandboxTopUp({ amount: bad as never }))).toBe('BAD_REQUEST');
    }
    // trpc-to-openapi mutates shared schemas with coerce; prove the piped schema stays strict after it
    const { coerceSchema } = await import('../../node_modules/trpc-to-openapi/dist/esm/utils/zod.mjs' as string) as { coerceSchema: (x: unknown) => void };
    const { topUpRequest } = await import('../../server/routers/account/schemas');
    coerceSchema(topUpRequest);
    expect(await codeOf(c.account.sandboxTopUp({ amount: '250' as never }))).toBe('BAD_REQUEST');
    expect((await c.account.sandboxTopUp({ amount: 250 })).available).toBe(250);
  });
});
