import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { callerFor, makeAccount, makeTestServices } from '../support/services';

let s: ReturnType<typeof makeTestServices>;
let clock: ManualClock;
beforeEach(() => { clock = new ManualClock(new Date('2026-01-15T12:00:00.000Z')); s = makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

const caller = createCallerFactory(appRouter);
function as(headers: Record<string, string> = {}, ip = '10.0.0.1') {
  const ctx = createContextInner({ services: s, headers, ip, transport: 'trpc' });
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
  const cookies = ctx.response.headers['set-cookie'] as string[];
  const jar = Object.fromEntries(cookies.map((c) => c.split(';')[0].split('=') as [string, string]));
  const cookie = `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`;
  return { acc, me, cookies, jar, cookie };
}

describe('session.signIn / signOut', () => {
  it('sets an httpOnly SameSite=Lax session cookie and a readable CSRF cookie; Secure only when asked or behind https in production', async () => {
    const { acc, me, cookies, jar } = await signedIn();
    expect(me).toMatchObject({ email: EMAIL, account_id: acc.account_id, account_name: 'Shop' });
    expect(cookies).toHaveLength(2);
    expect(cookies[0]).toMatch(/^pp_session=ses_[\w-]+; Path=\/; Max-Age=43200; SameSite=Lax; HttpOnly$/);
    expect(cookies[1]).toMatch(/^pp_csrf=csrf_[\w-]+; Path=\/; Max-Age=43200; SameSite=Lax$/);
    expect(jar.pp_session).not.toBe(jar.pp_csrf);

    s.config.production = true;
    const plain = as();
    await plain.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect((plain.ctx.response.headers['set-cookie'] as string[])[0]).not.toContain('Secure');
    const proxied = as({ 'x-forwarded-proto': 'https' });
    await proxied.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect((proxied.ctx.response.headers['set-cookie'] as string[]).every((c) => c.endsWith('; Secure'))).toBe(true);
    s.config.production = false;
    s.config.cookieSecure = true;
    const forced = as();
    await forced.api.session.signIn({ email: EMAIL, password: PASSWORD });
    expect((forced.ctx.response.headers['set-cookie'] as string[])[0]).toContain('; Secure');
  });

  it('says only "wrong email or password", slows repeated failures and then answers 429 with retry-after', async () => {
    await makeAccount(s, { balance: 0, email: EMAIL, password: PASSWORD });
    const { api, ctx } = as();
    const t0 = Date.now();
    const wrong = await failure(api.session.signIn({ email: EMAIL, password: 'nope' }));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    expect(wrong.code).toBe('UNAUTHORIZED');
    expect(wrong.message).toBe('wrong email or password');
    expect(ctx.response.headers['set-cookie']).toBeUndefined();
    const unknown = await failure(api.session.signIn({ email: 'nobody@shop.example', password: 'nope' }));
    expect(unknown.message).toBe(wrong.message);
    for (let i = 0; i < 4; i++) await failure(api.session.signIn({ email: EMAIL, password: 'nope' }));
    // the sixth try for this email is refused before the password is even checked, the right one too
    const limited = await failure(api.session.signIn({ email: EMAIL, password: PASSWORD }));
    expect(limited.code).toBe('TOO_MANY_REQUESTS');
    expect(limited.cause.extra.retryAfterSeconds).toBeGreaterThan(0);
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
    expect((await failure(as({ cookie, 'x-csrf-token': 'csrf_wrong' }).api.dashboard.rotateToken())).code).toBe('FORBIDDEN');

    const out = as({ cookie, 'x-csrf-token': jar.pp_csrf });
    await out.api.session.signOut();
    expect(out.ctx.response.headers['set-cookie']).toEqual([
      'pp_session=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly',
      'pp_csrf=; Path=/; Max-Age=0; SameSite=Lax',
    ]);
    expect((await failure(as({ cookie }).api.dashboard.overview())).code).toBe('UNAUTHORIZED');
  });

  it('expires sessions after 12 hours', async () => {
    const { cookie } = await signedIn();
    clock.advance(12 * 3600_000 - 1000);
    await as({ cookie }).api.dashboard.overview();
    clock.advance(2000);
    expect((await failure(as({ cookie }).api.dashboard.overview())).code).toBe('UNAUTHORIZED');
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
    expect(o.daily[29]).toEqual({ date: '2026-01-15', money_in: 1_002_500, money_out: 0 });
    expect(o.daily[0].date).toBe('2025-12-17');
    expect(o.daily.slice(0, 29).every((d) => d.money_in === 0 && d.money_out === 0)).toBe(true);
    expect(o.recent[0]).toMatchObject({ type: 'withdraw.requested', amount: 40_000, status: 'REQUESTED' });
    expect(o.recent[0].resource_id).toMatch(/^wd_/);

    // thirty days later the old movements have left the window
    clock.advance(31 * 86_400_000);
    const again = as();
    await again.api.session.signIn({ email: EMAIL, password: PASSWORD });
    const fresh = (again.ctx.response.headers['set-cookie'] as string[])[0].split(';')[0];
    const later = await as({ cookie: fresh }).api.dashboard.overview();
    expect(later.money_in).toBe(0);
  });

  it('developers: code and api_key, the postback secret on request, and a rotated client token shown once', async () => {
    const { cookie, jar, acc } = await signedIn();
    const api = as({ cookie, 'x-csrf-token': jar.pp_csrf }).api;
    expect(await api.dashboard.developers()).toEqual({ account_id: acc.account_id, account_name: 'Shop', code: acc.code, api_key: acc.api_key });
    expect((await api.dashboard.postbackSecret()).postback_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = await api.dashboard.rotateToken();
    expect(rotated.code).toBe(acc.code);
    expect(rotated.token).toMatch(/^sk_/);
    expect((await failure(as().api.auth.token({ code: acc.code, token: acc.token }))).code).toBe('UNAUTHORIZED');
    expect((await as().api.auth.token({ code: acc.code, token: rotated.token })).token_type).toBe('Bearer');
  });
});
