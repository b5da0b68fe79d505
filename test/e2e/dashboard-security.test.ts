import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, logLines, removeDir, startServer, type RunningServer } from '../support/server';
import { ODD_TARGETS, rawRequest, statusOf } from '../support/raw-http';
import { txBody } from '../support/transactions';
import { waitFor } from '../support/services';

/**
 * The edge (docs/operations.md "The edge") with the pages served (Next handles everything that is not
 * the API): odd request targets, security headers, and the dashboard and /docs still working in Chromium
 * under the CSP, with no violation reported. Also a negative available balance shown plainly
 * (docs/decisions.md "Disputes").
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';
const WAIT = { timeout: 20_000 };

let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) {
    throw new Error('No production build of the pages (.next/BUILD_ID is missing): run `npx next build` before the browser tests.');
  }
  srv = await startServer({ pages: true, env: { LOG_LEVEL: 'info' } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

/** A page that records every CSP violation the browser reports, from the first script on. */
async function watchedPage(): Promise<{ page: Page; violations: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (v: string) => { violations.push(v); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation: (v: string) => void }).__cspViolation(`${location.pathname}: ${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  return { page, violations };
}

describe('the edge with pages', () => {
  it('odd request targets answer 4xx, never 5xx, and never redirect to another host', async () => {
    for (const line of [...ODD_TARGETS, 'GET /sign-in/ HTTP/1.1', 'GET /%2F%2Fevil.example HTTP/1.1', 'GET /\\evil.example HTTP/1.1']) {
      const answer = await rawRequest(srv.url, line);
      const status = statusOf(answer);
      expect(status, `${line} → ${answer.split('\r\n')[0]}`).toBeLessThan(500);
      const location = /^location:\s*(.*)$/im.exec(answer)?.[1]?.trim();
      if (location) expect(new URL(location, srv.url).origin, `${line} → ${location}`).toBe(new URL(srv.url).origin);
      if (!location) expect(status, line).toBeGreaterThanOrEqual(400);
    }
  });

  it('pages and their assets carry nosniff, Referrer-Policy, X-Frame-Options DENY and a CSP with frame-ancestors none', async () => {
    for (const path of ['/sign-in', '/docs', '/', '/no-such-page']) {
      const res = await fetch(`${srv.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('content-security-policy'), path).toMatch(/default-src 'self'/);
    }
    const html = await (await fetch(`${srv.url}/sign-in`)).text();
    const asset = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    expect((await fetch(`${srv.url}${asset}`)).headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the dashboard works under the CSP, shows a negative available balance plainly, and /docs runs Swagger UI', async () => {
    // the demo's money withdrawn, then a dispute on a card charge: available goes below zero
    const t = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    const charge = await api(srv.url, '/transaction', { token: t, body: txBody('CARD') });
    expect(charge.status).toBe(201);
    const all = (await api(srv.url, '/balance', { token: t })).json.available as number;
    const out = await api(srv.url, '/withdraw/pix', { token: t, body: { amount: all, key: '+55 11 98765-4321', key_type: 'PHONE', details: { name: 'Beltrano', document: '11.222.333/0001-81' } } });
    expect(out.status).toBe(201);
    expect((await api(srv.url, `/sandbox/transactions/${charge.json.id}/dispute`, { token: t, method: 'POST' })).status).toBe(201);
    expect((await api(srv.url, '/balance', { token: t })).json).toMatchObject({ available: -2500, blocked: 2500 });

    const { page, violations } = await watchedPage();
    await page.goto(`${srv.url}/sign-in`);
    await page.getByLabel('E-mail').fill(srv.demo.email);
    await page.getByLabel('Senha').fill(srv.demo.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const available = page.getByTestId('available-balance');
    await available.waitFor({ state: 'visible', ...WAIT });
    expect((await available.innerText()).replace(/\s/g, ' ')).toMatch(/^-\s?R\$ 25,00$/);
    await page.getByTestId('negative-balance-note').waitFor({ state: 'visible', ...WAIT });

    await page.goto(`${srv.url}/docs`);
    await page.locator('.swagger-ui [data-path="/withdraw/pix"]').first().waitFor({ state: 'visible', ...WAIT });
    await page.locator('[data-path="/balance"]').first().click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.locator('.live-responses-table >> text=/"available": -2500/').first().waitFor({ state: 'visible', ...WAIT });
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('another site cannot frame the dashboard', async () => {
    const { page } = await watchedPage();
    let refused = false;
    page.on('console', (m) => { if (/frame-ancestors|Refused to (display|frame)/i.test(m.text())) refused = true; });
    await page.setContent(`<iframe id="f" src="${srv.url}/sign-in" width="800" height="600"></iframe>`);
    const frame = await (await page.$('#f'))!.contentFrame();
    // the frame never gets the sign-in form: the browser refuses to render it
    await page.waitForFunction(() => true);
    await expect.poll(() => refused || frame?.url().startsWith('chrome-error:'), { timeout: 20_000 }).toBe(true);
    expect(await frame!.locator('input[name="email"]').count()).toBe(0);
    await page.context().close();
  });
});

describe('the log line of a page request', () => {
  const lines = () => logLines(srv.output());

  it("names the signed-in account, as an API request's does; a client cannot hand the pages another request's record", async () => {
    const signIn = await fetch(`${srv.url}/api/trpc/session.signIn`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: srv.demo.email, password: srv.demo.password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    // the pages' procedures find the request's record under a key the server sets, whatever the client sends
    const page = await fetch(`${srv.url}/`, { headers: { cookie, 'x-request-id': 'page-log-signed-in', 'x-pix-page-request': 'forged' } });
    expect(page.status).toBe(200);
    await page.text();
    const line = await waitFor(() => lines().find((l) => l.req_id === 'page-log-signed-in'), { what: "the page request's log line" });
    expect(line).toMatchObject({ route: '(pages)', status: 200, account_id: srv.demo.accountId, msg: 'request' });

    const anonymous = await fetch(`${srv.url}/sign-in`, { headers: { 'x-request-id': 'page-log-anonymous', 'x-pix-page-request': 'forged' } });
    expect(anonymous.status).toBe(200);
    await anonymous.text();
    const other = await waitFor(() => lines().find((l) => l.req_id === 'page-log-anonymous'), { what: 'the anonymous page log line' });
    expect(other).not.toHaveProperty('account_id');
  });
});
