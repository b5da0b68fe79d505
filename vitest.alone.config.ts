import { defineConfig } from 'vitest/config';
import base from './vitest.config';
import { testFilesFor } from './test/support/engines';

/**
 * Tests whose timings are the point (a million-line ledger audited while probes are timed): they run
 * after the others, one file at a time with nothing beside them, so they measure the server and not
 * whatever else the two cores were doing. Name such a file `*.alone.test.ts`; its engines follow the
 * same rule as every file (test/support/engines.ts): this is SQLite's, vitest.pg.alone.config.ts
 * PostgreSQL's.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: testFilesFor('sqlite', { alone: true }),
    exclude: [],
    maxWorkers: 1,
    fileParallelism: false,
  },
});
