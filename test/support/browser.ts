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
 * Signs in through the Portuguese sign-in form. After a failed password the address waits a growing
 * delay per email (429 meanwhile), so the button is clicked again, as a person would, until the page
 * leaves /sign-in: a condition, not a sleep.
 */
export async function signIn(p: Page, baseUrl: string, email: string, password: string) {
  await p.goto(`${baseUrl}/sign-in`);
  await p.getByLabel('E-mail').fill(email);
  await p.getByLabel('Senha').fill(password);
  const deadline = Date.now() + WAIT.timeout;
  while (new URL(p.url()).pathname === '/sign-in') {
    if (Date.now() > deadline) throw new Error('still on /sign-in: the demo user could not sign in');
    await p.getByRole('button', { name: 'Entrar' }).click({ timeout: 2_000 }).catch(() => {});
    await p.waitForURL((u) => u.pathname !== '/sign-in', { timeout: 2_000 }).catch(() => {});
  }
}

/**
 * Catalog texts of `namespaces` that the page shows in English although the page speaks Portuguese:
 * every English text that differs from its Portuguese one (its words before a placeholder) is looked
 * for as whole words in the visible text, leaving out code, ids and the receiver's answers (<code>,
 * <pre>, .mono), which are data, not labels. Also any status code of the API in capitals.
 */
export async function englishLeft(p: Page, namespaces: string[]): Promise<string[]> {
  const { CATALOGS } = await import('../../messages');
  const leaves = (o: unknown): string[] => Object.values(o as Record<string, unknown>).flatMap((v) => (typeof v === 'string' ? [v] : leaves(v)));
  const pairs = namespaces.flatMap((ns) => {
    const en = leaves((CATALOGS.en as Record<string, unknown>)[ns]);
    const pt = new Set(leaves((CATALOGS['pt-BR'] as Record<string, unknown>)[ns]));
    return en.filter((s) => !pt.has(s));
  });
  const probes = [...new Set(pairs.map((s) => s.split(/[{<]/)[0].trim()).filter((s) => s.length >= 4))];
  const text = await p.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    copy.querySelectorAll('code, pre, .mono, script, style, noscript').forEach((e) => e.remove());
    return copy.textContent ?? '';
  });
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = probes.filter((s) => new RegExp(`(^|[^\\p{L}])${escape(s)}($|[^\\p{L}])`, 'u').test(text));
  const codes = text.match(/\b(PENDING|PAID|ERROR|FAILED|DELIVERED|APPROVED|ACTIVE|PAUSED|INACTIVE|OPEN|LOST|cents)\b/g) ?? [];
  return [...found, ...codes];
}
