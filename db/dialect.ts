/**
 * Which engine this process runs on, decided once from the environment (db/engine.ts validates the URL
 * at start): the schema (db/schema), the database handle (db/index.ts) and the raw-SQL helpers
 * (db/query.ts) all follow it. Everything that differs between SQLite and PostgreSQL stays in db/.
 */
export const onPostgres: boolean = Boolean(process.env.DATABASE_URL?.trim());

import { sql, type SQL } from 'drizzle-orm';

/**
 * The values of a JSON array of strings bound as one parameter, as a subquery for `IN (…)`: a statement
 * over a list of any length is prepared once (SQLite's json_each, PostgreSQL's jsonb_array_elements_text).
 */
export function jsonStringList(param: unknown): SQL {
  return onPostgres
    ? sql`(SELECT jsonb_array_elements_text(${param}::jsonb))`
    : sql`(SELECT value FROM json_each(${param}))`;
}

/** The larger of two values of one row (SQLite's two-argument max(), PostgreSQL's greatest()). */
export function greatest(a: unknown, b: unknown): SQL {
  return onPostgres ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`;
}
