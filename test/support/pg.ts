import { migratePostgres } from '../../db/pg/migrate';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../db/pg/throwaway';

export type { ThrowawayPostgres } from '../../db/pg/throwaway';

/**
 * One throwaway PostgreSQL per test file (start it in beforeAll, `stop()` in afterAll): with
 * `migrated`, its database has db/pg/migrations applied. Never skipped: without PostgreSQL this throws
 * the install command (scripts/test.sh and .ci/run install Debian's package first).
 */
export async function startTestPostgres(o: { migrated?: boolean } = {}): Promise<ThrowawayPostgres> {
  const server = await startThrowawayPostgres();
  try {
    if (o.migrated) await migratePostgres(server.url);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}
