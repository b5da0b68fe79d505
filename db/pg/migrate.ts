import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { migrationFailed, pendingAfter, shippedMigrations } from '../migration-history';

export const PG_MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/** The migrations recorded in the database (drizzle keeps its journal in the "drizzle" schema); none on a new database. */
export async function appliedMigrations(sql: postgres.Sql): Promise<{ createdAt: number }[]> {
  const [{ journal }] = await sql<{ journal: string | null }[]>`SELECT to_regclass('drizzle.__drizzle_migrations')::text AS journal`;
  if (!journal) return [];
  return (await sql<{ created_at: string }[]>`SELECT created_at::text FROM drizzle.__drizzle_migrations`).map((r) => ({ createdAt: Number(r.created_at) }));
}

/**
 * Applies db/pg/migrations (schema, then the PL/pgSQL ledger triggers) to the database at `url`, or
 * throws a MigrationError and changes nothing: a database migrated by a newer release is refused before
 * anything runs, and drizzle's migrator runs all pending migrations in one transaction (PostgreSQL's DDL
 * is transactional), so one that fails takes the others back with it.
 * Instances started at once (a rollout of N replicas) would each find the migrations unapplied and run
 * them side by side, and all but one would fail on tables that now exist; a session advisory lock makes
 * them take turns, and the later ones find nothing left to apply. (One connection: the lock and the
 * migrator's statements share the session.) `migrationsFolder` is for tests.
 */
export async function migratePostgres(url: string, o: { migrationsFolder?: string } = {}): Promise<void> {
  const folder = o.migrationsFolder ?? PG_MIGRATIONS;
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SELECT pg_advisory_lock(hashtextextended('pix-payments migrations', 0))`;
    // read under the lock: an instance of a newer release may have migrated while this one waited
    const pending = pendingAfter(await appliedMigrations(sql), shippedMigrations(folder));
    if (pending.length) {
      try {
        await migrate(drizzle(sql), { migrationsFolder: folder });
      } catch (err) {
        throw migrationFailed(err, pending);
      }
    }
  } finally {
    // ending the session releases the lock too, should the unlock not be reached
    await sql`SELECT pg_advisory_unlock_all()`.catch(() => {});
    await sql.end({ timeout: 5 });
  }
}
