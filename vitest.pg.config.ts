import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suites that also run against PostgreSQL (`npm test` runs them after the SQLite run), on one
 * throwaway cluster for the run (test/support/pg-global.ts) with a database per file and per server
 * (test/support/pg-setup.ts, test/support/server.ts). A file is listed here once it passes there.
 */
export const PG_FILES = [
  // domain
  'test/unit/ledger.test.ts',
  'test/unit/idempotency.test.ts',
  // API (tRPC callers and the REST adapter over makeTestServices)
  'test/api/auth.test.ts',
  'test/api/dashboard-session.test.ts',
  'test/api/dashboard-credentials.test.ts',
  'test/api/errors.test.ts',
  'test/api/idempotent-rechecks.test.ts',
  'test/api/output-validation.test.ts',
  'test/api/pix-keys.test.ts',
  'test/api/procedure-call.test.ts',
  'test/api/refunds.test.ts',
  'test/api/rest-adapter.test.ts',
  'test/api/statement.test.ts',
  'test/api/status.test.ts',
  'test/api/transactions.test.ts',
  'test/api/webhooks.test.ts',
  'test/api/withdrawals.test.ts',
  'test/api/job-context.test.ts',
  // 100 k charges and withdrawals of one name: word searches read a bounded number of rows (issue 23)
  'test/api/search-bounded.test.ts',
  // end to end: the real server over HTTP
  'test/e2e/withdrawals-concurrency.test.ts',
  'test/e2e/webhooks-flow.test.ts',
  'test/e2e/pix-keys.test.ts',
  'test/e2e/edge.test.ts',
  'test/e2e/connection-limits.test.ts',
  'test/e2e/csv-exports.test.ts',
  'test/e2e/client-retries.test.ts',
  'test/e2e/withdrawals.test.ts',
  'test/e2e/disputes-balance.test.ts',
  'test/e2e/client-package.test.ts',
  'test/e2e/credential-limits.test.ts',
  'test/e2e/foundation.test.ts',
  'test/e2e/operations.test.ts',
  'test/e2e/refunds-statement.test.ts',
  'test/e2e/transactions.test.ts',
  'test/e2e/webhooks-api.test.ts',
  'test/e2e/webhooks-operate.test.ts',
  'test/e2e/webhooks-restart.test.ts',
  'test/e2e/webhooks-worker.test.ts',
  'test/e2e/withdrawals-restart.test.ts',
  'test/e2e/charge-concurrency.test.ts',
  'test/e2e/webhook-cap.test.ts',
  // one merchant's stalled receiver against another's delivery: the caps and the fair claim
  'test/e2e/fair-delivery.test.ts',
  'test/e2e/audit-command.test.ts',
  // a database made by release 0.1.0, upgraded at start; a newer database and a failing migration refused
  'test/e2e/upgrade.test.ts',
  // background work claimed row by row: two instances (two Services) over one database
  'test/api/background-claims.test.ts',
  'test/api/delivery-claims.test.ts',
  'test/api/work-signal.test.ts',
  // 3 instances behind HAProxy (npm run cluster) on this file's database
  'test/e2e/cluster.test.ts',
  // kill -9 one of the 3 instances mid-burst: the others take its claimed work over
  'test/e2e/cluster-failover.test.ts',
  'test/e2e/database-lost.test.ts',
  // the limits as rows every instance shares: GCRA, attempt windows, sign-in delays (PostgreSQL only)
  'test/unit/pg-rate-limits.test.ts',
  // 2 instances on one database: together they accept the configured rate, and count sign-in failures together
  'test/e2e/cluster-limits.test.ts',
  // 3 instances all delivering webhooks: each event once, in order per resource, shared between them
  'test/e2e/cluster-deliveries.test.ts',
  // kill -9 an instance holding sends at the receiver: the survivors send them again after its lease
  'test/e2e/cluster-delivery-failover.test.ts',
];

/** The files that run on SQLite only, and why (everything else under test/ that is not listed above is a pure unit test with no database). */
export const SQLITE_ONLY = {
  'test/api/index-plans.test.ts': "asserts SQLite's EXPLAIN QUERY PLAN output",
  'test/api/statement-scale.test.ts': "seeds a million lines with SQLite SQL (printf, strftime) and asserts SQLite's query plans",
  'test/api/search-scale.test.ts': "seeds with SQLite SQL and asserts SQLite's query plans",
  'test/api/withdrawals-list-scale.test.ts': "seeds with SQLite SQL and asserts SQLite's query plans",
  'test/unit/audit.test.ts': 'forges ledger breaks with a raw SQLite connection behind the triggers (PostgreSQL would need them disabled; the audit runs on PostgreSQL in operations and cluster tests)',
  'test/unit/search-words.test.ts': "SQLite's word triggers over an in-memory database (the PostgreSQL triggers run under the API search tests here)",
  'test/unit/file-modes.test.ts': "the database file's permissions",
  'test/unit/writer.test.ts': "SQLite's group-commit writer (test/unit/pg-writer.test.ts covers PostgreSQL's)",
  'test/e2e/restore-drill.test.ts': "backup and restore copy SQLite's file (refused on PostgreSQL, tested in engine-at-start)",
  'test/e2e/engine-at-start.test.ts': 'starts PostgreSQL clusters of its own from the SQLite run',
  'test/e2e/dashboard*.test.ts': 'browser tests: the pages are the same over both engines and the API under them runs here',
} as const;

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
