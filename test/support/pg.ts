import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { migratePostgres } from '../../db/pg/migrate';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../scripts/lib/throwaway-postgres';

export type { ThrowawayPostgres } from '../../scripts/lib/throwaway-postgres';

/** The migrated database every test database is copied from (test/support/pg-global.ts). */
export const TEMPLATE_DATABASE = 'pix_template';

/**
 * One throwaway PostgreSQL of a file's own (start it in beforeAll, `stop()` in afterAll), for a file
 * that must control the server itself (stop it, refuse connections): with `migrated`, its database has
 * db/pg/migrations applied. Never skipped: without PostgreSQL this throws the install command
 * (scripts/test.sh and .ci/run install Debian's package first).
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

/** Databases of the run's shared cluster, made by one test file, dropped when it ends. */
export interface TestDatabases {
  /** A new migrated database (a copy of the template); its URL. `hint` only makes the name readable. */
  createDatabase(hint: string): Promise<string>;
  /** Drops every database this file made (connections still open are closed by force). */
  dropAll(): Promise<void>;
}

export function testDatabases(base: string): TestDatabases {
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  const made: string[] = [];
  return {
    async createDatabase(hint) {
      const name = `${hint.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;
      // a copy of the template is refused while another session is still copying it: try again
      for (let attempt = 0; ; attempt++) {
        try {
          await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
          break;
        } catch (err) {
          if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
          await new Promise((r) => setTimeout(r, 50 + attempt * 50));
        }
      }
      made.push(name);
      return `${base}/${name}`;
    },
    async dropAll() {
      for (const name of made.splice(0)) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end({ timeout: 5 });
    },
  };
}
