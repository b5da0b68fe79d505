// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishLeft, launchChromium, see, shot, signIn, WAIT } from '../support/browser';
import { removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The account's receiving Pix keys in the dashboard, in Chromium, in Portuguese: the Pix keys page lists
 * the account's EVP, adds an e-mail and a phone in Brazilian spelling, refuses a bad CPF in words and a
 * key already held, removes a key behind a confirmation and never the last one; the Developers page
 * rotates the API Pix client secret behind the password and shows it once. Screenshots go to
 * test/artifacts/pix-keys-*.png.
 */
let srv: RunningServer;
let browser: Browser;
let page: Page;

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

const rows = () => page.getByTestId('pix-key');
const keysShown = async () => (await rows().locator('td:nth-child(2)').allTextContents()).map((s) => s.trim());

describe('the Pix keys page, in Portuguese', { timeout: 90_000 }, () => {
  it('lists the account\'s EVP, the one it cannot remove', async () => {
    // reached from the API Pix card of the Developers page (the top bar is full at 1280 px)
    await page.goto(`${srv.url}/developers`);
    await page.getByRole('link', { name: 'Chaves Pix da conta' }).click();
    await page.waitForURL((u) => u.pathname === '/pix-keys', WAIT);
    await see(page, '[data-testid=pix-key]');
    expect(await keysShown()).toEqual([srv.demo.pixKey]);
    await expect.poll(() => rows().first().getAttribute('data-type'), WAIT).toBe('EVP');
    expect(await rows().first().getByRole('button', { name: 'Remover' }).isDisabled()).toBe(true);
    await see(page, 'text=Uma conta sempre tem ao menos uma chave');
    expect(await englishLeft(page, ['pixKeys', 'shell'])).toEqual([]);
    expect(await page.title()).toMatch(/Chaves Pix/);
  });

  it('adds an e-mail and a phone as people type them; refuses a bad CPF and a key already held, in words', async () => {
    await page.getByLabel('Tipo').selectOption('EMAIL');
    await page.getByLabel('Chave', { exact: true }).fill('Vendas@Loja.com.br');
    await page.getByRole('button', { name: 'Cadastrar chave' }).click();
    await see(page, 'text=Chave vendas@loja.com.br cadastrada.');
    await expect.poll(keysShown, WAIT).toEqual([srv.demo.pixKey, 'vendas@loja.com.br']);

    await page.getByLabel('Tipo').selectOption('PHONE');
    await page.getByLabel('Chave', { exact: true }).fill('(11) 98765-4321');
    await page.getByRole('button', { name: 'Cadastrar chave' }).click();
    await expect.poll(keysShown, WAIT).toEqual([srv.demo.pixKey, 'vendas@loja.com.br', '+5511987654321']);

    await page.getByLabel('Tipo').selectOption('CPF');
    await page.getByLabel('Chave', { exact: true }).fill('529.982.247-26');
    await page.getByRole('button', { name: 'Cadastrar chave' }).click();
    await see(page, 'text=CPF inválido');

    await page.getByLabel('Tipo').selectOption('EMAIL');
    await page.getByLabel('Chave', { exact: true }).fill('vendas@loja.com.br');
    await page.getByRole('button', { name: 'Cadastrar chave' }).click();
    await see(page, 'text=Esta chave já está cadastrada, nesta ou em outra conta.');
    expect(await keysShown()).toHaveLength(3);

    await page.getByLabel('Tipo').selectOption('EVP');
    await see(page, 'text=Uma chave aleatória nova será gerada para esta conta.');
    await page.getByRole('button', { name: 'Cadastrar chave' }).click();
    await expect.poll(async () => (await keysShown()).length, WAIT).toBe(4);
    expect((await keysShown())[3]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await englishLeft(page, ['pixKeys', 'validation', 'errors'])).toEqual([]);
    await shot(page, 'pix-keys-1280');
  });

  it('removes a key after a confirmation; the EVP the account was created with can go once others exist', async () => {
    await page.getByRole('button', { name: 'Remover a chave vendas@loja.com.br' }).click();
    await see(page, 'dialog[open] >> text=Remover esta chave Pix?');
    await page.getByRole('button', { name: 'Remover chave' }).click();
    await see(page, 'text=Chave vendas@loja.com.br removida.');
    await expect.poll(keysShown, WAIT).not.toContain('vendas@loja.com.br');
    await page.getByRole('button', { name: `Remover a chave ${srv.demo.pixKey}` }).click();
    await page.getByRole('button', { name: 'Remover chave' }).click();
    await expect.poll(async () => (await keysShown()).length, WAIT).toBe(2);
    expect(await keysShown()).not.toContain(srv.demo.pixKey);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'pix-keys-390');
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});

describe('the API Pix credentials on the Developers page', { timeout: 90_000 }, () => {
  it('show the client id; the secret is rotated after the password and shown once', async () => {
    await page.goto(`${srv.url}/developers`);
    await see(page, 'text=API Pix (padrão do Banco Central)');
    await see(page, `text=${srv.demo.pixClientId}`);
    await page.getByRole('button', { name: 'Trocar o client secret' }).click();
    await see(page, 'dialog[open] >> text=Trocar o client secret da API Pix?');
    await page.locator('dialog[open] input[type=password]').fill(srv.demo.password);
    await page.getByRole('button', { name: 'Trocar segredo' }).click();
    await see(page, 'text=Novo client secret da API Pix');
    const secret = (await page.locator('[role=status] code').first().textContent())?.trim() ?? '';
    expect(secret).toMatch(/^pxs_/);
    expect(secret).not.toBe(srv.demo.pixClientSecret);
    const granted = await fetch(`${srv.url}/oauth/token`, {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${srv.demo.pixClientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(granted.status).toBe(200);
    expect(await englishLeft(page, ['developers'])).toEqual([]);
    await shot(page, 'pix-keys-developers');
  });
});
