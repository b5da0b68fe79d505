import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_ATTEMPTS_PER_ADDRESS } from '../../contract/rate-limits';
import { ManualClock } from '../../server/clock';
import { createApiHandler } from '../../server/http/api';
import { PIX_API_TOKEN_TTL_SECONDS, pixApiPrincipal } from '../../server/domain/pix-api/oauth';
import { appRouter } from '../../server/routers';
import { tokenRequest } from '../support/pix-api-harness';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * POST /oauth/token over HTTP with an injected clock: the API handler of server/main.ts on a node:http
 * server in this process, over services whose clock the test moves (the running server's clock is the
 * system's). Both engines.
 */
let s: TestServices;
let clock: ManualClock;
let server: Server;
let url: string;
beforeEach(async () => {
  clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
  s = await makeTestServices({ clock });
  const api = createApiHandler(s, appRouter);
  server = createServer((req, res) => { void api.handle(req, res); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await s.cleanup();
});

const token = (id: string, secret: string) => tokenRequest(url, id, secret);

describe('API Pix tokens', () => {
  it(`last ${PIX_API_TOKEN_TTL_SECONDS} s by the service's clock, then resolve to no one`, async () => {
    const acc = await makeAccount(s);
    const r = await token(acc.pix_client_id, acc.pix_client_secret);
    expect(r.status).toBe(200);
    expect(r.json.expires_in).toBe(3600);
    const header = `Bearer ${r.json.access_token}`;
    expect(await pixApiPrincipal({ db: s.db, clock }, header)).toMatchObject({ accountId: acc.account_id, clientId: acc.pix_client_id });
    clock.advance(3599_999);
    expect(await pixApiPrincipal({ db: s.db, clock }, header)).not.toBeNull();
    clock.advance(1);
    expect(await pixApiPrincipal({ db: s.db, clock }, header)).toBeNull();
    // a token asked for now lasts its own hour
    const again = await token(acc.pix_client_id, acc.pix_client_secret);
    expect(await pixApiPrincipal({ db: s.db, clock }, `Bearer ${again.json.access_token}`)).not.toBeNull();
  });

  it('a limited address may try again once its window has passed', async () => {
    const acc = await makeAccount(s);
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_ADDRESS.max; i++) expect((await token(acc.pix_client_id, 'pxs_wrong')).status).toBe(401);
    expect((await token(acc.pix_client_id, acc.pix_client_secret)).status).toBe(429);
    clock.advance(TOKEN_ATTEMPTS_PER_ADDRESS.windowMs);
    expect((await token(acc.pix_client_id, acc.pix_client_secret)).status).toBe(200);
  });
});
