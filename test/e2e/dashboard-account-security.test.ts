// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishLeft, launchChromium, overflowing, rawCodesLeft, see, shot, signIn, WAIT } from '../support/browser';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * Issue 23 items 4 and 6 in Chromium, as a merchant does them: rotating the client token asks for the
 * password (a wrong one changes nothing), the account's security log on the settings page shows it, "sign
 * out everywhere" ends the session of another device, and the password can be changed (the old one then
 * no longer signs in); the account's receiver data (issue 26) on the same page. Screenshots of the settings page in test/artifacts/.
 */

const PHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

let srv: RunningServer;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
let password = '';

/** Another device of the same person: its own browser context (cookies), signed in afresh. */
async function otherDevice(): Promise<{ ctx: BrowserContext; p: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'pt-BR', userAgent: PHONE_UA });
  const p = await ctx.newPage();
  await signIn(p, srv.url, srv.demo.email, password);
  return { ctx, p };
}

/** A page of a session that was ended goes back to sign in. */
async function signedOut(p: Page) {
  await p.goto(`${srv.url}/settings`);
  await p.waitForURL((u) => u.pathname === '/sign-in', WAIT);
}

/**
 * Confirms a password dialog until `done` shows. A wrong password just before makes this address wait a
 * moment (the sign-in limits, 429): the button is pressed again, as a person would; a condition, not a sleep.
 */
async function confirmUntil(dialog: Locator, button: string, done: Locator) {
  const deadline = Date.now() + WAIT.timeout;
  while (!(await done.isVisible())) {
    if (Date.now() > deadline) throw new Error(`"${button}" never got through`);
    await dialog.getByRole('button', { name: button }).click({ timeout: 2_000 }).catch(() => {});
    await done.waitFor({ state: 'visible', timeout: 2_000 }).catch(() => {});
  }
}

