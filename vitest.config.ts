import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { testFilesFor } from './test/support/engines';

/**
 * The first run, on SQLite: every test file except those whose first line says PostgreSQL only
 * (test/support/engines.ts has the rule); `*.alone.test.ts` run after it, one at a time
 * (vitest.alone.config.ts).
 */
export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: testFilesFor('sqlite'),
    exclude: configDefaults.exclude,
    environment: 'node',
    // every answer a test gets from our server is checked against its /openapi.json
    setupFiles: ['test/support/openapi-check.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // e2e files start real servers; two cores, so keep parallelism modest
    maxWorkers: 2,
  },
});
