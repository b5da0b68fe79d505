import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { growingDelayMs } from '../../contract/rate-limits';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';
import { txBody } from '../support/transactions';

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(new Date('2026-01-15T12:00:00.000Z')); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

const caller = createCallerFactory(appRouter);
function as(headers: Record<string, string> = {}, ip = '10.0.0.1', https = false) {
  const ctx = createContextInner({ services: s, headers, ip, https, transport: 'trpc' });
  return { api: caller(ctx), ctx };
}

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e).toBeInstanceOf(TRPCError);
  return e as TRPCError & { cause: { extra: { retryAfterSeconds?: number } } };
}

const EMAIL = 'owner@shop.example';
const PASSWORD = 'correct horse battery';

async function signedIn() {
  const acc = await makeAccount(s, { name: 'Shop', balance: 1_000_000, email: EMAIL, password: PASSWORD });
  const { api, ctx } = as();
  const me = await api.session.signIn({ email: ' Owner@Shop.example ', password: PASSWORD });
  const cookies = ctx.resHeaders.getSetCookie();
  const jar = Object.fromEntries(cookies.map((c) => c.split(';')[0].split('=') as [string, string]));
  const cookie = `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`;
  return { acc, me, cookies, jar, cookie };
}

describe('session.signIn / signOut', () => {
  it('sets an httpOnly SameSite=Lax session cookie and a readable CSRF cookie; Secure over https (not for a bare header) or when asked', async () => {
    const { acc, me, cookies, jar } = await signedIn();
    expect(me).toMatchObject({ email: EMAIL, account_id: acc.account_id, account_name: 'Shop' });
    expect(cookies).toHaveLength(3);
    expect(cookies[0]).toMatch(/^pp_session=ses_[\w-]+; Path=\/; Max-Age=43200; SameSite=Lax; HttpOnly$/);
    expect(cookies[1]).toMatch(/^pp_csrf=csrf_[\w-]+; Path=\/; Max-Age=43200; SameSite=Lax$/);
    // the person's language, so the sign-in page of this browser speaks it after they sign out
    expect(cookies[2]).toBe('pp_locale=pt-BR; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly');
    expect(jar.pp_session).not.toBe(jar.pp_csrf);

    const plain = as();
    await plain.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect(plain.ctx.resHeaders.getSetCookie()[0]).not.toContain('Secure');
    // a header alone proves nothing (only a trusted proxy's is believed, see test/e2e/client-address)
    const claimed = as({ 'x-forwarded-proto': 'https' });
    await claimed.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect(claimed.ctx.resHeaders.getSetCookie()[0]).not.toContain('Secure');
    const overHttps = as({}, '10.0.0.1', true);
    await overHttps.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect(overHttps.ctx.resHeaders.getSetCookie().every((c) => c.endsWith('; Secure'))).toBe(true);
    s.config.cookieSecure = true;
    const forced = as();
    await forced.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect(forced.ctx.resHeaders.getSetCookie()[0]).toContain('; Secure');
  });

  it('says only "wrong email or password"; each failure for an email makes its next check wait longer (429 with retry-after)', async () => {
    await makeAccount(s, { balance: 0, email: EMAIL, password: PASSWORD });
    const { api, ctx } = as();
    const first = await failure(api.session.signIn({ email: EMAIL, password: 'nope' }));
    expect(first.code).toBe('UNAUTHORIZED');
    expect(first.message).toBe('wrong email or password');
    expect(ctx.resHeaders.getSetCookie()).toEqual([]);
    const unknown = await failure(as({}, '10.0.0.2').api.session.signIn({ email: 'nobody@shop.example', password: 'nope' }));
    expect(unknown.message).toBe(first.message);
    // the address has failed: its next check of this email waits, the right password too
    for (let n = 1; n <= 9; n++) {
      const limited = await failure(api.session.signIn({ email: ` ${EMAIL.toUpperCase()} `, password: PASSWORD }));
      expect(limited.code).toBe('TOO_MANY_REQUESTS');
      expect(limited.cause.extra.retryAfterSeconds).toBe(Math.max(1, Math.ceil(growingDelayMs(n) / 1000)));
      clock.advance(growingDelayMs(n));
      expect((await failure(api.session.signIn({ email: EMAIL, password: 'nope' }))).code).toBe('UNAUTHORIZED');
    }
    expect(growingDelayMs(1)).toBe(250);
    expect(growingDelayMs(4)).toBe(2_000);
    expect(growingDelayMs(50)).toBe(60_000);
    // never a lock: after the delay the right password gets in, and the count starts over
    clock.advance(growingDelayMs(10));
    await api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect(await s.limits.signIn.failures(EMAIL)).toBe(0);
  });

  it('failures from other addresses never refuse a correct password from an address with none', async () => {
    await makeAccount(s, { balance: 0, email: EMAIL, password: PASSWORD });
    for (let i = 0; i < 12; i++) {
      await failure(as({}, `10.6.0.${i}`).api.session.signIn({ email: EMAIL, password: 'guess' }));
    }
    expect(await s.limits.signIn.failures(EMAIL)).toBe(12);
    // the owner, from home, right away
    expect(await as({}, '10.7.7.7').api.session.signIn({ email: EMAIL, password: PASSWORD })).toMatchObject({ email: EMAIL });
  });

  it('limits one address trying many emails, and only that address', async () => {
    await makeAccount(s, { balance: 0, email: EMAIL, password: PASSWORD });
    for (let i = 0; i < 20; i++) {
      expect((await failure(as({}, '10.9.9.9').api.session.signIn({ email: `guess${i}@shop.example`, password: 'x' }))).code).toBe('UNAUTHORIZED');
    }
    const e = await failure(as({}, '10.9.9.9').api.session.signIn({ email: EMAIL, password: PASSWORD }));
    expect(e.code).toBe('TOO_MANY_REQUESTS');
    expect(e.cause.extra.retryAfterSeconds).toBeGreaterThan(0);
    await as({}, '10.9.9.10').api.session.signIn({ email: EMAIL, password: PASSWORD });
    // the window passes
    clock.advance(10 * 60_000);
    await as({}, '10.9.9.9').api.session.signIn({ email: EMAIL, password: PASSWORD });
  });

  it('counts an attempt before its password is checked: 60 at once from one address check at most one, the right one in the burst is 429', async () => {
    await makeAccount(s, { balance: 0, email: EMAIL, password: PASSWORD });
    const burst = Array.from({ length: 60 }, () => as({}, '10.5.5.5').api.session.signIn({ email: EMAIL, password: 'wrong' }));
    burst.push(as({}, '10.5.5.5').api.session.signIn({ email: EMAIL, password: PASSWORD }));
    const codes = await Promise.all(burst.map((p) => p.then(() => 'OK', (e: TRPCError) => e.code)));
    expect(codes.filter((c) => c === 'UNAUTHORIZED')).toHaveLength(1);
    expect(codes.filter((c) => c === 'TOO_MANY_REQUESTS')).toHaveLength(60);
    expect(codes.at(-1)).toBe('TOO_MANY_REQUESTS');
  });

  it('validates input with the shared schema', async () => {
    const e = await failure(as().api.session.signIn({ email: 'not-an-email', password: '' }));
    expect(e.code).toBe('BAD_REQUEST');
  });

  it('answers me for the cookie, refuses mutations without the CSRF header, and revokes on sign-out', async () => {
    const { cookie, jar } = await signedIn();
    expect(await as({ cookie }).api.session.me()).toMatchObject({ email: EMAIL, account_name: 'Shop' });
    expect((await failure(as({}).api.session.me())).code).toBe('UNAUTHORIZED');
    expect((await failure(as({ cookie }).api.session.signOut())).code).toBe('FORBIDDEN');
    expect((await failure(as({ cookie, 'x-csrf-token': 'csrf_wrong' }).api.dashboard.rotateToken({ password: PASSWORD }))).code).toBe('FORBIDDEN');

    const out = as({ cookie, 'x-csrf-token': jar.pp_csrf });
    await out.api.session.signOut();
    expect(out.ctx.resHeaders.getSetCookie()).toEqual([
      'pp_session=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly',
      'pp_csrf=; Path=/; Max-Age=0; SameSite=Lax',
    ]);
    expect((await failure(as({ cookie }).api.dashboard.overview())).code).toBe('UNAUTHORIZED');
  });

  it('keeps the dashboard language on the person: pt-BR first, English when chosen, for every later session', async () => {
    const { cookie, jar, me } = await signedIn();
    expect(me.locale).toBe('pt-BR');
    expect((await as({ cookie }).api.session.me()).locale).toBe('pt-BR');
    // CSRF-checked like every dashboard mutation, and a language the dashboard does not have is refused
    expect((await failure(as({ cookie }).api.session.updateSettings({ locale: 'en' }))).code).toBe('FORBIDDEN');
    const bad = await failure(as({ cookie, 'x-csrf-token': jar.pp_csrf }).api.session.updateSettings({ locale: 'fr' as 'en' }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect((await as({ cookie }).api.session.me()).locale).toBe('pt-BR');

    const set = as({ cookie, 'x-csrf-token': jar.pp_csrf });
    expect(await set.api.session.updateSettings({ locale: 'en' })).toEqual({ locale: 'en' });
    expect(set.ctx.resHeaders.getSetCookie()).toEqual(['pp_locale=en; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly']);
    expect((await as({ cookie }).api.session.me()).locale).toBe('en');
    // a new session on another device starts in the chosen language
    const other = as({}, '10.0.0.2');
    expect((await other.api.session.signIn({ email: EMAIL, password: PASSWORD })).locale).toBe('en');
    expect(other.ctx.resHeaders.getSetCookie()[2]).toMatch(/^pp_locale=en;/);
  });

  it('expires sessions after 12 hours', async () => {
    const { cookie } = await signedIn();
    clock.advance(12 * 3600_000 - 1000);
    await as({ cookie }).api.dashboard.overview();
    clock.advance(2000);
    expect((await failure(as({ cookie }).api.dashboard.overview())).code).toBe('UNAUTHORIZED');
  });
});

/** Every procedure of the app, by dotted path and type, straight from the router. */
const PROCEDURES = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: 'query' | 'mutation' } }> } })._def.procedures)
  .map(([path, p]) => ({ path, type: p._def.type }));
