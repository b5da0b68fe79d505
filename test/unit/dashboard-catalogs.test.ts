// @engines none: a unit test with no database (runs once)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_LOCALES } from '../../db/schema/accounts';
import { CATALOGS } from '../../messages';

const DIR = new URL('../../messages', import.meta.url).pathname;

/** Every leaf of a catalog as "a.b.c" → text. */
function leaves(o: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(path, v);
    else for (const [p, s] of leaves(v, path)) out.set(p, s);
  }
  return out;
}

// a placeholder is a lower-case name ({amount}, {kind, select, …}); a select branch's text ({Charge}) is not one
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{([a-z]\w*)(?=[,}])/g)].map((m) => m[1]))].sort();

describe('dashboard catalogs', () => {
  it('has one file per namespace in each language, all of them loaded', () => {
    for (const locale of DASHBOARD_LOCALES) {
      const files = readdirSync(join(DIR, locale)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
      expect(files, locale).toEqual(Object.keys(CATALOGS[locale]).sort());
      for (const f of files) expect(() => JSON.parse(readFileSync(join(DIR, locale, `${f}.json`), 'utf8')), `${locale}/${f}`).not.toThrow();
    }
  });

  it('gives English exactly the keys of Portuguese, with the same placeholders, and no empty text', () => {
    const pt = leaves(CATALOGS['pt-BR']);
    const en = leaves(CATALOGS.en);
    expect([...en.keys()].sort()).toEqual([...pt.keys()].sort());
    for (const [key, text] of pt) {
      expect(text.trim(), key).not.toBe('');
      expect(placeholders(en.get(key)!), key).toEqual(placeholders(text));
    }
  });

  it('never uses a dot inside a key (next-intl reads dots as nesting)', () => {
    for (const locale of DASHBOARD_LOCALES) {
      for (const key of leaves(CATALOGS[locale]).keys()) expect(key.split('.').every((part) => part.length > 0), key).toBe(true);
    }
  });
});
