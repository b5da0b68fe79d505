import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * Tests whose timings are the point (a million-line ledger audited while probes are timed): they run
 * after the others, one file at a time with nothing beside them, so they measure the server and not
 * whatever else the two cores were doing. Name such a file `*.alone.test.ts`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/**/*.alone.test.ts'],
    exclude: [],
    maxWorkers: 1,
    fileParallelism: false,
  },
});
