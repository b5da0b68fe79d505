import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which engines a test file runs on, by rule: every file under test/ runs on both SQLite (the first
 * run) and PostgreSQL (the second), unless its first line says otherwise, with the reason:
 *
 *   // @engines sqlite: <why>     SQLite's run only
 *   // @engines postgres: <why>   PostgreSQL's run only
 *   // @engines none: <why>       no database of the run's (a pure unit test, or one that starts its own
 *                                 PostgreSQL): once, in the first run
 *
 * A new test therefore runs on PostgreSQL unless it says why not; nobody has to remember a list.
 * `*.alone.test.ts` files (vitest.alone.config.ts) follow the same rule for the run they join.
 */
export type Engine = 'sqlite' | 'postgres';
type Declared = Engine | 'none' | 'both';

const MARKER = /^\/\/ @engines (sqlite|postgres|none): \S/;

function testFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFilesUnder(path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

export function declaredEngines(file: string): Declared {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  if (!first.startsWith('// @engines')) return 'both';
  const m = MARKER.exec(first);
  if (!m) throw new Error(`${file}: the first line must read "// @engines sqlite|postgres|none: <why>"`);
  return m[1] as Declared;
}

/** The test files of one engine's run (alone: the `*.alone.test.ts` ones, else the others). */
export function testFilesFor(engine: Engine, o: { alone?: boolean } = {}): string[] {
  return testFilesUnder('test').filter((f) => f.endsWith('.alone.test.ts') === Boolean(o.alone)).filter((f) => {
    const d = declaredEngines(f);
    return d === 'both' || d === engine || (d === 'none' && engine === 'sqlite');
  });
}
