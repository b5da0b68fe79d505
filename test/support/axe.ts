import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's own bundle, injected into the page under test (no CDN, no network). */
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The rules of WCAG 2.0 and 2.1, levels A and AA, as axe-core tags them. */
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeNode { target: string[]; failureSummary?: string }
interface AxeViolation { id: string; impact: string | null; help: string; nodes: AxeNode[] }

/**
 * The serious and critical WCAG 2.1 AA violations axe-core finds on the page as it stands, one line each
 * (rule, impact, how many elements, the first few selectors). The page's context must be made with
 * `bypassCSP: true`: the script is injected inline, which the dashboard's CSP otherwise refuses.
 * `exclude`: selectors of regions that are not ours to fix (a third party's widget).
 */
export async function axeViolations(p: Page, o: { exclude?: string[] } = {}): Promise<string[]> {
  if (!(await p.evaluate(() => 'axe' in window))) await p.addScriptTag({ path: AXE_PATH });
  const violations = await p.evaluate(async ({ tags, exclude }) => {
    const axe = (window as unknown as { axe: { run(ctx: object, o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run({ include: [['html']], exclude: exclude.map((s) => [s]) }, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target.map(String) })) }));
  }, { tags: WCAG_21_AA, exclude: o.exclude ?? [] });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.help}): ${v.nodes.length} element(s): ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ')}`);
}
