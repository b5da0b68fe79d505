import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The dashboard in Debian's Chromium against the real server process (pages built by `next build`).
 * One signed-in browser context walks the flows in order: sign-in and its cookies, CSRF, the webhooks
 * page's secret-once and delete dialog, the developers page, /docs, the skip link, another account's
 * not-found pages and signing out. Lists, forms, charges, payouts, disputes and the phone layout are in
 * the newer dashboard-*.test.ts files. Screenshots go to test/artifacts/.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test/artifacts');
const CHROMIUM = '/usr/bin/chromium';
const CPF = '529.982.247-25';
const WAIT = { timeout: 20_000 };

let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let receiver: Server;
let receiverUrl = '';
const received: { path: string; headers: Record<string, unknown>; body: string }[] = [];
let withdrawalId = '';
let pixChargeId = '';
let other: BrowserContext | undefined;
let otherPage: Page;
let otherAccountId = '';
let clientToken = '';

async function shot(p: Page, name: string) {
  await p.evaluate(() => window.scrollTo(0, 0)); // the sticky header stays at the top of the picture
  await p.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const charge = (amount: number, title: string) => ({
  amount, method: 'PIX', items: [{ title, unitPrice: amount, quantity: 1 }], customer: { name: 'João Lima', email: 'joao@example.com', document: CPF },
});

/** No fixed sleeps: the next condition on the page is awaited. */
const see = (p: Page, selector: string) => p.locator(selector).first().waitFor({ state: 'visible', ...WAIT });

beforeAll(async () => {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) {
    throw new Error('No production build of the pages (.next/BUILD_ID is missing): run `npx next build` before the browser tests.');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/pix`;
  srv = await startServer({ pages: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  // the copy buttons write to the clipboard; the test reads it back
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  page = await ctx.newPage();
});

afterAll(async () => {
  await other?.close();
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  await new Promise((r) => (receiver ? receiver.close(r) : r(null)));
});

describe('dashboard in Chromium', { timeout: 60_000 }, () => {
  it('sends an anonymous visitor to sign in, from any dashboard page', async () => {
    const pages = ['/', '/withdrawals', '/withdrawals/new', '/withdrawals/wd_00000000000000000000', '/transactions', '/transactions/new',
      '/transactions/txn_00000000000000000000', '/webhooks', '/developers'];
    for (const path of pages) {
      const answer = await page.goto(`${srv.url}${path}`);
      expect(new URL(page.url()).pathname, path).toBe('/sign-in');
      expect(answer?.status(), path).toBe(200);
      expect(await page.content(), path).not.toContain('Demo Merchant');
    }
    // the procedures refuse too, not only the pages (every one of them: test/api/dashboard-session.test.ts)
    for (const proc of ['dashboard.overview', 'dashboard.developers', 'withdrawals.list', 'transactions.list', 'webhooks.list', 'session.me']) {
      expect((await api(srv.url, `/api/trpc/${proc}`)).status, proc).toBe(401);
    }
    // the postback secret is a mutation that takes the password: POSTed, still 401 for a stranger
    expect((await api(srv.url, '/api/trpc/dashboard.postbackSecret', { body: { password: 'x' } })).status).toBe(401);
  });

  it('signs in with the keyboard; the session cookie is HttpOnly and SameSite=Lax', async () => {
    // the wrong-password message in Portuguese: test/e2e/dashboard-br.test.ts
    await page.goto(`${srv.url}/sign-in`);
    await page.getByLabel('E-mail').fill(srv.demo.email);
    await page.getByLabel('E-mail').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type(srv.demo.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${srv.url}/`, WAIT);
    await expect.poll(() => page.getByTestId('available-balance').textContent(), WAIT).toBe('R$ 10.000,00');
    await shot(page, 'overview');

    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === 'pp_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    expect(cookies.find((c) => c.name === 'pp_csrf')?.httpOnly).toBe(false);
  });

  it('refuses a dashboard mutation that does not echo the CSRF token', async () => {
    const session = (await ctx.cookies()).find((c) => c.name === 'pp_session')!.value;
    const r = await fetch(`${srv.url}/api/trpc/dashboard.rotateToken`, {
      method: 'POST', headers: { cookie: `pp_session=${session}`, 'content-type': 'application/json' }, body: '{}',
    });
    expect(r.status).toBe(403);
    // the REST paths take the session cookie too, so they check the token the same way
    const cookie = { cookie: `pp_session=${session}` };
    const body = { amount: 100, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: CPF } };
    expect((await api(srv.url, '/withdraw/pix', { body, headers: cookie })).status).toBe(403);
    expect((await api(srv.url, '/api/webhooks/wh_00000000000000000000', { method: 'DELETE', headers: cookie })).status).toBe(403);
    expect((await api(srv.url, '/withdraw/pix', { body, headers: { ...cookie, 'x-csrf-token': 'csrf_guess' } })).status).toBe(403);
    // a cross-site form can only send form or text bodies: the API takes JSON only
    const form = await fetch(`${srv.url}/api/trpc/withdrawals.create`, { method: 'POST', headers: { ...cookie, 'content-type': 'text/plain' }, body: JSON.stringify(body) });
    expect(form.status).toBe(415);
    expect((await api(srv.url, '/balance', { headers: cookie })).json.available).toBe(1_000_000);
  });

  // creating, testing, editing, resending, pausing and the secret: test/e2e/dashboard-webhooks.test.ts
  it('shows a new webhook secret once, and deletes the webhook only after confirmation (mouse and keyboard)', async () => {
    await page.goto(`${srv.url}/webhooks`);
    await see(page, 'h1');
    await page.locator('input[name=url]').fill(receiverUrl);
    await page.locator('form button[type=submit]').click();
    const secret = page.getByTestId('webhook-secret').locator('code');
    await expect.poll(() => secret.textContent(), WAIT).toMatch(/^whsec_/);
    const secretText = (await secret.textContent())!;
    await see(page, `[data-testid=webhook] >> text=${receiverUrl}`);
    await shot(page, 'webhooks');

    // shown once: a fresh visit lists the webhook without it
    await page.reload();
    await see(page, `[data-testid=webhook] >> text=${receiverUrl}`);
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secretText);

    const webhook = page.getByTestId('webhook');
    const deleteButton = webhook.getByTestId('delete-webhook');
    const dialog = page.locator('dialog[open]');
    await deleteButton.click();
    await dialog.waitFor(WAIT);
    await dialog.locator('button.secondary').click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await webhook.count()).toBe(1);
    // with the keyboard: the dialog takes focus on its cancel button, Escape cancels
    await deleteButton.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor(WAIT);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('secondary') && document.activeElement.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await webhook.count()).toBe(1);
    await deleteButton.click();
    await dialog.locator('button.danger').click();
    await expect.poll(() => webhook.count(), WAIT).toBe(0);
    await see(page, '.empty');
  });

  it('shows the developer credentials, the postback secret on request, and rotates the client token', async () => {
    await page.goto(`${srv.url}/developers`);
    await see(page, `code:has-text("${srv.demo.code}")`);
    await see(page, `code:has-text("${srv.demo.apiKey}")`);
    await page.getByRole('button', { name: 'Copiar chave da api' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), WAIT).toBe(srv.demo.apiKey);
    // both ask for the password first
    await page.getByRole('button', { name: 'Mostrar segredo de postback' }).click();
    const ask = page.getByRole('dialog', { name: 'Ver o segredo dos postbacks' });
    await ask.getByLabel('Sua senha').fill(srv.demo.password);
    await ask.getByRole('button', { name: 'Mostrar segredo' }).click();
    await expect.poll(() => page.getByLabel('Segredo de postback').textContent(), WAIT).toMatch(/^whsec_/);
    await shot(page, 'developers');

    await page.getByRole('button', { name: 'Trocar o token do cliente' }).click();
    await page.getByRole('dialog', { name: 'Trocar o token do cliente?' }).getByLabel('Sua senha').fill(srv.demo.password);
    await page.getByRole('dialog', { name: 'Trocar o token do cliente?' }).getByRole('button', { name: 'Trocar token' }).click();
    const fresh = page.getByLabel('Token do cliente', { exact: true });
    await expect.poll(() => fresh.textContent(), WAIT).toMatch(/^sk_/);
    const newToken = (await fresh.textContent())!;
    // the new token works, the old one does not
    expect((await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: srv.demo.token } })).status).toBe(401);
    expect(await accessToken(srv.url, srv.demo.code, newToken)).toMatch(/^at_/);
    clientToken = newToken;
  });

  it('renders the API reference from /openapi.json with the bundled Swagger UI, nothing fetched off the machine', async () => {
    // "Try it out" against the signed-in merchant's balance is driven in test/e2e/dashboard-security.test.ts (under the CSP)
    const docs = await ctx.newPage();
    const external: string[] = [];
    docs.on('request', (r) => { if (!r.url().startsWith(srv.url) && !r.url().startsWith('data:')) external.push(r.url()); });
    await docs.goto(`${srv.url}/docs`);
    await see(docs, '.swagger-ui [data-path="/withdraw/pix"]');
    await see(docs, '.swagger-ui [data-path="/api/webhooks"]');
    await docs.locator('[data-path="/balance"]').first().click();
    await docs.getByRole('button', { name: 'Try it out' }).click();
    await docs.getByRole('button', { name: 'Execute' }).click();
    await see(docs, '.live-responses-table >> text=/"available": \\d+/');
    await shot(docs, 'docs');
    expect(external).toEqual([]);
    await docs.close();
  });

  it('skips to the content with the keyboard', async () => {
    await page.goto(`${srv.url}/withdrawals`);
    await see(page, 'h1:has-text("Saques")');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Pular para o conteúdo');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // the next Tab lands inside the page, on its first control
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  });

  it("answers not found for another account's withdrawal and charge", async () => {
    // the demo account's own records, made over REST
    const token = await accessToken(srv.url, srv.demo.code, clientToken);
    const w = await api(srv.url, '/withdraw/pix', { token, body: { amount: 5_000, key: CPF, key_type: 'CPF', details: { name: 'Fulana de Tal', document: CPF } } });
    expect(w.status, w.text).toBe(201);
    const found = await api(srv.url, `/withdraw?identifier=${w.json.data[0].identifier}`, { token });
    withdrawalId = JSON.stringify(found.json).match(/"(wd_[0-9a-z]+)"/)![1];
    const c = await api(srv.url, '/transaction', { token, body: charge(9_980, 'Camiseta') });
    expect(c.status).toBe(201);
    pixChargeId = c.json.id;
    // the owner sees them
    await page.goto(`${srv.url}/withdrawals/${withdrawalId}`);
    await see(page, '[data-testid=withdrawal-status]');

    const exec = promisify(execFile);
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'scripts/account-create.ts', '--name', 'Other Shop', '--email', 'other@example.com', '--password', 'other-password-123', '--json'], {
      cwd: ROOT, env: { ...process.env, DATABASE_PATH: srv.databasePath },
    });
    otherAccountId = JSON.parse(stdout).account_id;
    expect(otherAccountId).toMatch(/^acc_/);
    other = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
    otherPage = await other.newPage();
    const p = otherPage;
    await p.goto(`${srv.url}/sign-in`);
    await p.getByLabel('E-mail').fill('other@example.com');
    await p.getByLabel('Senha').fill('other-password-123');
    await p.getByRole('button', { name: 'Entrar' }).click();
    await p.waitForURL(`${srv.url}/`, WAIT);
    await p.goto(`${srv.url}/withdrawals/${withdrawalId}`);
    await see(p, '[data-testid=not-found] >> text=Saque não encontrado');
    await p.goto(`${srv.url}/transactions/${pixChargeId}`);
    await see(p, '[data-testid=not-found] >> text=Transação não encontrada');
    await shot(p, 'not-found');
    await p.goto(`${srv.url}/withdrawals`);
    await see(p, 'text=Nenhum saque ainda');
  });

  it('sends a page whose session ended elsewhere to sign in at its next call', async () => {
    const p = otherPage;
    await p.goto(`${srv.url}/withdrawals`);
    await see(p, 'h1:has-text("Saques")');
    // signed out from another tab: the session is revoked on the server
    const cookies = await other!.cookies();
    const jar = Object.fromEntries(cookies.map((c) => [c.name, c.value]));
    const out = await api(srv.url, '/api/trpc/session.signOut', { body: {}, headers: { cookie: `pp_session=${jar.pp_session}`, 'x-csrf-token': jar.pp_csrf } });
    expect(out.status).toBe(200);
    // a client-side navigation: the layout is not fetched again, the page's own query meets the 401
    // (a refetch of the current page may meet the 401 first and be on its way to sign-in already: the
    // link is then detached mid-click, which is the same outcome; the URL below is what must hold)
    await p.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Transações' }).click({ timeout: 10_000 }).catch(() => {});
    await p.waitForURL(`${srv.url}/sign-in`, WAIT);
  });

  it('sends an invalid session cookie to sign in', async () => {
    const stranger = await browser.newContext();
    await stranger.addCookies([{ name: 'pp_session', value: 'ses_not-a-real-session', url: srv.url }]);
    const p = await stranger.newPage();
    await p.goto(`${srv.url}/transactions`);
    expect(new URL(p.url()).pathname).toBe('/sign-in');
    await stranger.close();
  });

  it('signs out; the old session cookie no longer opens anything', async () => {
    const old = (await ctx.cookies()).find((c) => c.name === 'pp_session')!;
    await page.goto(`${srv.url}/`);
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(`${srv.url}/sign-in`, WAIT);
    expect((await ctx.cookies()).find((c) => c.name === 'pp_session')).toBeUndefined();
    await page.goto(`${srv.url}/withdrawals/${withdrawalId}`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    // replaying the revoked cookie: still sign-in
    await ctx.addCookies([old]);
    await page.goto(`${srv.url}/webhooks`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });
});
