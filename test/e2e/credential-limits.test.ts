import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_ATTEMPTS_PER_ADDRESS, TOKEN_ATTEMPTS_PER_ADDRESS } from '../../contract/rate-limits';
import { removeDir, startServer, type RunningServer } from '../support/server';

/**
 * docs/decisions.md "Sign-in and token limits" and "Client addresses" (and the session cookie's Secure
 * flag) over HTTP: limits counted before the check, per client address,
 * with the client address taken from X-Forwarded-For only behind a trusted proxy.
 */
let proxied: RunningServer; // TRUSTED_PROXIES=127.0.0.1: the test plays the proxy
let direct: RunningServer; // no trusted proxies: forwarded headers are ignored

beforeAll(async () => {
  [proxied, direct] = await Promise.all([
    startServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } }),
    startServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([proxied?.stop(), direct?.stop()]);
  for (const s of [proxied, direct]) if (s) removeDir(s.dir);
});

async function post(srv: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) };
}
const from = (address: string, more: Record<string, string> = {}) => ({ 'x-forwarded-for': `10.9.9.9, ${address}`, ...more });
const signIn = (srv: RunningServer, email: string, password: string, headers: Record<string, string> = {}) =>
  post(srv, '/api/trpc/session.signIn', { email, password }, headers);
const token = (srv: RunningServer, code: string, tok: string, headers: Record<string, string> = {}) =>
  post(srv, '/auth/token', { code, token: tok }, headers);

/** Sends the burst, and `last` once `after` answers of the burst are in (so the attempts before it have counted). */
async function burst<T extends { status: number }>(n: number, one: () => Promise<T>, after: number, last: () => Promise<T>) {
  let answered = 0;
  let release!: () => void;
  const ready = new Promise<void>((r) => { release = r; });
  const all = Array.from({ length: n }, () => one().then((r) => { if (++answered === after) release(); return r; }));
  const final = ready.then(last);
  return { answers: await Promise.all(all), last: await final };
}

describe('the session cookie', () => {
  it('is Secure when a trusted proxy says the request came over https, never for the same header from anyone else', async () => {
    const viaProxy = await signIn(proxied, proxied.demo.email, proxied.demo.password, from('192.0.2.10', { 'x-forwarded-proto': 'https' }));
    expect(viaProxy.status).toBe(200);
    expect(viaProxy.headers.getSetCookie().every((c) => c.endsWith('; Secure'))).toBe(true);
    const plain = await signIn(proxied, proxied.demo.email, proxied.demo.password, from('192.0.2.10'));
    expect(plain.headers.getSetCookie().some((c) => c.includes('Secure'))).toBe(false);
    const claimed = await signIn(direct, direct.demo.email, direct.demo.password, { 'x-forwarded-proto': 'https' });
    expect(claimed.status).toBe(200);
    expect(claimed.headers.getSetCookie().some((c) => c.includes('Secure'))).toBe(false);
  });
});

