// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, see, shot, WAIT } from '../support/browser';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The reviewed payout in Debian's Chromium against the real server: the key is looked up, the merchant
 * sees its holder and bank and confirms before money moves; a failed batch says why. Screenshots at
 * desktop and phone width go to test/artifacts/ for a person to look at.
 */
const CPF = '529.982.247-25';

let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let phone: BrowserContext;
let token = '';
let failedId = '';

const available = async () => (await api(srv.url, '/balance', { token })).json.available as number;
const lookup = async (key: string, keyType: string) => (await api(srv.url, `/pix/keys?key=${encodeURIComponent(key)}&key_type=${keyType}`, { token })).json;

/** Requests the page sends to create a withdrawal: none may leave before the merchant confirms. */
function watchCreates(p: Page) {
  const sent: string[] = [];
  p.on('request', (r) => { if (r.url().includes('withdrawals.create')) sent.push(r.url()); });
  return sent;
}

async function fillForm(p: Page, o: { amount: string; keyType: string; key: string; name: string; document: string }) {
  await p.goto(`${srv.url}/withdrawals/new`);
  await see(p, 'text=Disponível:');
  await p.getByLabel('Valor (R$)').fill(o.amount);
  await p.getByLabel('Tipo de chave').selectOption(o.keyType);
  await p.getByLabel(/^Chave Pix/).fill(o.key);
  await p.getByLabel('Nome do recebedor').fill(o.name);
  await p.getByLabel('CPF ou CNPJ do recebedor').fill(o.document);
}