beforeAll(async () => {
  browser = await launchChromium();
  srv = await startServer({ pages: true });
  password = srv.demo.password;
  desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  page = await desktop.newPage();
  await signIn(page, srv.url, srv.demo.email, password);
});

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('account security in the dashboard', { timeout: 90_000 }, () => {
  it('rotating the client token asks for the password; a wrong one changes nothing; then the other device is signed out and the security log shows it', async () => {
    const phone = await otherDevice();
    await page.goto(`${srv.url}/developers`);
    await page.getByRole('button', { name: 'Trocar o token do cliente' }).click();
    const dialog = page.getByRole('dialog', { name: 'Trocar o token do cliente?' });
    await dialog.getByLabel('Sua senha').fill('not the password');
    await dialog.getByRole('button', { name: 'Trocar token' }).click();
    await see(page, 'dialog[open] >> text=Senha incorreta; nada foi feito.');
    // nothing changed: the old token still opens the API, the phone is still signed in
    expect(await accessToken(srv.url, srv.demo.code, srv.demo.token)).toMatch(/^at_/);
    await phone.p.goto(`${srv.url}/settings`);
    await see(phone.p, 'h1 >> text=Configurações');
    await shot(page, 'developers-rotate-password');

    await dialog.getByLabel('Sua senha').fill(password);
    const fresh = page.getByLabel('Token do cliente', { exact: true });
    await confirmUntil(dialog, 'Trocar token', fresh);
    expect(await fresh.textContent()).toMatch(/^sk_/);
    expect(await page.content()).not.toContain(password);
    expect((await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: srv.demo.token } })).status).toBe(401);
    // the rotation ended every other session of the account, not this one
    await signedOut(phone.p);
    await phone.ctx.close();

    await page.goto(`${srv.url}/settings`);
    const entry = page.getByTestId('audit-entry').first();
    await expect.poll(() => entry.getAttribute('data-action'), WAIT).toBe('client_token.rotate');
    expect(await entry.innerText()).toMatch(/Trocou o token do cliente[\s\S]*demo@example\.com[\s\S]*127\.0\.0\.1[\s\S]*Chrome em Linux/);
    // the sign-ins are there too, the phone's as Safari on iOS
    await see(page, '[data-testid=audit-entry][data-action="session.sign_in"] >> text=Safari em iOS');
    await shot(page, 'settings-security-desktop');
  });

  it('the "Dados do recebedor" card: the demo account\'s CNPJ and address; a wrong CPF and CEP refused in place, in Portuguese; a valid one saved and audited', async () => {
    await page.goto(`${srv.url}/settings`);
    const card = page.locator('section', { has: page.locator('#receiver-title') });
    await see(page, '#receiver-title >> text=Dados do recebedor');
    const document = card.getByLabel('CPF ou CNPJ');
    await expect.poll(() => document.inputValue(), WAIT).toBe('11222333000181');
    expect(await card.getByLabel('UF').inputValue()).toBe('SP');
    expect(await card.getByLabel('CEP').inputValue()).toBe('01310100');

    await document.fill('529.982.247-24');
    await card.getByLabel('CEP').fill('5005');
    await card.getByRole('button', { name: 'Salvar recebedor' }).click();
    await see(page, '#receiver-title ~ form >> text=CPF inválido');
    await see(page, '#receiver-title ~ form >> text=deve ter 8 dígitos');
    await shot(page, 'settings-receiver-refused');
    // nothing stored: the account still has the demo's receiver
    await page.reload();
    await expect.poll(() => card.getByLabel('CPF ou CNPJ').inputValue(), WAIT).toBe('11222333000181');

    await card.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
    await card.getByLabel('Razão social ou nome').fill('Maria da Loja');
    await card.getByLabel('Nome fantasia').fill('');
    await card.getByLabel('Logradouro e número').fill('Rua da Aurora, 100');
    await card.getByLabel('Cidade').fill('Recife');
    await card.getByLabel('UF').selectOption('PE');
    await card.getByLabel('CEP').fill('50050-000');
    await card.getByRole('button', { name: 'Salvar recebedor' }).click();
    await see(page, '#receiver-title ~ form >> text=Dados do recebedor salvos.');
    expect(await card.getByLabel('CPF ou CNPJ').inputValue()).toBe('52998224725');
    expect(await card.getByLabel('CEP').inputValue()).toBe('50050000');
    const entry = page.getByTestId('audit-entry').first();
    await expect.poll(() => entry.getAttribute('data-action'), WAIT).toBe('receiver.update');
    expect(await entry.innerText()).toMatch(/Alterou os dados do recebedor[\s\S]*demo@example\.com/);
    expect(await englishLeft(page, ['settings', 'security', 'common'])).toEqual([]);
    expect(await rawCodesLeft(page)).toEqual([]);
    await shot(page, 'settings-receiver-saved');
  });

  it('"sign out everywhere" ends the session of another device, after the password; this one stays', async () => {
    const phone = await otherDevice();
    await page.goto(`${srv.url}/settings`);
    await expect.poll(() => page.getByTestId('session').count(), WAIT).toBe(2);
    const mine = page.locator('[data-testid=session][data-current=true]');
    expect(await mine.innerText()).toMatch(/Chrome em Linux\s*Esta sessão[\s\S]*127\.0\.0\.1/);
    expect(await page.locator('[data-testid=session][data-current=false]').innerText()).toMatch(/Safari em iOS/);

    await page.getByRole('button', { name: 'Encerrar as outras sessões' }).click();
    const dialog = page.getByRole('dialog', { name: 'Encerrar todas as outras sessões?' });
    await dialog.getByLabel('Sua senha').fill(password);
    await shot(page, 'settings-sign-out-everywhere-dialog');
    const done = page.getByText('1 sessão encerrada.');
    await confirmUntil(dialog, 'Encerrar sessões', done);
    await expect.poll(() => page.getByTestId('session').count(), WAIT).toBe(1);
    await signedOut(phone.p);
    await phone.ctx.close();
    // still signed in here
    await page.reload();
    await see(page, '[data-testid=audit-entry][data-action="session.sign_out_everywhere"] >> text=Encerrou as outras sessões');
  });

  it('changes the password with the rules of account:create; other sessions end and only the new password signs in', async () => {
    const phone = await otherDevice();
    await page.goto(`${srv.url}/settings`);
    const form = page.getByRole('form', { name: 'Senha' });
    await form.getByLabel('Senha atual').fill(password);
    await form.getByLabel('Nova senha', { exact: true }).fill('curta');
    await form.getByLabel('Repita a nova senha').fill('curta');
    await form.getByRole('button', { name: 'Alterar senha' }).click();
    await see(page, 'text=ao menos 10 caracteres');
    await form.getByLabel('Nova senha', { exact: true }).fill('uma senha nova e longa');
    await form.getByLabel('Repita a nova senha').fill('uma senha nova e lunga');
    await form.getByRole('button', { name: 'Alterar senha' }).click();
    await see(page, 'text=as duas senhas não são iguais');
    await form.getByLabel('Repita a nova senha').fill('uma senha nova e longa');
    await form.getByRole('button', { name: 'Alterar senha' }).click();
    await see(page, 'text=Senha alterada. 1 outra sessão foi encerrada.');
    expect(await form.getByLabel('Nova senha', { exact: true }).inputValue()).toBe('');
    await signedOut(phone.p);
    await see(page, '[data-testid=audit-entry][data-action="password.change"] >> text=Alterou a senha');

    // the old password no longer signs in; the new one does
    const answer = await api(srv.url, '/api/trpc/session.signIn', { body: { email: srv.demo.email, password } });
    expect(answer.status).toBe(401);
    password = 'uma senha nova e longa';
    await signIn(phone.p, srv.url, srv.demo.email, password);
    await phone.p.goto(`${srv.url}/settings`);
    await see(phone.p, '[data-testid=session][data-current=true] >> text=Safari em iOS');
    // the phone-sized page: Portuguese only, no raw codes, nothing past the screen's edge
    await phone.p.locator('.loading').first().waitFor({ state: 'detached', ...WAIT }).catch(() => {});
    expect(await englishLeft(phone.p, ['security', 'settings', 'common'])).toEqual([]);
    expect(await rawCodesLeft(phone.p)).toEqual([]);
    expect(await overflowing(phone.p)).toEqual([]);
    await shot(phone.p, 'settings-security-390');
    await phone.ctx.close();
  });
});
