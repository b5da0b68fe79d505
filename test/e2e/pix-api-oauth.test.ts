import { systemClock } from '../../server/clock';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_ATTEMPTS_PER_ADDRESS } from '../../contract/rate-limits';
import { PIX_API_SCOPES, PixApiAccessDenied, pixApiPrincipal, requireScope } from '../../server/domain/pix-api/oauth';
import { accessToken, api, runTsx, SERVER_TEST_TIMEOUT_MS, serverEnv, type RunningServer } from '../support/server';
import { peek } from '../support/peek';
import { basicAuth, pixApiHarness } from '../support/pix-api-harness';
import type { Services } from '../../server/services';

/**
 * The API Pix's POST /oauth/token over HTTP against the running server (docs/decisions.md "The Banco
 * Central's API Pix"): client credentials with HTTP Basic, RFC 6749's answers and errors, scopes, the
 * secret's rotation from the dashboard, the failure limit per client address, and account:create.
 * The server trusts 127.0.0.1 as its proxy, so each test speaks from its own X-Forwarded-For address
 * and no test's failures count against another's.
 */
const harness = pixApiHarness({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
let srv: RunningServer;
let beside: Services; // this process reading the server's database, as a /v2 request's auth would
beforeAll(() => ({ srv, side: beside } = harness));


async function tokenRequest(o: { authorization?: string; body?: string; contentType?: string; from: string; method?: string }) {
  const headers: Record<string, string> = { 'x-forwarded-for': o.from, 'content-type': o.contentType ?? 'application/x-www-form-urlencoded' };
  if (o.authorization) headers.authorization = o.authorization;
  const res = await fetch(`${srv.url}/oauth/token`, { method: o.method ?? 'POST', headers, body: o.method === 'GET' ? undefined : o.body ?? 'grant_type=client_credentials' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> };
}

const demoBasic = () => basicAuth(srv.demo.pixClientId, srv.demo.pixClientSecret);

describe('POST /oauth/token', () => {
  it('grants a Bearer token for an hour with every scope of the client; only its hash is kept', async () => {
    expect(srv.demo.pixClientId).toMatch(/^pxc_/);
    const r = await tokenRequest({ authorization: demoBasic(), from: '192.0.2.1' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(r.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: PIX_API_SCOPES.join(' ') });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const principal = await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${r.json.access_token as string}`);
    expect(principal).toEqual({ accountId: srv.demo.accountId, clientId: srv.demo.pixClientId, scopes: new Set(PIX_API_SCOPES) });
    // not a token of the gateway API, and not the other way round
    expect((await api(srv.url, '/balance', { token: r.json.access_token as string })).status).toBe(401);
    const gateway = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${gateway}`)).toBeNull();
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, undefined)).toBeNull();
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${(r.json.access_token as string).slice(0, -2)}xx`)).toBeNull();
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, demoBasic())).toBeNull();
    const stored = JSON.stringify(await peek(srv.databasePath, async (db) => [await db.all('SELECT * FROM pix_api_clients'), await db.all('SELECT * FROM pix_api_tokens')]));
    expect(stored).toContain(srv.demo.pixClientId); // the public half, as is
    expect(stored).not.toContain(srv.demo.pixClientSecret);
    expect(stored).not.toContain(r.json.access_token as string);
  });

  it('a wrong secret and an unknown client are both 401 invalid_client with the Basic challenge', async () => {
    for (const authorization of [basicAuth(srv.demo.pixClientId, 'pxs_wrong'), basicAuth('pxc_nobody', srv.demo.pixClientSecret)]) {
      const r = await tokenRequest({ authorization, from: '192.0.2.2' });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: 'invalid_client', error_description: 'unknown client or wrong client secret' });
      expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    }
  });

  it('without HTTP Basic (none, a Bearer, credentials in the body, garbage) it is 401 invalid_client', async () => {
    const none = await tokenRequest({ from: '192.0.2.3' });
    expect(none.status).toBe(401);
    expect(none.json.error).toBe('invalid_client');
    const bearer = await tokenRequest({ authorization: 'Bearer pxa_x', from: '192.0.2.3' });
    expect(bearer.status).toBe(401);
    const inBody = await tokenRequest({ body: `grant_type=client_credentials&client_id=${srv.demo.pixClientId}&client_secret=${srv.demo.pixClientSecret}`, from: '192.0.2.3' });
    expect(inBody.status).toBe(401);
    expect(inBody.json.error).toBe('invalid_client');
    const noColon = await tokenRequest({ authorization: `Basic ${Buffer.from('just-an-id').toString('base64')}`, from: '192.0.2.3' });
    expect(noColon).toMatchObject({ status: 401, json: { error: 'invalid_client' } });
  });

  it('a grant other than client_credentials is 400 unsupported_grant_type; a malformed request 400 invalid_request', async () => {
    const password = await tokenRequest({ authorization: demoBasic(), body: 'grant_type=password&username=a&password=b', from: '192.0.2.4' });
    expect(password.status).toBe(400);
    expect(password.json).toEqual({ error: 'unsupported_grant_type', error_description: 'only grant_type=client_credentials is supported' });
    expect(password.headers.get('cache-control')).toBe('no-store');
    expect((await tokenRequest({ authorization: demoBasic(), body: 'scope=cob.read', from: '192.0.2.4' })).json).toMatchObject({ error: 'invalid_request' });
    expect((await tokenRequest({ authorization: demoBasic(), body: 'grant_type=client_credentials&grant_type=client_credentials', from: '192.0.2.4' })).json)
      .toMatchObject({ error: 'invalid_request', error_description: 'grant_type is sent more than once' });
    const json = await tokenRequest({ authorization: demoBasic(), body: '{"grant_type":"client_credentials"}', contentType: 'application/json', from: '192.0.2.4' });
    expect(json).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
    const get = await tokenRequest({ authorization: demoBasic(), method: 'GET', from: '192.0.2.4' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    // an unknown parameter is ignored (RFC 6749 §3.2)
    expect((await tokenRequest({ authorization: demoBasic(), body: 'grant_type=client_credentials&audience=x', from: '192.0.2.4' })).status).toBe(200);
  });

  it('grants exactly the scopes asked for; a scope the client cannot have refuses the request (invalid_scope)', async () => {
    const narrow = await tokenRequest({ authorization: demoBasic(), body: 'grant_type=client_credentials&scope=cob.read%20cobv.write', from: '192.0.2.5' });
    expect(narrow.status).toBe(200);
    expect(narrow.json.scope).toBe('cob.read cobv.write');
    const principal = (await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${narrow.json.access_token as string}`))!;
    expect([...principal.scopes]).toEqual(['cob.read', 'cobv.write']);
    expect(() => requireScope(principal, 'cob.read')).not.toThrow();
    const denied = (() => { try { requireScope(principal, 'pix.write'); return null; } catch (e) { return e; } })();
    expect(denied).toBeInstanceOf(PixApiAccessDenied);
    expect(denied).toMatchObject({ scope: 'pix.write', code: 'FORBIDDEN', status: 403 });

    // Pix Automático is not offered; an unknown scope, or a malformed list, is refused whole
    for (const scope of ['cob.read%20cobr.write', 'admin', 'cob.read%20%20cob.write', '%22cob.read%22']) {
      const r = await tokenRequest({ authorization: demoBasic(), body: `grant_type=client_credentials&scope=${scope}`, from: '192.0.2.5' });
      expect(r.status, scope).toBe(400);
      expect(r.json.error, scope).toBe('invalid_scope');
    }
    // repeated scopes are granted once
    expect((await tokenRequest({ authorization: demoBasic(), body: 'grant_type=client_credentials&scope=pix.read+pix.read', from: '192.0.2.5' })).json.scope).toBe('pix.read');
  });

  it(`counts failures per client address only: after ${TOKEN_ATTEMPTS_PER_ADDRESS.max} wrong secrets that address waits, the merchant's own address does not`, async () => {
    const wrong = basicAuth(srv.demo.pixClientId, 'pxs_guess');
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max; i++) expect((await tokenRequest({ authorization: wrong, from: '198.51.100.7' })).status).toBe(401);
    const limited = await tokenRequest({ authorization: demoBasic(), from: '198.51.100.7' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.json.error).toBe('temporarily_unavailable');
    // the attacker knows the public client id; the merchant's integration is not locked out
    expect((await tokenRequest({ authorization: demoBasic(), from: '198.51.100.8' })).status).toBe(200);
    // successes never count against an address (many integrations behind one NAT)
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max + 5; i++) expect((await tokenRequest({ authorization: demoBasic(), from: '198.51.100.9' })).status).toBe(200);
  });
});