beforeAll(async () => {
  // batches settle 1 s after the request: the review happens before any of that
  srv = await startServer({ pages: true, env: { SANDBOX_SETTLEMENT_DELAY_MS: '1000', PIX_MAX_BATCH_CENTS: '10000' } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  browser = await launchChromium();
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  page = await ctx.newPage();
  await page.goto(`${srv.url}/sign-in`);
  await page.getByLabel('E-mail').fill(srv.demo.email);
  await page.getByLabel('Senha').fill(srv.demo.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL(`${srv.url}/`, WAIT);
  phone = await browser.newContext({ storageState: await ctx.storageState(), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'pt-BR' });
});

afterAll(async () => {
  await phone?.close();
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('reviewed payout in Chromium', { timeout: 60_000 }, () => {
  it('looks the key up, shows holder, masked document, bank and ISPB, and moves no money before the merchant confirms', async () => {
    const entry = await lookup(CPF, 'CPF');
    const before = await available();
    const sent = watchCreates(page);
    await fillForm(page, { amount: '150,00', keyType: 'CPF', key: CPF, name: 'Nome Digitado', document: CPF });
    await page.getByRole('button', { name: 'Revisar' }).click();
    await see(page, '[data-testid=payout-review]');
    expect(await page.getByTestId('holder-name').textContent()).toBe(entry.holder.name);
    expect(await page.getByTestId('holder-document').textContent()).toBe('***.982.247-**');
    expect(await page.getByTestId('holder-bank').textContent()).toBe(entry.bank.name);
    expect(await page.getByTestId('holder-ispb').textContent()).toBe(entry.bank.ispb);
    expect(await page.getByTestId('payout-review').textContent()).toContain('R$ 150,00');
    // the typed CPF is the key's own: no warning
    expect(await page.getByTestId('document-mismatch').count()).toBe(0);
    await shot(page, 'payout-review');
    expect(sent).toEqual([]);
    expect(await available()).toBe(before);

    // going back keeps what was typed
    await page.getByRole('button', { name: 'Alterar dados' }).click();
    expect(await page.getByLabel('Valor (R$)').inputValue()).toBe('150,00');
    expect(await page.getByLabel('Nome do recebedor').inputValue()).toBe('Nome Digitado');
    await page.getByRole('button', { name: 'Revisar' }).click();
    await page.getByRole('button', { name: 'Confirmar e enviar' }).click();
    await page.waitForURL(/\/withdrawals\/wd_[0-9a-z]+$/, WAIT);
    expect(sent).toHaveLength(1);
    expect(await available()).toBe(before - 15_000);
    await see(page, '[data-testid=withdrawal-status] [data-status=PAID]');
    // the receipt names the directory's holder, not what was typed, and each batch its amount
    const batches = page.getByTestId('batch');
    await expect.poll(() => batches.count(), WAIT).toBe(2);
    const texts = await batches.allTextContents();
    expect(texts[0]).toContain(entry.holder.name);
    expect(texts[0]).toContain('R$ 100,00');
    expect(texts[1]).toContain('R$ 50,00');
    expect(texts.join('')).not.toContain('Nome Digitado');
    await shot(page, 'payout-paid');
  });

  it('warns when the typed document is not the key holder\'s', async () => {
    await fillForm(page, { amount: '10,00', keyType: 'EMAIL', key: 'loja@example.com', name: 'Loja', document: CPF });
    await page.getByRole('button', { name: 'Revisar' }).click();
    await see(page, '[data-testid=document-mismatch]');
    expect(await page.getByTestId('holder-document').textContent()).not.toBe('***.982.247-**');
  });

  it('says so next to the key when the directory does not know it, and sends nothing', async () => {
    const sent = watchCreates(page);
    await fillForm(page, { amount: '10,00', keyType: 'EMAIL', key: 'unknown@sandbox.test', name: 'Ninguém', document: CPF });
    await page.getByRole('button', { name: 'Revisar' }).click();
    await see(page, '.field-invalid input[name=key]');
    expect(await page.locator('[name=key]').getAttribute('aria-invalid')).toBe('true');
    await see(page, 'text=Nenhuma chave Pix assim está registrada. Confira a chave e o tipo.');
    expect(await page.getByTestId('payout-review').count()).toBe(0);
    await shot(page, 'payout-unknown-key');
    expect(sent).toEqual([]);
  });

  it('shows each batch of a failed withdrawal with its amount and the reason in words', async () => {
    await fillForm(page, { amount: '150,00', keyType: 'EMAIL', key: 'fail@sandbox.test', name: 'Recusa', document: CPF });
    await page.getByRole('button', { name: 'Revisar' }).click();
    await see(page, '[data-testid=payout-review]');
    await page.getByRole('button', { name: 'Confirmar e enviar' }).click();
    await page.waitForURL(/\/withdrawals\/wd_[0-9a-z]+$/, WAIT);
    failedId = new URL(page.url()).pathname.split('/').pop()!;
    await see(page, '[data-testid=withdrawal-status] [data-status=ERROR]');
    const failures = page.getByTestId('batch-failure');
    await expect.poll(() => failures.count(), WAIT).toBe(2);
    for (const f of await failures.all()) {
      expect(await f.textContent()).toContain('Motivo da falha: A instituição de destino recusou o pagamento. O valor voltou para o saldo disponível.');
    }
    const texts = await page.getByTestId('batch').allTextContents();
    expect(texts[0]).toContain('R$ 100,00');
    expect(texts[1]).toContain('R$ 50,00');
    // no API code on the screen
    expect(await page.locator('main').textContent()).not.toMatch(/REJECTED|KEY_NOT_FOUND|ERROR|PAID|EMAIL/);
    await shot(page, 'payout-failed');
  });

  it('fits a phone: the review and the failed withdrawal at 390 px', async () => {
    const p = await phone.newPage();
    await fillForm(p, { amount: '25,00', keyType: 'PHONE', key: '+55 11 98765-4321', name: 'Cliente', document: CPF });
    await p.getByRole('button', { name: 'Revisar' }).click();
    await see(p, '[data-testid=payout-review]');
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const name of ['Alterar dados', 'Confirmar e enviar']) {
      const box = (await p.getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width, name).toBeLessThanOrEqual(390);
    }
    await shot(p, 'payout-review-phone');
    await p.goto(`${srv.url}/withdrawals/${failedId}`);
    await see(p, '[data-testid=batch-failure]');
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(p, 'payout-failed-phone');
    await p.close();
  });
});
