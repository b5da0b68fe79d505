import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // *.alone.test.ts: vitest.alone.config.ts runs them after the rest, one at a time
    // PostgreSQL only (the cluster runs on PostgreSQL; the database taken away is a PostgreSQL): vitest.pg.config.ts runs them
    exclude: [...configDefaults.exclude, 'test/**/*.alone.test.ts', 'test/e2e/cluster*.test.ts', 'test/e2e/database-lost.test.ts', 'test/unit/pg-rate-limits.test.ts'],
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
