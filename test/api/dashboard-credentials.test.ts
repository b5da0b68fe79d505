import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { LAST_SEEN_EVERY_MS } from '../../server/domain/sessions';
import { toDomainError } from '../../server/errors';
import { growingDelayMs } from '../../contract/rate-limits';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * Issue 23 items 4 and 6 through the procedures: secrets and new credentials take the password (403 when
 * wrong, 429 under the sign-in limits, 400 naming the field, nothing changed when refused), every such
 * act is in the account's audit trail, and sessions can be listed and ended (sign out everywhere, a new
 * client token, a new password). Runs on both engines (vitest.pg.config.ts).
 */

let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(new Date('2026-03-02T12:00:00.000Z')); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

const caller = createCallerFactory(appRouter);
const EMAIL = 'owner@shop.example';
const PASSWORD = 'correct horse battery';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0';

function as(headers: Record<string, string> = {}, ip = '10.0.0.1') {
  const ctx = createContextInner({ services: s, headers, ip, transport: 'trpc' });
  return { api: caller(ctx), ctx };
}

interface Session { cookie: string; csrf: string; ip: string; ua: string }

/** Signs the owner in from `ip` with a browser's User-Agent; the cookie and CSRF token of that session. */
async function signIn(ip = '10.0.0.1', ua = UA, password = PASSWORD): Promise<Session> {
  const { api, ctx } = as({ 'user-agent': ua }, ip);
  await api.session.signIn({ email: EMAIL, password });
  const jar = Object.fromEntries(ctx.resHeaders.getSetCookie().map((c) => c.split(';')[0].split('=') as [string, string]));
  return { cookie: `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`, csrf: jar.pp_csrf, ip, ua };
}

/** The session's caller, mutations included (the CSRF header echoed). */
const using = (x: Session) => as({ cookie: x.cookie, 'x-csrf-token': x.csrf, 'user-agent': x.ua }, x.ip).api;

async function refusal(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e, 'expected a refusal').not.toBeNull();
  return toDomainError(e);
}

const alive = async (x: Session) => using(x).session.me().then(() => true, () => false);

let acc: Awaited<ReturnType<typeof makeAccount>>;
beforeEach(async () => { acc = await makeAccount(s, { name: 'Shop', balance: 0, email: EMAIL, password: PASSWORD }); });

