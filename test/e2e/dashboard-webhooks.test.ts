import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startServer, type RunningServer } from '../support/server';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Issue 15 item 9 in Chromium: the Webhooks page operates an endpoint (test event, attempts with the
 * receiver's status and answer, payload, failed-only filter, resend feedback, edit, pause/resume,
 * reveal and rotate behind the password). Screenshots at desktop and phone width go to test/artifacts/.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'test/artifacts');
const CHROMIUM = '/usr/bin/chromium';
const WAIT = { timeout: 20_000 };

let srv: RunningServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let receiver: Receiver;

async function shot(p: Page, name: string) {
  await p.evaluate(() => window.scrollTo(0, 0));
  await p.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
const see = (p: Page, selector: string) => p.locator(selector).first().waitFor({ state: 'visible', ...WAIT });

beforeAll(async () => {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) throw new Error('No production build of the pages: run `npx next build` before the browser tests.');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  receiver = await startReceiver((r) => (r.path.startsWith('/down') ? { status: 503, body: '{"error":"receiver is down for maintenance"}' } : { status: 200, body: '{"received":true}' }));
  srv = await startServer({ pages: true, env: { WEBHOOK_RETRY_SCHEDULE: '0' } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  page = await ctx.newPage();
  await page.goto(`${srv.url}/sign-in`);
  await page.getByLabel('E-mail').fill(srv.demo.email);
  await page.getByLabel('Senha').fill(srv.demo.password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.waitForURL(`${srv.url}/`, WAIT);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
  await receiver?.close();
});

describe('operating a webhook on the Webhooks page', { timeout: 90_000 }, () => {
  let secret = '';

  it('creates an endpoint whose receiver is down: the test event shows the 503 and its answer, the payload, the failed filter', async () => {
    await page.goto(`${srv.url}/webhooks`);
    await see(page, 'text=No webhooks yet');
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/down`);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.getByTestId('webhook-secret').locator('code');
    await expect.poll(() => shown.textContent(), WAIT).toMatch(/^whsec_/);
    secret = (await shown.textContent())!;
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    // the list shows the secret masked
    const endpoint = page.getByTestId('webhook');
    await expect.poll(() => endpoint.getByTestId('masked-secret').textContent(), WAIT).toBe(`whsec_…${secret.slice(-4)}`);

    await endpoint.getByRole('button', { name: 'Send test event' }).click();
    await see(page, 'text=Test event queued');
    const delivery = page.getByTestId('delivery').filter({ hasText: 'webhook.test' }).first();
    await delivery.locator('[data-status=FAILED]').waitFor(WAIT);
    const attempt = delivery.getByTestId('attempt').first();
    expect(await attempt.textContent()).toMatch(/503/);
    expect(await attempt.getByTestId('answer').textContent()).toBe('{"error":"receiver is down for maintenance"}');
    await delivery.getByText('Payload sent').click();
    const payload = JSON.parse((await delivery.getByTestId('payload').textContent())!);
    expect(payload).toMatchObject({ type: 'webhook.test', data: { url: `${receiver.url}/down` } });
    // the receiver got exactly that, signed with the secret shown at creation
    const got = receiver.received.find((r) => r.headers['webhook-id'] === payload.id)!;
    expect(JSON.parse(got.body)).toEqual(payload);
    new Webhook(secret).verify(got.body, got.headers);
    await shot(page, 'webhooks-operate-failed');

    await page.getByLabel('Only failed deliveries').check();
    await expect.poll(() => page.getByTestId('delivery').count(), WAIT).toBe(1);
  });

  it('edits the URL, resends the failed delivery with feedback, and it is delivered', async () => {
    const endpoint = page.getByTestId('webhook');
    await endpoint.getByRole('button', { name: 'Edit' }).click();
    await endpoint.getByLabel('Endpoint URL').fill('not a url');
    await endpoint.getByRole('button', { name: 'Save changes' }).click();
    await see(page, '.field-error');
    await endpoint.getByLabel('Endpoint URL').fill(`${receiver.url}/up`);
    await endpoint.getByRole('button', { name: 'Save changes' }).click();
    await see(page, 'text=Endpoint updated.');
    await see(page, `[data-testid=webhook] >> text=${receiver.url}/up`);

    await endpoint.getByRole('button', { name: 'Deliveries' }).click();
    const failed = page.getByTestId('delivery').first();
    await failed.locator('[data-status=FAILED]').waitFor(WAIT);
    const before = receiver.received.filter((r) => r.path === '/up').length;
    await failed.getByRole('button', { name: 'Resend' }).click();
    await see(page, '[data-testid=resend-feedback]');
    expect(await page.getByTestId('resend-feedback').textContent()).toMatch(/Resend queued/);
    await failed.locator('[data-status=DELIVERED]').waitFor(WAIT);
    expect(await failed.getByTestId('attempt').count()).toBe(2);
    expect(await failed.getByTestId('attempt').nth(1).getByTestId('answer').textContent()).toBe('{"received":true}');
    expect(receiver.received.filter((r) => r.path === '/up').length).toBe(before + 1);
    await shot(page, 'webhooks-operate-resent');
  });

  it('pauses (no test while paused) and resumes', async () => {
    const endpoint = page.getByTestId('webhook');
    await endpoint.getByRole('button', { name: 'Pause' }).click();
    await endpoint.locator('[data-status=PAUSED]').waitFor(WAIT);
    await see(page, 'text=Paused: nothing is delivered');
    expect(await endpoint.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await shot(page, 'webhooks-operate-paused');
    await endpoint.getByRole('button', { name: 'Resume' }).click();
    await endpoint.locator('[data-status=ACTIVE]').waitFor(WAIT);
    expect(await endpoint.getByRole('button', { name: 'Send test event' }).isEnabled()).toBe(true);
  });

  it('reveals the secret with the password, rotates it (both secrets sign for a while), refuses a wrong password', async () => {
    const endpoint = page.getByTestId('webhook');
    await endpoint.getByRole('button', { name: 'Reveal secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reveal the signing secret' });
    await dialog.waitFor(WAIT);
    await dialog.getByLabel('Your password').fill(srv.demo.password);
    await dialog.getByRole('button', { name: 'Reveal secret' }).click();
    await expect.poll(() => dialog.getByTestId('revealed-secret').locator('code').textContent(), WAIT).toBe(secret);
    await shot(page, 'webhooks-operate-revealed');
    await dialog.getByRole('button', { name: 'Done, hide it' }).click();
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    expect(await page.content()).not.toContain(secret);

    await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret' });
    await rotate.getByLabel('Your password').fill(srv.demo.password);
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const fresh = rotate.getByTestId('revealed-secret').locator('code');
    await expect.poll(() => fresh.textContent(), WAIT).toMatch(/^whsec_/);
    const newSecret = (await fresh.textContent())!;
    expect(newSecret).not.toBe(secret);
    await rotate.getByRole('button', { name: 'Done, hide it' }).click();
    await see(page, 'text=the previous secret also signs until');

    await endpoint.getByRole('button', { name: 'Send test event' }).click();
    await see(page, 'text=Test event queued');
    await expect.poll(() => receiver.received.filter((r) => r.body.includes('webhook.test') && r.headers['webhook-signature'].includes(' ')).length, WAIT).toBe(1);
    const got = receiver.received.find((r) => r.headers['webhook-signature'].includes(' '))!;
    new Webhook(newSecret).verify(got.body, got.headers);
    new Webhook(secret).verify(got.body, got.headers);
    await shot(page, 'webhooks-operate');

    // a wrong password reveals nothing (last: it counts as a failed sign-in from this address)
    await endpoint.getByRole('button', { name: 'Reveal secret' }).click();
    const again = page.getByRole('dialog', { name: 'Reveal the signing secret' });
    await again.getByLabel('Your password').fill('not-my-password');
    await again.getByRole('button', { name: 'Reveal secret' }).click();
    await see(page, 'dialog >> text=Senha incorreta');
    expect(await page.content()).not.toContain(newSecret);
    await shot(page, 'webhooks-operate-wrong-password');
  });

  it('fits a phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'pt-BR', storageState: await ctx.storageState() });
    const p = await phone.newPage();
    await p.goto(`${srv.url}/webhooks`);
    const endpoint = p.getByTestId('webhook');
    await endpoint.getByRole('button', { name: 'Deliveries' }).click();
    await p.getByTestId('delivery').first().waitFor(WAIT);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(p, 'webhooks-operate-phone');
    await phone.close();
  });
});
