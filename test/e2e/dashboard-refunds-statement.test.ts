// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBRL } from '../../app/_lib/money';
import { englishLeft, launchChromium, see, shot, signIn, WAIT } from '../support/browser';
import { accessToken, api, removeDir, startServer, type RunningServer } from '../support/server';

/**
 * The refund panel of a charge and the statement (Extrato), in Portuguese, in Debian's Chromium
 * against the real server process (pages built by `next build`). Screenshots at 1280 and 390 px go to
 * test/artifacts/refund-*.png and statement-*.png.
 */
const CPF = '529.982.247-25';

let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let phone: BrowserContext;
let mobile: Page;
let token: string;
let chargeId = '';

const refunded = async (id = chargeId) => (await api(srv.url, `/transaction?id=${id}`, { token })).json.refunded_amount as number;
const statement = async (query = '') => (await api(srv.url, `/balance/statement?limit=200${query}`, { token })).json.data as { type: string; amount: number; balance_after: number }[];
const english = (p: Page, ns: string[]) => englishLeft(p, ns);
/** São Paulo's calendar day of an instant (UTC−3 all year). */
const spDay = (ms: number) => new Date(ms - 3 * 3_600_000).toISOString().slice(0, 10);

async function cardCharge(amount: number, name: string): Promise<string> {
  const card = { number: '4111111111111111', holder_name: name.toUpperCase(), expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3), cvv: '123' };
  const created = await api(srv.url, '/transaction', { token, body: {
    amount, method: 'CARD', card, items: [{ title: 'Cadeira', unitPrice: amount, quantity: 1 }], customer: { name, email: 'cliente@example.com', document: CPF },
  } });
  expect(created.json.status, created.text).toBe('APPROVED');
  return created.json.id as string;
}

beforeAll(async () => {
  srv = await startServer({ pages: true, env: { SANDBOX_SETTLEMENT_DELAY_MS: '1500' } });
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
  browser = await launchChromium();
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR', acceptDownloads: true });
  page = await ctx.newPage();
  await signIn(page, srv.url, srv.demo.email, srv.demo.password);
  phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'pt-BR', storageState: await ctx.storageState() });
  mobile = await phone.newPage();
}, 120_000);

