// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import { readFileSync } from 'node:fs';
import jsQR from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBrCode } from '../support/brcode-reader';
import { launchChromium, see, shot as picture, WAIT } from '../support/browser';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The dashboard a Brazilian merchant expects (docs/decisions.md "Dashboard language"), in Debian's
 * Chromium against the real server. The numbers in the test names are those expectations: 1 Portuguese
 * by default, English a choice kept on the person; 2 search and CSV exports; 5 the Overview; 6 disputes
 * shown; 7 the sandbox banner; 8 Brazilian input (phone keys, amounts); 10 a phone's screen.
 * Screenshots at 1280 and 390 px go to test/artifacts/br-*.png.
 */
const CPF = '529.982.247-25';

let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let token = '';
let phone: BrowserContext;
let mobile: Page;
const ids: Record<string, string> = {};

const shot = (p: Page, name: string) => picture(p, `br-${name}`);
/** The text of the QR code in a PNG, read by jsQR (an independent decoder). */
function decodeQr(png: Buffer): string | null {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)?.data ?? null;
}
async function both(path: string, name: string, ready: string) {
  await page.goto(`${srv.url}${path}`);
  await see(page, ready);
  await shot(page, `${name}-desktop`);
  await mobile.goto(`${srv.url}${path}`);
  await see(mobile, ready);
  await shot(mobile, `${name}-390`);
}

async function createCharge(body: Record<string, unknown>): Promise<string> {
  const r = await api(srv.url, '/transaction', { token, body });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
}
const charge = (amount: number, name: string, extra: Record<string, unknown> = {}) => ({
  amount, method: 'PIX', items: [{ title: 'Pedido', unitPrice: amount, quantity: 1 }], customer: { name, email: `${name.split(' ')[0].normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()}@example.com`, document: CPF }, ...extra,
});