describe('the client secret', () => {
  async function dashboardSession() {
    const res = await fetch(`${srv.url}/api/trpc/session.signIn`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.20' }, body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
    });
    expect(res.status).toBe(200);
    const jar = Object.fromEntries(res.headers.getSetCookie().map((c) => c.split(';')[0].split('=') as [string, string]));
    return { cookie: `pp_session=${jar.pp_session}; pp_csrf=${jar.pp_csrf}`, 'x-csrf-token': jar.pp_csrf, 'x-forwarded-for': '192.0.2.20' };
  }

  it('rotated from the dashboard (after the password), shown once: the old secret and its tokens stop working', async () => {
    const before = await tokenRequest({ authorization: demoBasic(), from: '192.0.2.21' });
    expect(before.status).toBe(200);
    const session = await dashboardSession();
    const shown = await api(srv.url, '/api/trpc/dashboard.pixApiCredentials', { headers: session });
    expect(shown.json.result.data.client).toMatchObject({ client_id: srv.demo.pixClientId, scopes: [...PIX_API_SCOPES] });
    expect(JSON.stringify(shown.json)).not.toContain(srv.demo.pixClientSecret);

    // (from another address: a miss makes the email's next check from this one wait, by the sign-in limits)
    const refused = await api(srv.url, '/api/trpc/dashboard.rotatePixSecret', { body: { password: 'not-the-password' }, headers: { ...session, 'x-forwarded-for': '192.0.2.22' } });
    expect(refused.status).toBe(403);
    expect((await tokenRequest({ authorization: demoBasic(), from: '192.0.2.21' })).status).toBe(200);

    const rotated = await api(srv.url, '/api/trpc/dashboard.rotatePixSecret', { body: { password: srv.demo.password }, headers: session });
    expect(rotated.status).toBe(200);
    const { client_id, client_secret } = rotated.json.result.data;
    expect(client_id).toBe(srv.demo.pixClientId);
    expect(client_secret).toMatch(/^pxs_[A-Za-z0-9_-]{43}$/);
    expect(client_secret).not.toBe(srv.demo.pixClientSecret);

    expect((await tokenRequest({ authorization: demoBasic(), from: '192.0.2.21' })).json).toMatchObject({ error: 'invalid_client' });
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${before.json.access_token as string}`)).toBeNull();
    const after = await tokenRequest({ authorization: basicAuth(client_id, client_secret), from: '192.0.2.21' });
    expect(after.status).toBe(200);
    expect(await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${after.json.access_token as string}`)).toMatchObject({ accountId: srv.demo.accountId });
    srv.demo.pixClientSecret = client_secret;

    // recorded in the account's audit trail
    const trail = await api(srv.url, `/api/trpc/dashboard.auditTrail?input=${encodeURIComponent(JSON.stringify({}))}`, { headers: session });
    expect(trail.json.result.data.data[0]).toMatchObject({ action: 'pix_client_secret.rotate', actor_email: srv.demo.email });
  });
});

