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
 * One signed-in browser context walks the main flows in order; screenshots of each main page go to
 * test/artifacts/ for a person to look at.
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
  srv = await startServer({ pages: true, env: { SANDBOX_SETTLEMENT_DELAY_MS: '400', PIX_MAX_BATCH_CENTS: '10000' } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  page = await ctx.newPage();
});

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  await new Promise((r) => (receiver ? receiver.close(r) : r(null)));
});

describe('dashboard in Chromium', { timeout: 60_000 }, () => {
  it('sends an anonymous visitor to sign in, from any dashboard page', async () => {
    for (const path of ['/', '/withdrawals', '/transactions/new', '/webhooks', '/developers']) {
      await page.goto(`${srv.url}${path}`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
    }
    // the procedures refuse too, not only the pages
    const r = await api(srv.url, '/api/trpc/dashboard.overview');
    expect(r.status).toBe(401);
  });

  it('says so on a wrong password, then signs in with the keyboard', async () => {
    await page.goto(`${srv.url}/sign-in`);
    await page.getByLabel('Email').fill(srv.demo.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await see(page, 'text=Wrong email or password.');
    await shot(page, 'sign-in');

    await page.getByLabel('Password').fill('');
    await page.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type(srv.demo.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${srv.url}/`, WAIT);
    await expect.poll(() => page.getByTestId('available-balance').textContent(), WAIT).toBe('R$ 10.000,00');

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
  });

  it('shows field messages for invalid withdrawal input and sends nothing', async () => {
    const sent: string[] = [];
    const onRequest = (r: { url(): string }) => { if (r.url().includes('withdrawals.create')) sent.push(r.url()); };
    page.on('request', onRequest);
    await page.goto(`${srv.url}/withdrawals/new`);
    await see(page, 'text=Available:');
    // the key type drives the key's hint and placeholder
    await page.getByLabel('Key type').selectOption('PHONE');
    expect(await page.getByLabel('Pix key (Phone)').getAttribute('placeholder')).toBe('+5511987654321');
    await page.getByLabel('Key type').selectOption('CPF');
    expect(await page.getByLabel('Pix key (CPF)').getAttribute('placeholder')).toBe('123.456.789-09');
    await shot(page, 'withdrawal-new');

    await page.getByLabel('Amount (R$)').fill('12,345');
    await page.getByLabel('Recipient CPF or CNPJ').fill('111.111.111-11');
    await page.getByRole('button', { name: 'Request withdrawal' }).click();
    await see(page, 'text=enter an amount in reais, like 1.234,56');
    expect(await page.getByLabel('Recipient name').getAttribute('aria-invalid')).toBe('true');
    await see(page, 'text=must be a valid CPF (11 digits) or CNPJ');
    await see(page, '[data-testid=form-error]');
    page.off('request', onRequest);
    expect(sent).toEqual([]);
  });

  it('shows an API error in place and keeps what was typed', async () => {
    await page.goto(`${srv.url}/withdrawals/new`);
    await see(page, 'text=Available:');
    await page.getByLabel('Amount (R$)').fill('20.000,00');
    await page.getByLabel('Pix key (CPF)').fill(CPF);
    await page.getByLabel('Recipient name').fill('Fulana de Tal');
    await page.getByLabel('Recipient CPF or CNPJ').fill(CPF);
    await page.getByRole('button', { name: 'Request withdrawal' }).click();
    await see(page, '[data-testid=form-error] >> text=/balance/i');
    expect(await page.getByLabel('Amount (R$)').inputValue()).toBe('20.000,00');
    expect(await page.getByLabel('Recipient name').inputValue()).toBe('Fulana de Tal');
    expect(await page.getByLabel('Pix key (CPF)').inputValue()).toBe(CPF);
  });

  it('requests a withdrawal and watches it settle to PAID', async () => {
    // same form, now within the balance: R$ 250,00 in batches of R$ 100,00
    await page.getByLabel('Amount (R$)').fill('250,00');
    await page.getByRole('button', { name: 'Request withdrawal' }).click();
    await page.waitForURL(/\/withdrawals\/wd_[0-9a-z]+$/, WAIT);
    withdrawalId = new URL(page.url()).pathname.split('/').pop()!;
    await see(page, '[data-testid=withdrawal-status] [data-status=PAID]');
    const batches = page.getByTestId('batch');
    await expect.poll(() => batches.count(), WAIT).toBe(3);
    for (const b of await batches.all()) {
      expect(await b.locator('[data-status=PAID]').isVisible()).toBe(true);
      expect(await b.textContent()).toMatch(/E\d{8}\d{12}[0-9A-Za-z]{11}/);
      expect(await b.textContent()).toContain('ISPB');
    }
    await shot(page, 'withdrawal-detail');

    await page.getByRole('link', { name: 'Withdrawals' }).first().click();
    await see(page, `a:has-text("${withdrawalId}")`);
    await page.getByLabel('Status').selectOption('ERROR');
    await see(page, 'text=No error withdrawals');
    await page.getByLabel('Status').selectOption('PAID');
    await see(page, `a:has-text("${withdrawalId}")`);
    await page.getByLabel('Status').selectOption('');
    await see(page, `a:has-text("${withdrawalId}")`);
    await shot(page, 'withdrawals');
  });

  it('creates a PIX charge, shows its QR code and pays it in the sandbox', async () => {
    await page.goto(`${srv.url}/transactions/new`);
    await page.getByLabel('Item 1 title').fill('Camiseta');
    await page.getByLabel('Unit price (R$)').fill('49,90');
    await page.getByLabel('Quantity').fill('2');
    await expect.poll(() => page.getByTestId('charge-total').textContent(), WAIT).toBe('R$ 99,80');
    await page.getByLabel('Name', { exact: true }).fill('Maria Souza');
    await page.getByLabel('Email').fill('maria@example.com');
    await page.getByLabel('CPF or CNPJ').fill(CPF);
    await shot(page, 'transaction-new');
    await page.getByRole('button', { name: 'Create Pix charge' }).click();
    await page.waitForURL(/\/transactions\/txn_[0-9a-z]+$/, WAIT);
    await see(page, 'svg[role=img], .qr-box svg');
    expect(await page.getByTestId('brcode').textContent()).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
    await see(page, 'button:has-text("Copy Pix Copia e Cola")');
    await see(page, '[data-testid=transaction-status] [data-status=PENDING]');
    await shot(page, 'transaction-detail');

    await page.getByRole('button', { name: 'Pay (sandbox)' }).click();
    await see(page, '[data-testid=transaction-status] [data-status=APPROVED]');
    expect(await page.locator('.qr-box').count()).toBe(0);

    await page.goto(`${srv.url}/transactions`);
    await see(page, 'table.list [data-status=APPROVED]');
    await shot(page, 'transactions');

    // keyset pages of 20: 22 more charges through the REST API make two pages
    const token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    for (let i = 0; i < 22; i++) {
      const r = await api(srv.url, '/transaction', { token, body: charge(100 + i, `Item ${i}`) });
      expect(r.status).toBe(201);
    }
    await page.reload();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(20);
    expect(await rows.first().textContent()).toContain('R$ 1,21');
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(() => rows.count(), WAIT).toBe(3);
    expect(await rows.last().textContent()).toContain('R$ 99,80');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => rows.count(), WAIT).toBe(20);
    await page.getByLabel('Status').selectOption('APPROVED');
    await expect.poll(() => rows.count(), WAIT).toBe(1);
  });

  it('creates a webhook (secret shown once), logs its delivery, resends it and deletes it after confirmation', async () => {
    await page.goto(`${srv.url}/webhooks`);
    await see(page, 'text=No webhooks yet');
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('Disputes').uncheck();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByTestId('webhook-secret').locator('code');
    await expect.poll(() => secret.textContent(), WAIT).toMatch(/^whsec_/);
    await see(page, `[data-testid=webhook] >> text=${receiverUrl}`);

    // an event after the subscription: a charge created through the REST API
    const token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
    const created = await api(srv.url, '/transaction', { token, body: charge(1500, 'Café') });
    expect(created.status).toBe(201);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = page.getByTestId('delivery').filter({ hasText: created.json.id });
    await delivery.locator('[data-status=DELIVERED]').waitFor(WAIT);
    expect(await delivery.getByTestId('attempt').count()).toBe(1);
    expect(await delivery.getByTestId('attempt').textContent()).toMatch(/200.*\d+ ms/);
    expect(received.some((r) => r.body.includes(created.json.id) && typeof r.headers['webhook-signature'] === 'string')).toBe(true);
    await shot(page, 'webhooks');

    await delivery.getByRole('button', { name: 'Resend' }).click();
    await expect.poll(() => delivery.getByTestId('attempt').count(), WAIT).toBe(2);

    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await dialog.waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await page.getByTestId('webhook').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await see(page, 'text=No webhooks yet');
  });

  it('shows the developer credentials, the postback secret on request, and rotates the client token', async () => {
    await page.goto(`${srv.url}/developers`);
    await see(page, `code:has-text("${srv.demo.code}")`);
    await see(page, `code:has-text("${srv.demo.apiKey}")`);
    await page.getByRole('button', { name: 'Show postback secret' }).click();
    await expect.poll(() => page.getByLabel('Postback secret').textContent(), WAIT).toMatch(/^whsec_/);
    await shot(page, 'developers');

    await page.getByRole('button', { name: 'Rotate client token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate token' }).click();
    const fresh = page.getByLabel('Client token', { exact: true });
    await expect.poll(() => fresh.textContent(), WAIT).toMatch(/^sk_/);
    const newToken = (await fresh.textContent())!;
    // the new token works, the old one does not
    expect((await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: srv.demo.token } })).status).toBe(401);
    expect(await accessToken(srv.url, srv.demo.code, newToken)).toMatch(/^at_/);
  });

  it('renders the API reference from /openapi.json with the bundled Swagger UI', async () => {
    const docs = await ctx.newPage();
    const external: string[] = [];
    docs.on('request', (r) => { if (!r.url().startsWith(srv.url) && !r.url().startsWith('data:')) external.push(r.url()); });
    await docs.goto(`${srv.url}/docs`);
    await see(docs, '.swagger-ui [data-path="/withdraw/pix"]');
    await see(docs, '.swagger-ui [data-path="/api/webhooks"]');
    await shot(docs, 'docs');
    // interactive: expand an operation and call it from the page, as the signed-in merchant
    await docs.locator('[data-path="/balance"]').first().click();
    await docs.getByRole('button', { name: 'Try it out' }).click();
    await docs.getByRole('button', { name: 'Execute' }).click();
    await see(docs, '.live-responses-table >> text=/"available": \\d+/');
    expect(external).toEqual([]);
    await docs.close();
  });

  it('shows the overview with money in and out, the daily chart and recent activity', async () => {
    await page.goto(`${srv.url}/`);
    await see(page, 'svg.recharts-surface[role=application]');
    await see(page, '.activity >> text=Charge created');
    await see(page, '.recharts-bar-rectangle');
    // 10.000,00 − 250,00 withdrawn + 99,80 approved
    await expect.poll(() => page.getByTestId('available-balance').textContent(), WAIT).toBe('R$ 9.849,80');
    expect(await page.getByTestId('money-out').textContent()).toBe('R$ 250,00');
    expect(await page.getByTestId('money-in').textContent()).toBe('R$ 10.099,80');
    await shot(page, 'overview');
    await page.setViewportSize({ width: 390, height: 844 });
    await see(page, 'svg.recharts-surface[role=application]');
    await shot(page, 'overview-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("answers not found for another account's withdrawal", async () => {
    const exec = promisify(execFile);
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'scripts/account-create.ts', '--name', 'Other Shop', '--email', 'other@example.com', '--password', 'other-password-123', '--json'], {
      cwd: ROOT, env: { ...process.env, DATABASE_PATH: srv.databasePath },
    });
    expect(JSON.parse(stdout).account_id).toMatch(/^acc_/);
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${srv.url}/sign-in`);
    await p.getByLabel('Email').fill('other@example.com');
    await p.getByLabel('Password').fill('other-password-123');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.waitForURL(`${srv.url}/`, WAIT);
    await p.goto(`${srv.url}/withdrawals/${withdrawalId}`);
    await see(p, '[data-testid=not-found] >> text=Withdrawal not found');
    await p.goto(`${srv.url}/withdrawals`);
    await see(p, 'text=No withdrawals yet');
    await other.close();
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
    await page.getByRole('button', { name: 'Sign out' }).click();
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
