import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config';
import { testFilesFor } from './test/support/engines';

/**
 * The second run, on PostgreSQL: every test file whose first line does not say otherwise
 * (test/support/engines.ts has the rule: default both engines), on one throwaway cluster for the run
 * (test/support/pg-global.ts) with a database per file and per server (test/support/pg-setup.ts,
 * test/support/server.ts).
 */
export const PG_FILES = testFilesFor('postgres');

// (not mergeConfig: it would append these files to the SQLite run's include instead of replacing it)
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: PG_FILES,
    exclude: configDefaults.exclude,
    globalSetup: ['test/support/pg-global.ts'],
    setupFiles: ['test/support/pg-setup.ts', 'test/support/openapi-check.ts'],
  },
});
