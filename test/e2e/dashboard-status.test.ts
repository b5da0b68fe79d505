// @engines sqlite: a browser test; the pages are the same over both engines, and the procedures under them run on both in the API suites
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, removeDir, startServer, type RunningServer } from '../support/server';

/** The Status page in Chromium: the readiness checks, through the dashboard's procedure. */
const ROOT = new URL('../..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';
const WAIT = { timeout: 20_000 };

let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) throw new Error('run `npx next build` before the browser tests');
  srv = await startServer({ pages: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('Status page', () => {
  it('is only for a signed-in person', async () => {
    expect((await api(srv.url, '/api/trpc/status.readiness')).status).toBe(401);
  });

  it('shows each readiness check and the overall state', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'pt-BR' });
    const page = await ctx.newPage();
    await page.goto(`${srv.url}/sign-in`);
    await page.getByLabel('E-mail').fill(srv.demo.email);
    await page.getByLabel('Senha').fill(srv.demo.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(`${srv.url}/`, WAIT);
    await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Status' }).click();
    await page.waitForURL(`${srv.url}/status`, WAIT);
    await expect.poll(() => page.getByTestId('readiness').textContent(), WAIT).toBe('Pronto: todas as verificações passam.');
    for (const check of ['shutdown', 'database', 'migrations', 'writer', 'jobs', 'ledger']) {
      await expect.poll(() => page.locator(`tr[data-check="${check}"] .badge`).textContent(), WAIT).toBe('OK');
    }
    expect(await page.locator('tr[data-check="ledger"] th').textContent()).toBe('Auditoria do razão');
    mkdirSync(join(ROOT, 'test/artifacts'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'test/artifacts/status.png'), fullPage: true });
    await ctx.close();
  });
});