describe('sign-in limits', () => {
  it('60 parallel wrong passwords for one email check at most the window allowance; the right password in the burst is 429', async () => {
    const { email, password } = proxied.demo;
    const { answers, last } = await burst(60, () => signIn(proxied, email, 'wrong password', from('203.0.113.5')),
      SIGN_IN_ATTEMPTS_PER_ADDRESS.max, () => signIn(proxied, email, password, from('203.0.113.5')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SIGN_IN_ATTEMPTS_PER_ADDRESS.max);
    for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last.status).toBe(429);
    expect(last.json.error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
    // the owner, from an address with no failures, signs in at once, with the session cookie
    const owner = await signIn(proxied, email, password, from('203.0.113.77'));
    expect(owner.status).toBe(200);
    expect(owner.headers.get('set-cookie')).toMatch(/pp_session=ses_/);
  });

  it('a batch of sign-ins, or of more than 20 calls, is refused whole before any password is checked', async () => {
    const { email, password } = proxied.demo;
    const input = (p: string) => ({ email, password: p });
    const sixty = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [String(i), input(i === 59 ? password : 'wrong')]));
    const paths = (name: string, n: number) => Array(n).fill(name).join(',');
    const big = await post(proxied, `/api/trpc/${paths('session.signIn', 60)}?batch=1`, sixty, from('203.0.113.6'));
    expect(big.status).toBe(400);
    const two = await post(proxied, `/api/trpc/${paths('session.signIn', 2)}?batch=1`, { 0: input('wrong'), 1: input(password) }, from('203.0.113.6'));
    expect(two.status).toBe(400);
    expect(JSON.stringify(two.json)).toMatch(/session\.signIn cannot be batched/);
    expect(two.headers.get('set-cookie')).toBeNull();
    const tokens = await post(proxied, `/api/trpc/session.me,auth.token?batch=1`, { 1: { code: 'cli_x', token: 'sk_x' } }, from('203.0.113.6'));
    expect(tokens.status).toBe(400);
    // 21 harmless calls are too many; 20 are fine (each answering for itself)
    const q = (n: number) => fetch(`${proxied.url}/api/trpc/${paths('session.me', n)}?batch=1`, { headers: from('203.0.113.6') });
    expect((await q(21)).status).toBe(400);
    const twenty = await q(20);
    expect((await twenty.json() as unknown[]).length).toBe(20);
    // nothing was checked, nothing counted: the same address signs in with one call
    expect((await signIn(proxied, email, password, from('203.0.113.6'))).status).toBe(200);
  });

  it('without trusted proxies X-Forwarded-For is ignored: changing it does not escape the throttle', async () => {
    const { email, password } = direct.demo;
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS.max; i++) {
      // a fresh made-up address per try, and a fresh email so the per-email delay is not what stops it
      const r = await signIn(direct, `x${i}@nowhere.example`, 'wrong', { 'x-forwarded-for': `198.18.0.${i}` });
      expect(r.status).toBe(401);
    }
    expect((await signIn(direct, email, password, { 'x-forwarded-for': '198.18.1.1' })).status).toBe(429);
  });
});

describe('token limits', () => {
  it('wrong tokens for a victim’s code never lock the code: only the sending address is throttled', async () => {
    const { code, token: secret } = proxied.demo;
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max; i++) {
      expect((await token(proxied, code, 'sk_wrong', from('198.51.100.1'))).status).toBe(401);
    }
    const throttled = await token(proxied, code, secret, from('198.51.100.1'));
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(throttled.json).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    // the merchant's integration, from its own address
    const ok = await token(proxied, code, secret, from('198.51.100.2'));
    expect(ok.status).toBe(200);
    expect(ok.json.access_token).toMatch(/^at_/);
  });

  it('failures with unknown codes from one address throttle that address and nobody behind the same proxy', async () => {
    const { code, token: secret } = proxied.demo;
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => token(proxied, `cli_unknown${i}`, 'sk_x', from('198.51.100.3'))));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(TOKEN_ATTEMPTS_PER_ADDRESS.max);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(60 - TOKEN_ATTEMPTS_PER_ADDRESS.max);
    expect((await token(proxied, code, secret, from('198.51.100.3'))).status).toBe(429);
    expect((await token(proxied, code, secret, from('198.51.100.4'))).status).toBe(200);
  });

  it('an IPv6 client cannot escape the throttle by moving inside its /64; IPv4-mapped is the same client', async () => {
    const { code, token: secret } = proxied.demo;
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max; i++) {
      expect((await token(proxied, code, 'sk_wrong', from(`2001:db8:77:1::${(i + 1).toString(16)}`))).status).toBe(401);
    }
    expect((await token(proxied, code, secret, from('2001:db8:77:1:ffff::9'))).status).toBe(429);
    expect((await token(proxied, code, secret, from('2001:db8:77:2::1'))).status).toBe(200);
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max; i++) {
      expect((await token(proxied, code, 'sk_wrong', from('198.51.100.40'))).status).toBe(401);
    }
    expect((await token(proxied, code, secret, from('::ffff:198.51.100.40'))).status).toBe(429);
  });
});
