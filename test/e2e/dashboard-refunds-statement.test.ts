import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * Refunds and the statement in the dashboard, in Debian's Chromium against the real server process
 * (pages built by `next build`). Screenshots go to test/artifacts/.
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
let token: string;
let chargeId = '';

const see = (p: Page, selector: string) => p.locator(selector).first().waitFor({ state: 'visible', ...WAIT });
const refunded = async () => (await api(srv.url, `/transaction?id=${chargeId}`, { token })).json.refunded_amount as number;

beforeAll(async () => {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) {
    throw new Error('No production build of the pages (.next/BUILD_ID is missing): run `npx next build` before the browser tests.');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  srv = await startServer({ pages: true, env: { SANDBOX_SETTLEMENT_DELAY_MS: '1500' } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR', acceptDownloads: true });
  page = await ctx.newPage();
  await page.goto(`${srv.url}/sign-in`);
  await page.getByLabel('E-mail').fill(srv.demo.email);
  await page.getByLabel('Senha').fill(srv.demo.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL(`${srv.url}/`, WAIT);
});

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('refunds and statement in Chromium', { timeout: 90_000 }, () => {
  it('refunds part of a card charge after confirming, and cancelling sends nothing', async () => {
    const card = { number: '4111111111111111', holder_name: 'ANA COSTA', expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3), cvv: '123' };
    const created = await api(srv.url, '/transaction', { token, body: {
      amount: 10_000, method: 'CARD', card, items: [{ title: 'Cadeira', unitPrice: 10_000, quantity: 1 }], customer: { name: 'Ana Costa', email: 'ana@example.com', document: CPF },
    } });
    expect(created.json.status).toBe('APPROVED');
    chargeId = created.json.id;
    await page.goto(`${srv.url}/transactions/${chargeId}`);
    await see(page, '#refunds-title');
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 0,00');

    // more than is left: a field message, nothing sent
    await page.getByLabel('Part of it').check();
    await page.getByLabel('Refund amount (R$)').fill('100,01');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await see(page, 'text=At most R$ 100,00 can still be refunded');
    expect(await refunded()).toBe(0);

    // cancelled at the confirmation: nothing sent
    await page.getByLabel('Refund amount (R$)').fill('30,00');
    await page.getByLabel('Reason (optional)').fill('Produto com defeito');
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this charge?' });
    await dialog.waitFor({ state: 'visible', ...WAIT });
    await see(page, 'text=R$ 30,00 goes back to Ana Costa');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await refunded()).toBe(0);

    await page.getByRole('button', { name: 'Refund…' }).click();
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 30,00');
    await see(page, '[data-testid=refund] [data-status=PENDING]');
    expect(await refunded()).toBe(3_000);
    // the page follows the refund until the rail settles it
    await see(page, '[data-testid=refund] [data-status=PAID]');
    await page.screenshot({ path: join(ARTIFACTS, 'transaction-refund.png'), fullPage: true });
  });

  it('refunds the rest in full', async () => {
    await page.getByLabel(/Everything left \(R\$ 70,00\)/).check();
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this charge?' });
    await see(page, 'text=R$ 70,00 goes back to Ana Costa');
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 100,00');
    await see(page, 'text=Fully refunded.');
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    expect(await refunded()).toBe(10_000);
  });

  it('shows the statement with the balance after each movement, filters by date and exports the range as CSV', async () => {
    await page.getByRole('link', { name: 'Extrato' }).click();
    await page.waitForURL(`${srv.url}/statement`, WAIT);
    await see(page, 'table[aria-label=Statement] tbody tr');
    const available = (await api(srv.url, '/balance', { token })).json.available as number;
    const first = await page.getByTestId('balance-after').first().textContent();
    expect(first).toBe(`R$ ${(available / 100).toLocaleString('pt-BR', { minimumFractionDigits: 2 })}`);
    expect(await page.locator('table[aria-label=Statement] tbody tr').count()).toBe(4); // top-up, charge, two refunds
    await see(page, '[data-type=refund_requested]');
    await page.screenshot({ path: join(ARTIFACTS, 'statement.png'), fullPage: true });

    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // São Paulo's day
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From').fill(tomorrow);
    await see(page, 'text=No movements in these dates');
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To').fill(today);
    await see(page, 'table[aria-label=Statement] tbody tr');
    expect(await page.locator('table[aria-label=Statement] tbody tr').count()).toBe(4);

    const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByTestId('export-csv').click()]);
    expect(download.suggestedFilename()).toMatch(/^statement-from-.*\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8').replace(/^\ufeff/, '').trimEnd().split('\r\n');
    expect(csv[0]).toBe('id,created_at,type,amount_cents,balance_after_cents,resource_type,resource_id,description');
    expect(csv.slice(1).map((l) => l.split(',')[2])).toEqual(['refund_requested', 'refund_requested', 'charge_approved', 'topup']);
    expect(csv[1].split(',')[4]).toBe(String(available));

    // the export needs the session: without the cookie it is refused
    expect((await fetch(`${srv.url}/api/statement.csv`)).status).toBe(401);
  });

  it('shows both operations in the API reference (/docs)', async () => {
    await page.goto(`${srv.url}/docs`);
    await see(page, '.swagger-ui [data-path="/transaction/{id}/refund"]');
    await see(page, '.swagger-ui [data-path="/balance/statement"]');
  });
});
