import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

export const PG_MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/** Applies db/pg/migrations (schema, then the PL/pgSQL ledger triggers) to the database at `url`. */
export async function migratePostgres(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle(sql), { migrationsFolder: PG_MIGRATIONS });
  } finally {
    await sql.end({ timeout: 5 });
  }
}
