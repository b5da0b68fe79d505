import { afterAll, inject } from 'vitest';
import { testDatabases } from './pg';
import { TEST_POSTGRES } from './server';

/**
 * vitest.pg.config.ts's setup: the test file runs against PostgreSQL, on a migrated database of its own
 * on the run's cluster (test/support/pg-global.ts). DATABASE_URL is set before the file imports
 * anything of the app (db/dialect.ts reads it at load), so the file's own database handles and every
 * server it starts (test/support/server.ts passes the environment on) use PostgreSQL.
 */
const databases = testDatabases(inject('testPostgresBase'));
process.env.DATABASE_URL = await databases.createDatabase('file');
// every server a test starts, and every makeTestServices, gets a database of its own (test/support/server.ts)
(globalThis as Record<symbol, unknown>)[TEST_POSTGRES] = databases;
afterAll(() => databases.dropAll());