beforeAll(async () => {
  browser = await launchChromium();
  srv = await startServer({ pages: true, env: { SANDBOX_SETTLEMENT_DELAY_MS: '500' } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR', acceptDownloads: true });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  page = await ctx.newPage();
});

afterAll(async () => {
  await phone?.close();
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('a Brazilian merchant in Chromium', { timeout: 90_000 }, () => {
  it('1, 7: speaks Portuguese from the sign-in page on, with the sandbox banner on every page', async () => {
    await page.goto(`${srv.url}/sign-in`);
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    await see(page, '[data-testid=sandbox-banner]');
    await page.getByLabel('E-mail').fill(srv.demo.email);
    await page.getByLabel('Senha').fill('senha-errada');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await see(page, 'text=E-mail ou senha incorretos.');
    // after a failure the address waits a growing delay (429 meanwhile): the form waits it out itself,
    // with a countdown and the button disabled, instead of leaving the person clicking into a refusal
    const wait = page.getByTestId('sign-in-wait');
    const enter = page.getByRole('button', { name: 'Entrar', exact: true });
    await expect.poll(async () => {
      if (await wait.textContent()) return 'waiting';
      // the wrong password again, as soon as the button takes it: a 401 doubles the delay, so a 429 comes
      if (await enter.isEnabled({ timeout: 1_000 }).catch(() => false)) await enter.click({ timeout: 2_000 }).catch(() => {});
      return (await wait.textContent()) ? 'waiting' : 'not yet';
    }, { timeout: 30_000, interval: 100 }).toBe('waiting');
    expect(await wait.textContent()).toMatch(/^Muitas tentativas de entrar com este e-mail\. Aguarde \d+ segundos? para tentar de novo\.$/);
    const waiting = page.getByRole('button', { name: /^Aguarde \d+ s$/ });
    expect(await waiting.isDisabled()).toBe(true);
    await shot(page, 'sign-in-wait-desktop');
    await page.getByLabel('Senha').fill(srv.demo.password);
    // the button comes back by itself when the wait is over; one click then signs in
    await enter.click(WAIT);
    expect(await wait.textContent()).toBe('');
    await page.waitForURL(`${srv.url}/`, WAIT);
    await see(page, 'h1 >> text=Visão geral');
    // 10 (desktop side): at 1280 px the top bar is one row and every link shows whole, none cut off (eleven with Cobranças)
    const bar = (await page.locator('.topbar').boundingBox())!;
    expect(bar.height).toBeLessThan(70);
    const links = page.getByRole('navigation', { name: 'Principal' }).getByRole('link');
    expect(await links.count()).toBe(11);
    for (const link of await links.all()) {
      const box = (await link.boundingBox())!;
      expect(box, await link.textContent() ?? '').not.toBeNull();
      expect(box.x + box.width, (await link.textContent())!).toBeLessThanOrEqual(1280);
      expect(box.y + box.height, (await link.textContent())!).toBeLessThanOrEqual(bar.y + bar.height);
    }
    expect(await page.locator('nav[aria-label=Principal]').evaluate((n) => n.scrollWidth - n.clientWidth)).toBe(0);
    expect(await page.getByRole('button', { name: 'Sair' }).isVisible()).toBe(true);
    for (const path of ['/', '/transactions', '/withdrawals', '/disputes', '/settings', '/docs']) {
      await page.goto(`${srv.url}${path}`);
      await see(page, '[data-testid=sandbox-banner] >> text=nenhum dinheiro real se move');
    }
    // the phone-sized browser shares the session
    phone = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'pt-BR', acceptDownloads: true, storageState: await ctx.storageState() });
    await phone.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
    mobile = await phone.newPage();
  });

  it('5: the Overview shows today\'s sales apart from top-ups and payouts, and activity in words', async () => {
    ids.pix = await createCharge(charge(12_345, 'Zélia Gonçalves', { externalRef: 'pedido-8841' }));
    expect((await api(srv.url, `/sandbox/transactions/${ids.pix}/pay`, { token, method: 'POST' })).status).toBe(200);
    await page.goto(`${srv.url}/`);
    // the demo account's R$ 10.000,00 is a sandbox top-up: not a sale
    await expect.poll(() => page.getByTestId('today-sales').textContent(), WAIT).toBe('R$ 123,45');
    expect(await page.getByTestId('today-topups').textContent()).toBe('R$ 10.000,00');
    expect(await page.getByTestId('yesterday-sales').textContent()).toBe('R$ 0,00');
    expect(await page.getByTestId('month-sales').textContent()).toBe('R$ 123,45');
    await see(page, '[data-testid=today] >> text=1 cobrança aprovada');
    const activity = page.getByTestId('activity');
    await see(page, '[data-testid=activity] >> text=Cobrança Pix de R$ 123,45 aprovada (Zélia Gonçalves)');
    // each event once
    expect(await activity.locator('li', { hasText: 'aprovada (Zélia Gonçalves)' }).count()).toBe(1);
    const shown = await page.locator('body').innerText();
    expect(shown).not.toMatch(/transaction\.approved|cents|APPROVED|PIX/);
    await both('/', 'overview', '[data-testid=today-sales]');
  });

  it('2: finds a charge by name, reference, CPF and amount; keeps filters and page in the URL; exports the range as CSV', async () => {
    ids.other = await createCharge(charge(5_000, 'Maria Souza', { externalRef: 'pedido-9000', customer: { name: 'Maria Souza', email: 'maria@example.com', document: '11.222.333/0001-81' } }));
    await page.goto(`${srv.url}/transactions`);
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    const search = async (q: string) => {
      await page.getByLabel('Buscar', { exact: true }).fill(q);
      await page.getByRole('button', { name: 'Buscar' }).click();
      // wait for this search to reach the URL: two searches in a row can show the same rows, and the
      // box is synced from the URL, so a late navigation would otherwise overwrite the next query
      if (!/^529\.982/.test(q)) await page.waitForURL((u) => u.searchParams.get('q') === q, WAIT);
    };
    await search('zelia');
    await page.waitForURL(/\?q=zelia/, WAIT);
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    expect(await rows.first().textContent()).toContain('Zélia Gonçalves');
    // any word of the name, from its start, accent- and case-blind: "goncalves" for "Zélia Gonçalves"
    for (const [q, who] of [['goncalves', 'Zélia Gonçalves'], ['SOUZA', 'Maria Souza'], ['sou mar', 'Maria Souza']] as const) {
      await search(q);
      await expect.poll(() => rows.allTextContents(), WAIT).toEqual([expect.stringContaining(who)]);
    }
    for (const [q, who] of [['pedido-9000', 'Maria Souza'], ['11222333000181', 'Maria Souza'], ['R$ 123,45', 'Zélia'], ['maria@example.com', 'Maria Souza'], [ids.pix, 'Zélia']] as const) {
      await search(q);
      await expect.poll(() => rows.allTextContents(), WAIT).toEqual([expect.stringContaining(who)]);
    }
    // Back returns to the previous search; a shared link opens the same view
    await page.goBack();
    await expect.poll(() => page.getByLabel('Buscar', { exact: true }).inputValue(), WAIT).toBe('maria@example.com');
    const shared = await browser.newContext({ storageState: await ctx.storageState() });
    const other = await shared.newPage();
    await other.goto(`${srv.url}/transactions?q=zelia&status=APPROVED`);
    await expect.poll(() => other.locator('table.list tbody tr').allTextContents(), WAIT).toEqual([expect.stringContaining('Zélia')]);
    expect(await other.getByLabel('Situação').inputValue()).toBe('APPROVED');
    await shared.close();

    // a malformed document says so next to the search box; a date range outside finds nothing
    await search('529.982.247-26');
    await see(page, '.search-q .field-error >> text=CPF ou CNPJ inválido');
    await page.goto(`${srv.url}/transactions?from=2020-01-01&to=2020-01-31`);
    await see(page, 'text=Nenhuma transação com estes filtros');
    await page.goto(`${srv.url}/transactions?from=2026-02-30`);
    await see(page, '.field-error >> text=data inválida');
    // the range is typed as a Brazilian writes it, dd/mm/aaaa; a malformed one is said next to its box, nothing is sent
    await page.goto(`${srv.url}/transactions`);
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    const box = (label: string) => page.getByLabel(label, { exact: true });
    const errorOf = (label: string) => page.locator('.field').filter({ has: box(label) }).locator('.field-error');
    expect(await box('De').getAttribute('placeholder')).toBe('dd/mm/aaaa');
    await box('De').fill('30/02/2026');
    await box('Até').fill('2026-03-01');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await expect.poll(() => errorOf('De').textContent(), WAIT).toBe('data inválida: use dd/mm/aaaa');
    expect(await errorOf('Até').textContent()).toBe('data inválida: use dd/mm/aaaa');
    expect(await box('De').getAttribute('aria-invalid')).toBe('true');
    expect(new URL(page.url()).searchParams.get('from')).toBeNull();
    // a reversed range, next to the end
    await box('De').fill('10/03/2026');
    await box('Até').fill('09/03/2026');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await expect.poll(() => errorOf('Até').textContent(), WAIT).toBe('a data final vem antes da inicial');
    expect(await errorOf('De').count()).toBe(0);
    // today in Brasília, typed digits only (the slashes come by themselves), finds both charges; the URL keeps the ISO day
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    await box('De').fill('');
    await box('De').pressSequentially(today.split('-').reverse().join(''));
    expect(await box('De').inputValue()).toBe(today.split('-').reverse().join('/'));
    await box('Até').fill(today.split('-').reverse().join('/'));
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.waitForURL((u) => u.searchParams.get('from') === today && u.searchParams.get('to') === today, WAIT);
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    expect(await box('De').inputValue()).toBe(today.split('-').reverse().join('/'));

    // CSV of the filtered range, streamed, in the spreadsheet form Brazil uses
    const csv = await page.request.get(`${srv.url}/transactions/export?q=pedido-8841`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const text = await csv.text();
    const lines = text.replace(/^\ufeff/, '').trim().split('\r\n');
    // every text cell quoted (formula-safe, see test/e2e/csv-exports.test.ts); the amount bare, a number
    expect(lines[0]).toBe('"criada_em";"id";"situacao";"forma";"valor";"cliente";"email";"documento";"referencia_externa";"e2e";"contestacao"');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`;"${ids.pix}";"Aprovada";"Pix";123,45;"Zélia Gonçalves";`);
    expect((await page.request.get(`${srv.url}/transactions/export?q=529.982.247-26`)).status()).toBe(400);
    await both('/transactions?q=zelia', 'transactions-search', 'table.list tbody tr');
  });

  it('6: an open or lost dispute shows in the list badge, at the top of the charge and on the Disputes page with the held amount', async () => {
    const card = { number: '4111 1111 1111 1111', holder_name: 'ANA COSTA', expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3), cvv: '123' };
    ids.card = await createCharge({ ...charge(30_000, 'Ana Costa'), method: 'CARD', card });
    ids.lost = await createCharge({ ...charge(7_000, 'Bruno Dias'), method: 'CARD', card });
    const open = await api(srv.url, `/sandbox/transactions/${ids.card}/dispute`, { token, method: 'POST' });
    expect(open.status, open.text).toBe(201);
    const lost = await api(srv.url, `/sandbox/transactions/${ids.lost}/dispute`, { token, method: 'POST' });
    expect((await api(srv.url, `/sandbox/disputes/${lost.json.id}/lost`, { token, method: 'POST' })).status).toBe(200);

    await page.goto(`${srv.url}/transactions`);
    const badgeOf = (id: string) => page.locator('table.list tbody tr', { hasText: id }).locator('.badge');
    await expect.poll(() => badgeOf(ids.card).textContent(), WAIT).toBe('Contestada');
    expect(await badgeOf(ids.lost).textContent()).toBe('Contestação perdida');
    expect(await badgeOf(ids.pix).textContent()).toBe('Aprovada');

    await page.goto(`${srv.url}/transactions/${ids.card}`);
    await expect.poll(() => page.getByTestId('transaction-status').textContent(), WAIT).toBe('Contestada');
    await see(page, '[data-testid=dispute-alert] >> text=R$ 300,00 ficam retidos');

    await page.goto(`${srv.url}/disputes`);
    const items = page.getByTestId('dispute');
    await expect.poll(() => items.count(), WAIT).toBe(2);
    expect(await items.first().getAttribute('data-status')).toBe('OPEN'); // open first
    expect(await page.getByTestId('disputes-held').textContent()).toBe('Retido agora: R$ 300,00');
    expect(await items.nth(1).textContent()).toContain('estornado');
    await both('/disputes', 'disputes', '[data-testid=dispute]');
  });

  it('8: a phone key and an amount written the Brazilian way go through, normalised; all errors come at once', async () => {
    await page.goto(`${srv.url}/withdrawals/new`);
    await see(page, 'text=Disponível:');
    // everything wrong at once: no amount, a phone key with a bad area code, a bad document; nothing is looked up
    const sent: string[] = [];
    const onRequest = (r: { url(): string }) => { if (/withdrawals\.create|pix\.lookupKey/.test(r.url())) sent.push(r.url()); };
    page.on('request', onRequest);
    await page.getByLabel('Tipo de chave').selectOption('PHONE');
    expect(await page.getByLabel('Chave Pix (Celular)').getAttribute('placeholder')).toBe('(11) 98765-4321');
    await page.getByLabel('Chave Pix (Celular)').fill('(01) 98765-4321');
    await page.getByLabel('CPF ou CNPJ do recebedor').fill('111.111.111-11');
    await page.getByRole('button', { name: 'Revisar' }).click();
    await see(page, 'text=Alguns campos precisam de atenção.');
    expect(await page.locator('.field-error').allTextContents()).toEqual(expect.arrayContaining([
      'obrigatório', 'DDD inválido (dois dígitos de 11 a 99)', 'CPF ou CNPJ inválido (dígitos verificadores não conferem)',
    ]));
    expect(await page.getByLabel('Valor (R$)').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'withdrawal-errors-desktop');
    page.off('request', onRequest);
    expect(sent).toEqual([]);

    await page.getByLabel('Valor (R$)').fill('1500,50');
    await page.getByLabel('Chave Pix (Celular)').fill('(11) 98765-4321');
    await page.getByLabel('Nome do recebedor').fill('Fulana de Tal');
    await page.getByLabel('CPF ou CNPJ do recebedor').fill(CPF);
    await see(page, 'text== R$ 1.500,50');
    await page.getByRole('button', { name: 'Revisar' }).click();
    // the review: the key as the directory has it, the amount in reais
    const review = page.getByTestId('payout-review');
    await review.waitFor(WAIT);
    expect(await review.textContent()).toContain('R$ 1.500,50');
    expect(await review.textContent()).toContain('+55 11 98765-4321');
    await shot(page, 'payout-review-desktop');
    await page.getByRole('button', { name: 'Confirmar e enviar' }).click();
    await page.waitForURL(/\/withdrawals\/wd_/, WAIT);
    ids.withdrawal = page.url().split('/').pop()!;
    const w = await api(srv.url, `/withdraw?identifier=${ids.withdrawal}`, { token });
    expect(w.json.content ?? w.json).toBeTruthy();
    const body = JSON.stringify(w.json);
    expect(body).toContain('"amount":150050');
    expect(body).toContain('+5511987654321');
    await see(page, 'h1 >> text=Saque de R$ 1.500,50');
    await both(`/withdrawals/${ids.withdrawal}`, 'withdrawal', 'h1');

    // 1.500,50 with the thousands dot reads the same
    await page.goto(`${srv.url}/withdrawals/new`);
    await page.getByLabel('Valor (R$)').fill('1.500,50');
    await see(page, 'text== R$ 1.500,50');
    await both('/withdrawals/new', 'withdrawal-new', 'form');

    // the withdrawals list finds it by the phone key's recipient and by amount
    await page.goto(`${srv.url}/withdrawals?q=1.500,50`);
    await expect.poll(() => page.locator('table.list tbody tr').allTextContents(), WAIT).toEqual([expect.stringContaining('Fulana de Tal')]);
    await page.goto(`${srv.url}/withdrawals?q=tal`); // a word inside the recipient's name
    await expect.poll(() => page.locator('table.list tbody tr').allTextContents(), WAIT).toEqual([expect.stringContaining('Fulana de Tal')]);
    await both('/withdrawals', 'withdrawals', 'table.list tbody tr');

    // an invoice: due date counted in São Paulo, the digitable line grouped, with a copy button
    ids.invoice = await createCharge({ ...charge(125_000, 'Empresa Ltda'), method: 'INVOICE' });
    await page.goto(`${srv.url}/transactions/${ids.invoice}`);
    const line = page.getByTestId('digitable-line');
    await expect.poll(() => line.textContent(), WAIT).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    await page.getByRole('button', { name: 'Copiar linha digitável' }).click();
    await see(page, 'button >> text=Copiado');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe((await line.textContent())!.replace(/\D/g, ''));
    await both(`/transactions/${ids.invoice}`, 'invoice', '[data-testid=digitable-line]');
  });

  it('10: at 390 px the navigation is one row with a menu, lists are compact, and a Pix charge can be shared and its QR downloaded', async () => {
    ids.pending = await createCharge(charge(4_990, 'Carla Nunes'));
    await mobile.goto(`${srv.url}/transactions/${ids.pending}`);
    await see(mobile, '[data-testid=brcode]');
    const nav = mobile.getByRole('navigation', { name: 'Principal' });
    expect(await nav.isVisible()).toBe(false);
    const header = await mobile.locator('.topbar').boundingBox();
    expect(header!.height).toBeLessThan(70); // one row: brand and menu button
    await mobile.getByRole('button', { name: 'Menu' }).click();
    await see(mobile, 'nav[aria-label=Principal] >> text=Contestações');
    await shot(mobile, 'menu-open-390');
    await mobile.getByRole('button', { name: 'Fechar menu' }).click();
    for (const el of await mobile.locator('main *').all()) {
      const box = await el.boundingBox();
      if (box && box.width > 0) expect(box.x + box.width, await el.evaluate((n) => n.outerHTML.slice(0, 80))).toBeLessThanOrEqual(391);
    }
    // headless Chromium has no share sheet: the code goes to the clipboard instead
    await mobile.getByRole('button', { name: 'Compartilhar' }).click();
    await see(mobile, 'text=Código copiado para compartilhar');
    expect(await mobile.evaluate(() => navigator.clipboard.readText())).toBe(await mobile.getByTestId('brcode').textContent());
    const [download] = await Promise.all([mobile.waitForEvent('download', WAIT), mobile.getByRole('button', { name: 'Baixar QR code' }).click()]);
    expect(download.suggestedFilename()).toBe(`pix-${ids.pending}.png`);
    const file = await download.path();
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
    // the downloaded QR and the one on the screen both read back as the very BR Code shown, a valid one
    const shown = (await mobile.getByTestId('brcode').textContent())!;
    expect(readBrCode(shown).crcOk).toBe(true);
    expect(decodeQr(readFileSync(file))).toBe(shown);
    // (centred first: at the edge of the view the sticky top bar would cover part of it)
    const qr = mobile.locator('.qr-box svg');
    await qr.evaluate((n) => n.scrollIntoView({ block: 'center' }));
    expect(decodeQr(await qr.screenshot())).toBe(shown);
    await shot(mobile, 'pix-charge-390');
    await page.goto(`${srv.url}/transactions/${ids.pending}`);
    await see(page, '[data-testid=brcode]');
    await shot(page, 'pix-charge-desktop');
  });

  it('1: English is a choice kept on the person, for every session, and Portuguese comes back the same way', async () => {
    await page.goto(`${srv.url}/settings`);
    await page.getByLabel('English').check();
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await see(page, 'h1 >> text=Settings');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    // another session of the same person (the phone) reads the setting too
    await mobile.goto(`${srv.url}/transactions`);
    await see(mobile, 'h1 >> text=Transactions');
    await both('/', 'overview-en', '[data-testid=today-sales]');
    await page.goto(`${srv.url}/settings`);
    await page.getByLabel('Português (Brasil)').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await see(page, 'h1 >> text=Configurações');
    await both('/settings', 'settings', 'form');
  });
});
