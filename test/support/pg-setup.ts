import { afterAll } from 'vitest';
import { startTestPostgres } from './pg';
import { TEST_POSTGRES } from './server';

/**
 * vitest.pg.config.ts's setup: the test file runs against PostgreSQL. One throwaway cluster per file,
 * migrated, and DATABASE_URL set before the file imports anything of the app (db/dialect.ts reads it at
 * load), so the file's own database handles and every server it starts (test/support/server.ts passes
 * the environment on) use it.
 */
const cluster = await startTestPostgres({ migrated: true });
process.env.DATABASE_URL = cluster.url;
// every server a test starts gets a database of its own on this cluster (test/support/server.ts)
(globalThis as Record<symbol, unknown>)[TEST_POSTGRES] = cluster;
afterAll(() => cluster.stop());
