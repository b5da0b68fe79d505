import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suites that also run against PostgreSQL (`npm test` runs them after the SQLite run): each file
 * gets its own throwaway cluster (test/support/pg-setup.ts). A file is listed here once it passes there.
 */
export const PG_FILES = [
  'test/e2e/withdrawals-concurrency.test.ts',
  'test/e2e/webhooks-flow.test.ts',
  'test/e2e/pix-keys.test.ts',
  'test/e2e/edge.test.ts',
  'test/e2e/client-retries.test.ts',
  'test/e2e/withdrawals.test.ts',
  'test/e2e/disputes-balance.test.ts',
  'test/e2e/client-package.test.ts',
  'test/e2e/charge-concurrency.test.ts',
  'test/e2e/webhook-cap.test.ts',
  'test/e2e/audit-command.test.ts',
  // background work claimed row by row: two instances (two Services) over one database
  'test/api/background-claims.test.ts',
  // 3 instances behind HAProxy (npm run cluster) on this file's cluster
  'test/e2e/cluster.test.ts',
  // kill -9 one of the 3 instances mid-burst: the others take its claimed work over
  'test/e2e/cluster-failover.test.ts',
];

// (not mergeConfig: it would append these files to the SQLite run's include instead of replacing it)
export default defineConfig({
  ...base,
  test: { ...base.test, include: PG_FILES, exclude: configDefaults.exclude, setupFiles: ['test/support/pg-setup.ts'] },
});