describe('secrets and new credentials take the password', () => {
  it('rotateToken: 400 naming password, 403 when wrong (nothing changed), then a new token; other sessions of the account end, this one stays; recorded', async () => {
    const here = await signIn('10.0.0.1');
    const elsewhere = await signIn('10.0.0.2', 'Other/1.0');
    const before = await using(here).dashboard.auditTrail();

    const missing = await refusal(using(here).dashboard.rotateToken({} as { password: string }));
    expect(missing).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(missing.extra.issues?.map((i) => i.path)).toEqual(['password']);

    const wrong = await refusal(using(here).dashboard.rotateToken({ password: 'not my password' }));
    expect(wrong).toMatchObject({ code: 'FORBIDDEN', status: 403, detail: 'wrong password' });
    // nothing changed: the old token still opens the API, every session still works, nothing recorded
    expect((await as().api.auth.token({ code: acc.code, token: acc.token })).token_type).toBe('Bearer');
    expect(await alive(elsewhere)).toBe(true);
    expect(await using(here).dashboard.auditTrail()).toEqual(before);

    // limited like sign-in: the failure makes this address wait before the next check, the right password too
    const limited = await refusal(using(here).dashboard.rotateToken({ password: PASSWORD }));
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(limited.extra.retryAfterSeconds).toBe(Math.ceil(growingDelayMs(1) / 1000));
    clock.advance(growingDelayMs(1));

    const rotated = await using(here).dashboard.rotateToken({ password: PASSWORD });
    expect(rotated.token).toMatch(/^sk_/);
    expect((await refusal(as().api.auth.token({ code: acc.code, token: acc.token }))).code).toBe('UNAUTHORIZED');
    expect(await alive(here)).toBe(true);
    expect(await alive(elsewhere)).toBe(false);

    const [entry] = (await using(here).dashboard.auditTrail()).data;
    expect(entry).toMatchObject({ action: 'client_token.rotate', actor_email: EMAIL, client_address: '10.0.0.1', user_agent: UA, subject: null, created_at: clock.now().toISOString() });
    expect(entry.id).toMatch(/^aud_/);
    // the trail never holds a secret
    expect(JSON.stringify(await using(here).dashboard.auditTrail())).not.toContain(rotated.token);
  });

  it('postbackSecret is a mutation with the password: 403 when wrong, recorded when shown', async () => {
    const here = await signIn();
    expect((await refusal(using(here).dashboard.postbackSecret({ password: 'nope' }))).status).toBe(403);
    expect((await using(here).dashboard.auditTrail()).data.map((e) => e.action)).toEqual(['session.sign_in']);
    clock.advance(growingDelayMs(1));
    expect((await using(here).dashboard.postbackSecret({ password: PASSWORD })).postback_secret).toMatch(/^whsec_/);
    expect((await using(here).dashboard.auditTrail()).data[0]).toMatchObject({ action: 'postback_secret.reveal', actor_email: EMAIL, client_address: '10.0.0.1' });
    // the CSRF token is required like on every mutation, and a query cannot carry it any more
    const noCsrf = as({ cookie: here.cookie }, here.ip).api;
    expect((await refusal(noCsrf.dashboard.postbackSecret({ password: PASSWORD }))).status).toBe(403);
  });

  it('webhook secret reveals and rotations are recorded with the webhook; another account\'s webhook is 404 and records nothing', async () => {
    const here = await signIn();
    s.config.webhookAllowPrivateUrls = true; // no receiver is called: nothing here sends an event
    const hook = (await callerFor(s, acc.account_id, 'webhook-api').webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['transaction'] })).content;
    const other = await makeAccount(s, { name: 'Other', balance: 0 });
    const foreign = (await callerFor(s, other.account_id, 'webhook-api').webhooks.create({ url: 'http://127.0.0.1:9/other', events: ['transaction'] })).content;

    expect((await using(here).webhooks.revealSecret({ magic_id: hook.magic_id, password: PASSWORD })).content.secret).toBe(hook.secret);
    const rotated = await using(here).webhooks.rotateSecretConfirmed({ magic_id: hook.magic_id, password: PASSWORD });
    expect(rotated.content.secret).not.toBe(hook.secret);
    expect((await refusal(using(here).webhooks.revealSecret({ magic_id: foreign.magic_id, password: PASSWORD }))).status).toBe(404);
    expect((await refusal(using(here).webhooks.rotateSecretConfirmed({ magic_id: foreign.magic_id, password: PASSWORD }))).status).toBe(404);

    const trail = (await using(here).dashboard.auditTrail()).data;
    expect(trail.map((e) => [e.action, e.subject])).toEqual([
      ['webhook_secret.rotate', hook.magic_id], ['webhook_secret.reveal', hook.magic_id], ['session.sign_in', null],
    ]);
  });

  it('needs a signed-in person: an account standing in for a session, or a bearer token, cannot', async () => {
    const bare = callerFor(s, acc.account_id, 'session');
    expect((await refusal(bare.dashboard.rotateToken({ password: PASSWORD }))).code).toBe('FORBIDDEN');
    const token = await as().api.auth.token({ code: acc.code, token: acc.token });
    const bearer = as({ authorization: `Bearer ${token.access_token}` }).api;
    expect((await refusal(bearer.dashboard.postbackSecret({ password: PASSWORD }))).code).toBe('UNAUTHORIZED');
    expect((await refusal(bearer.dashboard.auditTrail())).code).toBe('UNAUTHORIZED');
  });
});

