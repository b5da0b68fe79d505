import { defineConfig } from 'vitest/config';
import pg from './vitest.pg.config';
import { testFilesFor } from './test/support/engines';

/** The timing tests on PostgreSQL (`*.alone.test.ts`), after its other files, one at a time (see vitest.alone.config.ts). */
export default defineConfig({
  ...pg,
  test: {
    ...pg.test,
    include: testFilesFor('postgres', { alone: true }),
    maxWorkers: 1,
    fileParallelism: false,
  },
});