// the only doors open to a stranger: exchanging client credentials, and signing in
const PUBLIC = ['auth.token', 'session.signIn'];

function call(api: ReturnType<typeof caller>, path: string, input: unknown): Promise<unknown> {
  let fn: unknown = api;
  for (const part of path.split('.')) fn = (fn as Record<string, unknown>)[part];
  return (fn as (i: unknown) => Promise<unknown>)(input);
}

describe('every procedure', () => {
  it('is listed (the router is not empty and the public ones exist)', () => {
    expect(PROCEDURES.length).toBeGreaterThan(20);
    for (const p of PUBLIC) expect(PROCEDURES.map((x) => x.path)).toContain(p);
  });

  it('refuses an anonymous caller, except the two public doors', async () => {
    for (const { path } of PROCEDURES.filter((p) => !PUBLIC.includes(p.path))) {
      const e = await failure(call(as().api, path, {}));
      expect(e.code, path).toBe('UNAUTHORIZED');
      // an unknown or stale session cookie is no better than none
      const stale = await failure(call(as({ cookie: 'pp_session=ses_forged; pp_csrf=csrf_forged', 'x-csrf-token': 'csrf_forged' }).api, path, {}));
      expect(stale.code, path).toBe('UNAUTHORIZED');
    }
  });

  it('refuses a mutation made with the session cookie unless it echoes the CSRF token; queries need no token', async () => {
    const { cookie, jar } = await signedIn();
    const mutations = PROCEDURES.filter((p) => p.type === 'mutation' && !PUBLIC.includes(p.path));
    expect(mutations.map((m) => m.path)).toEqual(expect.arrayContaining(['withdrawals.create', 'transactions.create', 'sandbox.pay', 'webhooks.create', 'webhooks.delete', 'dashboard.rotateToken', 'session.signOut']));
    for (const { path } of mutations) {
      expect((await failure(call(as({ cookie }).api, path, {}))).code, path).toBe('FORBIDDEN');
      expect((await failure(call(as({ cookie, 'x-csrf-token': `${jar.pp_csrf}x` }).api, path, {}))).code, path).toBe('FORBIDDEN');
    }
    // with the token the same calls get past authentication (and stop at their input: nothing was sent)
    for (const { path } of mutations.filter((m) => m.path !== 'session.signOut' && m.path !== 'auth.revoke')) {
      expect((await failure(call(as({ cookie, 'x-csrf-token': jar.pp_csrf }).api, path, {}))).code, path).toBe('BAD_REQUEST');
    }
    for (const { path } of PROCEDURES.filter((p) => p.type === 'query' && p.path.startsWith('dashboard.'))) {
      await expect(call(as({ cookie }).api, path, undefined), path).resolves.toBeTruthy();
    }
  });
});