describe('account:create --json', () => {
  it('prints pix_client_id, pix_client_secret and pix_key; they work at once', { timeout: SERVER_TEST_TIMEOUT_MS }, async () => {
    const r = await runTsx('scripts/account-create.ts', ['--name', 'Loja Pix', '--json'], { ...process.env, ...serverEnv(srv.databasePath) });
    expect(r.code, r.stderr).toBe(0);
    const creds = JSON.parse(r.stdout.trim());
    expect(creds).toMatchObject({ pix_client_id: expect.stringMatching(/^pxc_/), pix_client_secret: expect.stringMatching(/^pxs_/), pix_key: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const granted = await tokenRequest({ authorization: basicAuth(creds.pix_client_id, creds.pix_client_secret), from: '192.0.2.30' });
    expect(granted.status).toBe(200);
    expect((await pixApiPrincipal({ db: beside.db, clock: systemClock }, `Bearer ${granted.json.access_token as string}`))!.accountId).toBe(creds.account_id);
    // the key is the account's receiving key, as its tRPC list says
    const token = await accessToken(srv.url, creds.code, creds.token);
    const listed = await api(srv.url, '/api/trpc/pixKeys.list', { token });
    expect(listed.json.result.data.data.map((k: { key: string }) => k.key)).toEqual([creds.pix_key]);
  });
});
