import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium for the dashboard tests: never a downloaded browser, no traffic off the machine. */
const ROOT = new URL('../..', import.meta.url).pathname;
export const ARTIFACTS = join(ROOT, 'test/artifacts');
const CHROMIUM = '/usr/bin/chromium';
export const WAIT = { timeout: 20_000 };

/** Checks the pages are built and the browser is there, then launches it headless. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(join(ROOT, '.next/BUILD_ID'))) {
    throw new Error('No production build of the pages (.next/BUILD_ID is missing): run `npx next build` before the browser tests.');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** No fixed sleeps: the next condition on the page is awaited. */
export const see = (p: Page, selector: string) => p.locator(selector).first().waitFor({ state: 'visible', ...WAIT });

/** A full-page picture in test/artifacts/ for a person to look at. */
export async function shot(p: Page, name: string) {
  await p.evaluate(() => window.scrollTo(0, 0)); // the sticky header stays at the top of the picture
  await p.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Signs the demo user in through the form, as a person would. The form itself waits out a 429's
 * retry-after (the per-email delay after a wrong password), so this only waits for the home page.
 */
export async function signIn(p: Page, url: string, who: { email: string; password: string }) {
  await p.goto(`${url}/sign-in`);
  await p.getByLabel('E-mail').fill(who.email);
  await p.getByLabel('Senha').fill(who.password);
  await p.getByRole('button', { name: 'Entrar' }).click();
  await p.waitForURL(`${url}/`, WAIT);
}
