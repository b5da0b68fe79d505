// @engines none: reads the test files' first lines, opens no database (runs once)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredEngines, testFilesFor } from '../support/engines';

describe('which engines a test file runs on', () => {
  it('is both unless the first line says otherwise, with a reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pix-engines-'));
    const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };
    expect(declaredEngines(file('a.test.ts', "import { it } from 'vitest';\n"))).toBe('both');
    expect(declaredEngines(file('b.test.ts', '// @engines sqlite: reads the file\n'))).toBe('sqlite');
    expect(declaredEngines(file('c.test.ts', '// @engines postgres: a cluster\n'))).toBe('postgres');
    expect(declaredEngines(file('d.test.ts', '// @engines none: pure\n'))).toBe('none');
    // a marker without its reason, or a misspelt engine, stops the run instead of silently choosing
    expect(() => declaredEngines(file('e.test.ts', '// @engines sqlite\n'))).toThrow(/must read/);
    expect(() => declaredEngines(file('f.test.ts', '// @engines pg: x\n'))).toThrow(/must read/);
  });

  it('puts every file of the repository in at least one run, and both-engine files in both', () => {
    const sqlite = new Set(testFilesFor('sqlite'));
    const postgres = new Set(testFilesFor('postgres'));
    expect(postgres.has('test/e2e/withdrawals.test.ts') && sqlite.has('test/e2e/withdrawals.test.ts')).toBe(true);
    expect(postgres.has('test/e2e/cluster.test.ts') && !sqlite.has('test/e2e/cluster.test.ts')).toBe(true);
    expect(sqlite.has('test/unit/cards.test.ts') && !postgres.has('test/unit/cards.test.ts')).toBe(true);
    expect(sqlite.has('test/unit/engines.test.ts')).toBe(true);
  });
});