describe('dashboard procedures', () => {
  it('refuse bearer tokens: they are for a signed-in person only', async () => {
    const acc = await makeAccount(s, { balance: 0 });
    expect((await failure(callerFor(s, null).dashboard.overview())).code).toBe('UNAUTHORIZED');
    const token = await as().api.auth.token({ code: acc.code, token: acc.token });
    expect((await failure(as({ authorization: `Bearer ${token.access_token}` }).api.dashboard.developers())).code).toBe('UNAUTHORIZED');
  });

  it('overview: balance, money in and out per Brasília day over 30 days, recent events', async () => {
    clock.set(new Date('2026-01-15T20:00:00.000Z'));
    const { cookie, acc } = await signedIn();
    // 02:00 UTC on the 16th is still the 15th in Brasília
    clock.set(new Date('2026-01-16T02:00:00.000Z'));
    await callerFor(s, acc.account_id).account.sandboxTopUp({ amount: 2_500 });
    await callerFor(s, acc.account_id).withdrawals.create({
      amount: 40_000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: '529.982.247-25' },
    });
    const o = await as({ cookie }).api.dashboard.overview();
    expect(o).toMatchObject({ account_name: 'Shop', currency: 'BRL', available: 962_500, in_flight: 40_000, blocked: 0, money_in: 1_002_500, money_out: 0 });
    expect(o.daily).toHaveLength(30);
    // top-ups are money in, never sales
    expect(o.daily[29]).toEqual({ date: '2026-01-15', money_in: 1_002_500, money_out: 0, sales: 0, top_ups: 1_002_500, payouts: 0 });
    expect(o.periods.today).toEqual({ sales: 0, sales_count: 0, top_ups: 1_002_500, payouts: 0, chargebacks: 0 });
    expect(o.periods.yesterday.top_ups).toBe(0);
    expect(o.periods.month.top_ups).toBe(1_002_500);
    expect(o.recent[0]).toMatchObject({ counterparty: 'Fulano' });
    expect(o.daily[0].date).toBe('2025-12-17');
    expect(o.daily.slice(0, 29).every((d) => d.money_in === 0 && d.money_out === 0)).toBe(true);
    expect(o.recent[0]).toMatchObject({ type: 'withdraw.requested', amount: 40_000, status: 'REQUESTED' });
    expect(o.recent[0].resource_id).toMatch(/^wd_/);

    // thirty days later the old movements have left the window
    clock.advance(31 * 86_400_000);
    const again = as();
    await again.api.session.signIn({ email: EMAIL, password: PASSWORD });
    const fresh = again.ctx.resHeaders.getSetCookie()[0].split(';')[0];
    const later = await as({ cookie: fresh }).api.dashboard.overview();
    expect(later.money_in).toBe(0);
  });

  it('overview: a dispute in the recent activity names its charge, so the page can link to it', async () => {
    const { cookie, acc } = await signedIn();
    const c = callerFor(s, acc.account_id);
    const charge = await c.transactions.create(txBody('CARD'));
    const dispute = await c.sandbox.openDispute({ id: charge.id });
    const o = await as({ cookie }).api.dashboard.overview();
    expect(o.recent[0]).toMatchObject({ type: 'dispute.opened', resource_id: dispute.id, transaction_id: charge.id, status: 'OPEN', amount: charge.total });
    expect(o.recent[1]).toMatchObject({ type: 'transaction.approved', resource_id: charge.id, transaction_id: null });
    expect(o.blocked).toBe(charge.total);
  });

  it('developers: code and api_key, the postback secret on request, and a rotated client token shown once', async () => {
    const { cookie, jar, acc } = await signedIn();
    const api = as({ cookie, 'x-csrf-token': jar.pp_csrf }).api;
    expect(await api.dashboard.developers()).toEqual({ account_id: acc.account_id, account_name: 'Shop', code: acc.code, api_key: acc.api_key });
    expect((await api.dashboard.postbackSecret({ password: PASSWORD })).postback_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = await api.dashboard.rotateToken({ password: PASSWORD });
    expect(rotated.code).toBe(acc.code);
    expect(rotated.token).toMatch(/^sk_/);
    expect((await failure(as().api.auth.token({ code: acc.code, token: acc.token }))).code).toBe('UNAUTHORIZED');
    expect((await as().api.auth.token({ code: acc.code, token: rotated.token })).token_type).toBe('Bearer');
  });
});