describe('the audit trail', () => {
  it('records sign-ins with where they came from, pages newest first, and refuses a cursor it did not give (400 on cursor)', async () => {
    for (let i = 1; i <= 5; i++) {
      await signIn(`10.1.0.${i}`, `Agent/${i}`);
      clock.advance(1000);
    }
    const here = await signIn('10.1.0.9');
    const first = await using(here).dashboard.auditTrail({ limit: 4 });
    expect(first.data.map((e) => e.client_address)).toEqual(['10.1.0.9', '10.1.0.5', '10.1.0.4', '10.1.0.3']);
    expect(first.data.every((e) => e.action === 'session.sign_in' && e.actor_email === EMAIL)).toBe(true);
    expect(first.data[1].user_agent).toBe('Agent/5');
    const rest = await using(here).dashboard.auditTrail({ limit: 4, cursor: first.next_cursor! });
    expect(rest.data.map((e) => e.client_address)).toEqual(['10.1.0.2', '10.1.0.1']);
    expect(rest.next_cursor).toBeNull();

    const bad = await refusal(using(here).dashboard.auditTrail({ cursor: 'nonsense' }));
    expect(bad.status).toBe(400);
    expect(bad.extra.issues?.[0].path).toBe('cursor');
    expect((await refusal(using(here).dashboard.auditTrail({ limit: 0 }))).extra.issues?.[0].path).toBe('limit');
    // another account sees none of it
    const other = await makeAccount(s, { name: 'Other', balance: 0, email: 'other@shop.example', password: PASSWORD });
    const o = as({ 'user-agent': UA }, '10.2.0.1');
    await o.api.session.signIn({ email: 'other@shop.example', password: PASSWORD });
    const cookie = o.ctx.resHeaders.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const theirs = (await as({ cookie }).api.dashboard.auditTrail()).data;
    expect(theirs.map((e) => e.actor_email)).toEqual(['other@shop.example']);
    expect(other.account_id).not.toBe(acc.account_id);
  });

  it('a User-Agent is cut to 300 characters and loses control characters', async () => {
    const here = await signIn('10.0.0.1', `Evil\u0000\n${'x'.repeat(400)}`);
    const [entry] = (await using(here).dashboard.auditTrail()).data;
    expect(entry.user_agent).toBe(`Evil${'x'.repeat(296)}`);
  });
});

