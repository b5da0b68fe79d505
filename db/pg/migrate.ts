import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

export const PG_MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Applies db/pg/migrations (schema, then the PL/pgSQL ledger triggers) to the database at `url`.
 * Instances started at once (a rollout of N replicas) would each find the migrations unapplied and run
 * them side by side, and all but one would fail on tables that now exist; a session advisory lock makes
 * them take turns, and the later ones find nothing left to apply. (One connection: the lock and the
 * migrator's statements share the session.)
 */
export async function migratePostgres(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SELECT pg_advisory_lock(hashtextextended('pix-payments migrations', 0))`;
    await migrate(drizzle(sql), { migrationsFolder: PG_MIGRATIONS });
  } finally {
    // ending the session releases the lock too, should the unlock not be reached
    await sql`SELECT pg_advisory_unlock_all()`.catch(() => {});
    await sql.end({ timeout: 5 });
  }
}
