// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPixBrCode } from '../../server/domain/pix/brcode';
import { axeViolations } from '../support/axe';
import { englishLeft, launchChromium, overflowing, rawCodesLeft, see, shot, signIn, WAIT } from '../support/browser';
import { removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The API Pix's charges in the dashboard, in Chromium, in Portuguese: a "Cobrança com vencimento" typed in
 * Brazilian formats (R$ 1.234,56, 2,00 %, dd/mm/aaaa) is created through the same procedure as
 * PUT /v2/cobv/{txid}, lands on its page with the dynamic QR code, the copia-e-cola naming its location and
 * the amount due today; the sandbox pays it and the page shows the Pix received with its components.
 * Screenshots go to test/artifacts/pix-charges-*.png.
 */
let srv: RunningServer;
let browser: Browser;
let page: Page;

/** dd/mm/aaaa of the São Paulo day `days` from today. */
function typedDay(days: number): string {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(Date.now() + days * 86_400_000));
  const [y, m, d] = day.split('-');
  return `${d}/${m}/${y}`;
}

beforeAll(async () => {
  srv = await startServer({ pages: true });
  browser = await launchChromium();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  page = await ctx.newPage();
  await signIn(page, srv.url, srv.demo.email, srv.demo.password);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('Pix charges in the dashboard, in Portuguese', { timeout: 120_000 }, () => {
  it('refuses a form typed wrong in words next to each field, and sends nothing', async () => {
    await page.goto(`${srv.url}/pix-charges`);
    await see(page, 'text=Nenhuma cobrança neste período.');
    await page.getByRole('link', { name: 'Nova cobrança com vencimento' }).click();
    await page.waitForURL((u) => u.pathname === '/pix-charges/new', WAIT);
    await page.getByLabel('Valor original (R$)').fill('12,345');
    await page.getByLabel('Data de vencimento').fill('31/02/2030');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await see(page, 'text=Use o formato 1.234,56');
    expect(page.url()).toContain('/pix-charges/new');
    await shot(page, 'pix-charges-form-errors');
  });

  it('creates a charge with a due date, fine, interest and a discount, and shows its QR code and the amount due today', async () => {
    await page.goto(`${srv.url}/pix-charges/new`);
    await page.getByLabel('Nome').fill('Maria das Dores');
    await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await page.getByLabel('Valor original (R$)').fill('1.234,56');
    await page.getByLabel('Data de vencimento').fill(typedDay(10));
    await page.locator('select[name=multa-modalidade]').selectOption('2');
    await page.locator('input[name=multa-valor]').fill('2,00');
    await page.locator('select[name=juros-modalidade]').selectOption('3');
    await page.locator('input[name=juros-valor]').fill('1,00');
    await page.locator('select[name=desconto-modalidade]').selectOption('1');
    await page.locator('input[name=desconto-valor]').fill('50,00');
    await page.locator('input[name=desconto-data]').fill(typedDay(5));
    await page.getByLabel('Mensagem ao pagador').fill('Mensalidade de dezembro');
    await shot(page, 'pix-charges-form');
    await page.getByRole('button', { name: 'Criar cobrança' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/pix-charges/cobv/'), WAIT);
    await see(page, 'text=Cobrança com vencimento');
    const brcode = (await page.getByTestId('pix-copia-e-cola').textContent())!.trim();
    const read = readPixBrCode(brcode);
    expect(read.kind).toBe('dynamic');
    expect(read.kind === 'dynamic' && read.url).toMatch(/\/qr\/v2\/cobv\/[0-9a-f]{32}$/);
    // today is before the discount's date: 1.234,56 − 50,00
    const due = page.getByTestId('amount-due');
    await due.locator('[data-component=final]').waitFor(WAIT);
    expect(await due.locator('[data-component=final] td').textContent()).toContain('R$ 1.184,56');
    expect(await due.locator('[data-component=desconto] td').textContent()).toContain('R$ 50,00');
    expect(await englishLeft(page, ['pixCharges'])).toEqual([]);
    expect(await rawCodesLeft(page)).toEqual([]);
    expect(await overflowing(page)).toEqual([]);
    await shot(page, 'pix-charges-detail');
  });

  it('lists it, and once the sandbox pays it shows the Pix received with its components', async () => {
    await page.goto(`${srv.url}/pix-charges`);
    const row = page.getByTestId('pix-charge').first();
    await row.waitFor(WAIT);
    expect(await row.getAttribute('data-status')).toBe('ATIVA');
    expect(await row.textContent()).toContain('R$ 1.234,56');
    await shot(page, 'pix-charges-list');
    await row.getByRole('link').click();
    await page.waitForURL((u) => u.pathname.startsWith('/pix-charges/cobv/'), WAIT);
    await page.getByRole('button', { name: 'Simular pagamento hoje' }).click();
    const pix = page.getByTestId('pix-received');
    await pix.waitFor(WAIT);
    expect(await pix.textContent()).toContain('R$ 1.184,56');
    expect(await pix.locator('[data-component=original] td').textContent()).toContain('R$ 1.234,56');
    expect(await englishLeft(page, ['pixCharges'])).toEqual([]);
    expect(await rawCodesLeft(page)).toEqual([]);
    await shot(page, 'pix-charges-paid');
  });

  it('has no serious or critical WCAG 2.1 AA violation (axe-core), at 1280 and 390 px', async () => {
    const paid = page.url();
    const session = await page.context().storageState();
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      // axe-core is injected inline, which the dashboard's CSP refuses unless bypassed
      const ctx = await browser.newContext({ viewport: { width, height: 860 }, locale: 'pt-BR', bypassCSP: true, storageState: session });
      const p = await ctx.newPage();
      for (const [path, ready] of [['/pix-charges', '[data-testid=pix-charge]'], ['/pix-charges/new', 'form'], [paid, '[data-testid=pix-received]']] as const) {
        await p.goto(path.startsWith('http') ? path : `${srv.url}${path}`);
        await see(p, ready);
        await expect.poll(() => p.locator('.loading').count(), WAIT).toBe(0);
        problems.push(...(await axeViolations(p)).map((v) => `${path} at ${width}: ${v}`));
      }
      await ctx.close();
    }
    expect(problems).toEqual([]);
  });

  it('fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/pix-charges', '/pix-charges/new']) {
      await page.goto(`${srv.url}${path}`);
      await page.locator('main h1').waitFor(WAIT);
      expect(await overflowing(page), path).toEqual([]);
    }
    await shot(page, 'pix-charges-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});
