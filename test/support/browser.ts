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
  return catalogLeft(p, { shown: 'pt-BR', other: 'en' }, namespaces);
}

/**
 * Texts of the `other` language's catalog (in `namespaces`, or all of them) that a page speaking
 * `shown` still shows: each text of `other` found in no catalog entry of `shown` (its words before a
 * placeholder, 4 letters or more) is looked for as whole words in the visible text, leaving out code,
 * ids and the receiver's answers (<code>, <pre>, .mono), which are data. Also any status code of the
 * API in capitals, and cents.
 */
export async function catalogLeft(p: Page, langs: { shown: 'pt-BR' | 'en'; other: 'pt-BR' | 'en' }, namespaces?: string[]): Promise<string[]> {
  const probes = await catalogProbes(langs, namespaces);
  const text = await visibleText(p);
  const found = probes.filter((s) => text.includes(s) && wholeWords(s).test(text));
  const codes = text.match(/\b(PENDING|PAID|ERROR|FAILED|DELIVERED|APPROVED|REFUSED|ACTIVE|PAUSED|INACTIVE|OPEN|LOST|WON|PARTIALLY_PAID|cents)\b/g) ?? [];
  return [...found, ...codes];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `s` as whole words (no letter right before or after it). */
const wholeWords = (s: string) => new RegExp(`(^|[^\\p{L}])${escape(s)}($|[^\\p{L}])`, 'u');

/**
 * The texts catalogLeft looks for: a pure function of the catalogs, so computed once per process and
 * language pair (about 600 probes against 850 texts: seconds each time on a loaded machine). A text's
 * plain `includes` is checked before its whole-word expression: the expression cannot match where the
 * text is not a substring.
 */
const probeCache = new Map<string, Promise<string[]>>();
function catalogProbes(langs: { shown: 'pt-BR' | 'en'; other: 'pt-BR' | 'en' }, namespaces?: string[]): Promise<string[]> {
  const key = JSON.stringify([langs.shown, langs.other, namespaces ?? null]);
  let probes = probeCache.get(key);
  if (!probes) {
    probes = import('../../messages').then(({ CATALOGS }) => {
      const leaves = (o: unknown): string[] => Object.values(o as Record<string, unknown>).flatMap((v) => (typeof v === 'string' ? [v] : leaves(v)));
      const of = (lang: 'pt-BR' | 'en', only?: string[]) => {
        const cat = CATALOGS[lang] as Record<string, unknown>;
        return (only ?? Object.keys(cat)).flatMap((ns) => leaves(cat[ns]));
      };
      const shownTexts = of(langs.shown);
      const shownSet = new Set(shownTexts);
      const pairs = of(langs.other, namespaces).filter((s) => !shownSet.has(s));
      return [...new Set(pairs.map((s) => s.split(/[{<]/)[0].trim()).filter((s) => s.length >= 4))]
        // a text that is also a word or phrase of the shown language's catalog is not a leftover ("Pix", "Total")
        .filter((s) => { const words = wholeWords(s); return !shownTexts.some((t) => t.includes(s) && words.test(t)); });
    });
    probeCache.set(key, probes);
  }
  return probes;
}

/** The page's visible words, without code, ids and data shown as code (<code>, <pre>, .mono). */
export async function visibleText(p: Page): Promise<string> {
  return p.evaluate(() => {
    // each text node on its own, so words of neighbouring cells never run together
    const skip = 'code, pre, .mono, script, style, noscript, [hidden], [aria-hidden=true]';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const parts: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.parentElement?.closest(skip) && n.textContent?.trim()) parts.push(n.textContent.trim());
    }
    return parts.join('\n');
  });
}

/**
 * Raw API codes on screen: snake_case codes (card_declined), event names (transaction.approved),
 * enum codes in capitals (KEY_NOT_FOUND, PARTIALLY_PAID), and figures in cents ("1000 cents").
 */
export async function rawCodesLeft(p: Page): Promise<string[]> {
  const text = await visibleText(p);
  return [
    ...(text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? []),
    ...(text.match(/\b(?:transaction|withdrawal|dispute|refund|webhook|delivery)\.[a-z_.]+\b/g) ?? []),
    ...(text.match(/\b[A-Z]{3,}(?:_[A-Z]+)+\b/g) ?? []),
    ...(text.match(/\b\d+\s*(?:cents?|centavos)\b/gi) ?? []),
  ];
}

/**
 * Elements that reach past the viewport's right edge (a page wider than the screen, a cut-off label):
 * each visible element whose box ends beyond the width, unless an ancestor scrolls or clips sideways;
 * and each box that clips or scrolls sideways with content hidden in it (a table wider than its
 * card, a word cut off), except code blocks. Also the document itself scrolling sideways.
 */
export async function overflowing(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width + 1) out.push(`document is ${document.documentElement.scrollWidth}px wide in ${width}px`);
    const clipped = (el: Element): boolean => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') return true;
      }
      return false;
    };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.display === 'none' || st.position === 'fixed') continue;
      // content cut off inside a box that clips or scrolls sideways (a code block may scroll)
      const ox = st.overflowX;
      if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') && el.clientWidth > 2 && el.scrollWidth > el.clientWidth + 1 && !el.closest('pre, code')) { // (not a 1-px screen-reader text)
        out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)} hides ${el.scrollWidth - el.clientWidth}px of "${(el.textContent ?? '').trim().slice(0, 40)}" sideways`);
      }
      if (r.right > width + 1 && !clipped(el)) out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)} "${(el.textContent ?? '').trim().slice(0, 40)}" ends at ${Math.round(r.right)}px`);
    }
    return out.slice(0, 10);
  });
}