describe('sessions', () => {
  it('lists this person\'s live sessions with where each signed in, the current one marked, last seen refreshed every few minutes', async () => {
    const phone = await signIn('10.0.0.7', 'Phone/2.0');
    clock.advance(60_000);
    const here = await signIn('10.0.0.1');
    const list = (await using(here).session.sessions()).data;
    expect(list).toEqual([
      { current: true, client_address: '10.0.0.1', user_agent: UA, created_at: clock.now().toISOString(), last_seen_at: clock.now().toISOString(), expires_at: expect.any(String) },
      { current: false, client_address: '10.0.0.7', user_agent: 'Phone/2.0', created_at: '2026-03-02T12:00:00.000Z', last_seen_at: '2026-03-02T12:00:00.000Z', expires_at: '2026-03-03T00:00:00.000Z' },
    ]);
    // the phone is used again a few minutes later: its last-seen moves, not on every request
    clock.advance(LAST_SEEN_EVERY_MS - 60_000 - 1);
    await using(phone).session.me();
    expect((await using(here).session.sessions()).data[1].last_seen_at).toBe('2026-03-02T12:00:00.000Z');
    clock.advance(1);
    await using(phone).session.me();
    expect((await using(here).session.sessions()).data[1].last_seen_at).toBe(clock.now().toISOString());
    // signed out: gone from the list
    await using(phone).session.signOut();
    expect((await using(here).session.sessions()).data).toHaveLength(1);
  });

  it('sign out everywhere: 403 with a wrong password (nothing ended), then every other session of this person ends, this one stays; recorded', async () => {
    const a = await signIn('10.0.0.2');
    const b = await signIn('10.0.0.3');
    const here = await signIn('10.0.0.1');
    const other = await makeAccount(s, { name: 'Other', balance: 0, email: 'other@shop.example', password: PASSWORD });
    const theirs = as({}, '10.9.0.1');
    await theirs.api.session.signIn({ email: 'other@shop.example', password: PASSWORD });
    const theirCookie = theirs.ctx.resHeaders.getSetCookie().map((c) => c.split(';')[0]).join('; ');

    expect((await refusal(using(here).session.signOutEverywhere({ password: 'guess' }))).status).toBe(403);
    expect(await alive(a)).toBe(true);
    expect((await refusal(using(here).session.signOutEverywhere({} as { password: string }))).extra.issues?.[0].path).toBe('password');
    clock.advance(growingDelayMs(1));

    expect(await using(here).session.signOutEverywhere({ password: PASSWORD })).toEqual({ ended_sessions: 2 });
    expect(await alive(a)).toBe(false);
    expect(await alive(b)).toBe(false);
    expect(await alive(here)).toBe(true);
    // another account's person is not touched
    expect((await as({ cookie: theirCookie }).api.session.me()).account_id).toBe(other.account_id);
    expect((await using(here).session.sessions()).data).toEqual([expect.objectContaining({ current: true })]);
    expect((await using(here).dashboard.auditTrail()).data[0]).toMatchObject({ action: 'session.sign_out_everywhere', client_address: '10.0.0.1', actor_email: EMAIL });
  });

  it('password change: the account:create rule for the new one (400 naming new_password), 403 for a wrong current one; then the old password is over and other sessions end', async () => {
    const elsewhere = await signIn('10.0.0.2');
    const here = await signIn('10.0.0.1');
    const trail = await using(here).dashboard.auditTrail();

    const short = await refusal(using(here).session.changePassword({ password: PASSWORD, new_password: 'short' }));
    expect(short).toMatchObject({ status: 400 });
    expect(short.extra.issues).toEqual([{ path: 'new_password', message: 'at least 10 characters' }]);
    const same = await refusal(using(here).session.changePassword({ password: PASSWORD, new_password: PASSWORD }));
    expect(same.extra.issues).toEqual([{ path: 'new_password', message: 'must differ from the current password' }]);
    const wrong = await refusal(using(here).session.changePassword({ password: 'not the password', new_password: 'a brand new secret' }));
    expect(wrong).toMatchObject({ status: 403, detail: 'wrong password' });
    // nothing changed by any refusal
    expect(await alive(elsewhere)).toBe(true);
    expect(await using(here).dashboard.auditTrail()).toEqual(trail);
    clock.advance(growingDelayMs(1));
    await signIn('10.0.0.5');

    expect(await using(here).session.changePassword({ password: PASSWORD, new_password: 'a brand new secret' })).toEqual({ ended_sessions: 2 });
    expect(await alive(elsewhere)).toBe(false);
    expect(await alive(here)).toBe(true);
    expect((await refusal(as({}, '10.0.0.8').api.session.signIn({ email: EMAIL, password: PASSWORD }))).code).toBe('UNAUTHORIZED');
    await signIn('10.0.0.9', UA, 'a brand new secret');
    expect((await using(here).dashboard.auditTrail()).data.map((e) => e.action).slice(0, 2)).toEqual(['session.sign_in', 'password.change']);
  });
});

describe('one email and password rule for account:create and the sign-in form', () => {
  it('refuses an email the sign-in form would refuse, and a password it would not let be set', async () => {
    for (const email of ['x@y.z', 'a@localhost', 'no-at-sign.example']) {
      const e = await refusal(makeAccount(s, { name: 'Acme', email, password: 'long enough password' }));
      expect(e, email).toMatchObject({ code: 'VALIDATION', detail: 'email: must be an email address' });
      expect((await refusal(as().api.session.signIn({ email, password: 'long enough password' }))).extra.issues?.[0].path, email).toBe('email');
    }
    expect((await refusal(makeAccount(s, { name: 'Acme', email: 'a@b.co', password: 'short' }))).detail).toBe('password: at least 10 characters');
    expect((await refusal(makeAccount(s, { name: 'Acme', email: 'a@b.co', password: 'x'.repeat(201) }))).detail).toBe('password: at most 200 characters');
    // what it accepts signs in, in any case and with spaces around
    await makeAccount(s, { name: 'Acme', email: ' New.Owner@Acme.COM.br ', password: 'long enough password' });
    expect((await as({}, '10.4.0.1').api.session.signIn({ email: 'new.owner@acme.com.br', password: 'long enough password' })).email).toBe('new.owner@acme.com.br');
  });
});
