import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const PG_MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));

/** Applies db/pg/migrations (schema, then the PL/pgSQL ledger triggers) to the database at `url`. */
export async function migratePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: PG_MIGRATIONS });
  } finally {
    await client.end();
  }
}