afterAll(async () => {
  await phone?.close();
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('refunds on the charge page, in Portuguese', { timeout: 90_000 }, () => {
  it('refuses a bad or too large amount next to the field, and sends nothing when the confirmation is cancelled', async () => {
    chargeId = await cardCharge(10_000, 'Ana Costa');
    await page.goto(`${srv.url}/transactions/${chargeId}`);
    await see(page, '#refunds-title >> text=Estornos');
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 0,00');
    expect(await english(page, ['refunds'])).toEqual([]);

    const amountField = page.locator('.field').filter({ has: page.getByLabel('Valor do estorno (R$)') });
    await page.getByLabel('Parte do valor').check();
    // the field starts with what is left, written the Brazilian way
    expect(await page.getByLabel('Valor do estorno (R$)').inputValue()).toBe('100,00');
    await page.getByLabel('Valor do estorno (R$)').fill('100,01');
    await page.getByRole('button', { name: 'Estornar…' }).click();
    await expect.poll(() => amountField.locator('.field-error').textContent(), WAIT).toBe('no máximo R$ 100,00, o que ainda resta estornar');
    await page.getByLabel('Valor do estorno (R$)').fill('trinta reais');
    await page.getByRole('button', { name: 'Estornar…' }).click();
    await expect.poll(() => amountField.locator('.field-error').textContent(), WAIT).toBe('informe um valor em reais, como 1.234,56');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await refunded()).toBe(0);

    // a misplaced thousands dot is refused, not guessed at
    await page.getByLabel('Valor do estorno (R$)').fill('1.0,00');
    await page.getByRole('button', { name: 'Estornar…' }).click();
    await expect.poll(() => amountField.locator('.field-error').textContent(), WAIT).toBe('informe um valor em reais, como 1.234,56');

    await page.getByLabel('Valor do estorno (R$)').fill('30');
    await page.getByLabel('Motivo (opcional)').fill('Produto com defeito');
    await page.getByRole('button', { name: 'Estornar…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Estornar esta cobrança?' });
    await dialog.waitFor({ state: 'visible', ...WAIT });
    expect(await dialog.textContent()).toContain('R$ 30,00 voltam para Ana Costa e saem do seu saldo disponível agora.');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await refunded()).toBe(0);
  });

  it('refunds part of the charge, and follows it until the rail pays it', async () => {
    await page.getByRole('button', { name: 'Estornar…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Estornar esta cobrança?' });
    await dialog.getByRole('button', { name: 'Estornar', exact: true }).click();
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 30,00');
    const row = page.getByTestId('refund').first();
    await see(page, '[data-testid=refund] [data-status=PENDING]');
    expect(await row.locator('[data-status]').textContent()).toBe('Em processamento');
    expect(await refunded()).toBe(3_000);
    // the page follows the refund until the rail settles it
    await see(page, '[data-testid=refund] [data-status=PAID]');
    expect(await row.locator('[data-status]').textContent()).toBe('Estornado');
    expect(await row.locator('.money').textContent()).toBe('R$ 30,00');
    // the API keeps the charge APPROVED; the page says what happened to it
    expect(await page.getByTestId('transaction-status').textContent()).toBe('Parcialmente estornada');
    expect(await english(page, ['refunds', 'transactions'])).toEqual([]);
    await shot(page, 'refund-desktop');
    await mobile.goto(`${srv.url}/transactions/${chargeId}`);
    await see(mobile, '[data-testid=refund] [data-status=PAID]');
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(mobile, 'refund-390');
  });

  it('refunds the rest in full', async () => {
    await page.getByLabel('Tudo o que resta (R$ 70,00)').check();
    await page.getByRole('button', { name: 'Estornar…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Estornar esta cobrança?' });
    await dialog.waitFor({ state: 'visible', ...WAIT });
    expect(await dialog.textContent()).toContain('R$ 70,00 voltam para Ana Costa');
    await dialog.getByRole('button', { name: 'Estornar', exact: true }).click();
    await expect.poll(() => page.getByTestId('refunded-amount').textContent(), WAIT).toBe('R$ 100,00');
    await see(page, 'text=Cobrança totalmente estornada.');
    await expect.poll(() => page.getByTestId('transaction-status').textContent(), WAIT).toBe('Estornada');
    expect(await page.getByRole('button', { name: 'Estornar…' }).count()).toBe(0);
    expect(await page.getByTestId('refund').count()).toBe(2);
    expect(await refunded()).toBe(10_000);
    // the list reads it as its page does, though the API keeps it APPROVED
    await page.goto(`${srv.url}/transactions`);
    await expect.poll(() => page.locator('table.list tbody tr', { hasText: chargeId }).locator('.badge').textContent(), WAIT).toBe('Estornada');
  });

  it('is disabled and explained while a dispute is open, and after it is lost', async () => {
    const id = await cardCharge(5_000, 'Bruno Lima');
    const dispute = await api(srv.url, `/sandbox/transactions/${id}/dispute`, { token, method: 'POST' });
    expect(dispute.status, dispute.text).toBe(201);
    await page.goto(`${srv.url}/transactions/${id}`);
    await see(page, '[data-testid=refund-blocked]');
    expect(await page.getByTestId('refund-blocked').textContent()).toBe('Não é possível estornar: esta cobrança tem uma contestação aberta, e o valor está retido até ela ser resolvida.');
    expect(await page.getByRole('button', { name: 'Estornar…' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Motivo (opcional)').isDisabled()).toBe(true);
    expect(await english(page, ['refunds'])).toEqual([]);
    await shot(page, 'refund-dispute-open-desktop');

    expect((await api(srv.url, `/sandbox/disputes/${dispute.json.id}/lost`, { token, method: 'POST' })).status).toBe(200);
    await page.reload();
    await see(page, '[data-testid=refund-blocked] >> text=a contestação desta cobrança foi perdida');
    expect(await page.getByRole('button', { name: 'Estornar…' }).isDisabled()).toBe(true);
    expect(await refunded(id)).toBe(0);
  });
});

describe('the statement (Extrato), in Portuguese', { timeout: 120_000 }, () => {
  it('lists every movement with the balance after it, as the API does', async () => {
    await page.goto(`${srv.url}/`);
    await page.getByRole('link', { name: 'Extrato' }).first().click();
    await page.waitForURL(`${srv.url}/statement`, WAIT);
    await see(page, 'table[aria-label=Extrato] tbody tr');
    const expected = await statement();
    const rows = page.locator('table[aria-label=Extrato] tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(expected.length);
    expect(await rows.locator('[data-type]').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(expected.map((m) => m.type));
    expect(await page.getByTestId('balance-after').allTextContents()).toEqual(expected.map((m) => formatBRL(m.balance_after)));
    const available = (await api(srv.url, '/balance', { token })).json.available as number;
    expect(await page.getByTestId('balance-after').first().textContent()).toBe(formatBRL(available));
    // a refund reads as a debit in words, never as a code
    const refund = rows.filter({ has: page.locator('[data-type=refund_requested]') }).first();
    expect(await refund.locator('[data-type]').textContent()).toBe('Estorno');
    expect(await refund.locator('.money').first().textContent()).toBe('− R$ 70,00');
    expect(await english(page, ['statement'])).toEqual([]);
    await shot(page, 'statement-desktop');
    await mobile.goto(`${srv.url}/statement`);
    await see(mobile, 'table[aria-label=Extrato] tbody tr');
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(mobile, 'statement-390');
  });

  it('pages by keyset with the page in the URL: the balances run on across pages, Back returns', async () => {
    for (let i = 1; i <= 50; i++) {
      expect((await api(srv.url, '/sandbox/topup', { token, body: { amount: 100 * i } })).status).toBe(201);
    }
    const all = await statement();
    expect(all.length).toBeGreaterThan(50);
    await page.goto(`${srv.url}/statement`);
    const rows = page.locator('table[aria-label=Extrato] tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(50);
    expect(await page.getByTestId('balance-after').allTextContents()).toEqual(all.slice(0, 50).map((m) => formatBRL(m.balance_after)));
    await page.getByRole('button', { name: 'Mais antigos →' }).click();
    await page.waitForURL(/[?&]pages=/, WAIT);
    await expect.poll(() => page.getByTestId('balance-after').allTextContents(), WAIT).toEqual(all.slice(50, 100).map((m) => formatBRL(m.balance_after)));
    // the line after a page break: its balance plus the previous line's amount is that line's balance
    expect(all[49].balance_after - all[49].amount).toBe(all[50].balance_after);
    const second = page.url();
    await page.goBack();
    await expect.poll(() => page.getByTestId('balance-after').first().textContent(), WAIT).toBe(formatBRL(all[0].balance_after));
    await page.goto(second);
    await expect.poll(() => page.getByTestId('balance-after').first().textContent(), WAIT).toBe(formatBRL(all[50].balance_after));
  });

  it('filters by São Paulo days typed dd/mm/aaaa (a malformed date or reversed range said so next to the field) and exports the range as CSV', async () => {
    await page.goto(`${srv.url}/statement`);
    const today = spDay(Date.now());
    const tomorrow = spDay(Date.now() + 86_400_000);
    const typed = (iso: string) => iso.split('-').reverse().join('/');
    const filter = () => page.getByRole('button', { name: 'Filtrar' }).click();
    // an impossible day is said next to its box and nothing is applied
    await page.getByLabel('De', { exact: true }).fill('31/02/2026');
    await filter();
    const from = page.locator('.field').filter({ has: page.getByLabel('De', { exact: true }) });
    await expect.poll(() => from.locator('.field-error').textContent(), WAIT).toBe('data inválida: use dd/mm/aaaa');
    expect(new URL(page.url()).searchParams.get('from')).toBeNull();
    // digits typed in a row get their slashes
    await page.getByLabel('De', { exact: true }).fill('');
    await page.getByLabel('De', { exact: true }).pressSequentially(tomorrow.split('-').reverse().join(''));
    expect(await page.getByLabel('De', { exact: true }).inputValue()).toBe(typed(tomorrow));
    await filter();
    await see(page, 'text=Nenhum movimento neste período');
    expect(new URL(page.url()).searchParams.get('from')).toBe(tomorrow);
    await page.getByLabel('Até', { exact: true }).fill(typed(today));
    await filter();
    const to = page.locator('.field').filter({ has: page.getByLabel('Até', { exact: true }) });
    await expect.poll(() => to.locator('.field-error').textContent(), WAIT).toBe('a data final vem antes da inicial');
    expect(new URL(page.url()).searchParams.get('to')).toBeNull(); // refused: not applied
    await page.getByLabel('De', { exact: true }).fill(typed(today));
    await filter();
    const rows = page.locator('table[aria-label=Extrato] tbody tr');
    await expect.poll(() => rows.count(), WAIT).toBe(50);
    expect(new URL(page.url()).searchParams.get('from')).toBe(today);
    expect(new URL(page.url()).searchParams.get('to')).toBe(today);
    expect(await page.getByTestId('export-csv').getAttribute('href')).toContain('from=');
    expect(await english(page, ['statement'])).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByTestId('export-csv').click()]);
    expect(download.suggestedFilename()).toMatch(/^statement-from-.*-to-.*\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8').replace(/^\ufeff/, '').trimEnd().split('\r\n');
    expect(csv[0]).toBe('id,created_at,type,amount_cents,balance_after_cents,resource_type,resource_id,description');
    const all = await statement();
    expect(csv.slice(1).map((l) => l.split(',')[2])).toEqual(all.map((m) => m.type));
    expect(csv[1].split(',')[4]).toBe(String(all[0].balance_after));

    // the export needs the session: without the cookie it is refused
    expect((await fetch(`${srv.url}/api/statement.csv`)).status).toBe(401);
  });
});
