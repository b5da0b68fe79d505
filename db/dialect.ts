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

/** Whether `haystack` contains `needle` (SQLite's instr, PostgreSQL's strpos; both 1-based, 0 when absent). */
export function contains(haystack: unknown, needle: unknown): SQL {
  return onPostgres ? sql`strpos(${haystack}, ${needle}) > 0` : sql`instr(${haystack}, ${needle}) > 0`;
}

/**
 * The calendar day (YYYY-MM-DD) of a stored instant shifted by `offset` ('-3 hours': Brasília, which
 * keeps no daylight saving): SQLite's date(x, offset), PostgreSQL's to_char over the UTC time plus it.
 */
export function dayAt(instant: unknown, offset: string): SQL {
  return onPostgres
    ? sql`to_char((${instant} AT TIME ZONE 'UTC') + ${offset}::interval, 'YYYY-MM-DD')`
    : sql`date(${instant}, ${offset})`;
}

/**
 * A value inside a JSON text column, as a JavaScript value (number, string, null): SQLite's
 * json_extract(col, '$.a.b'), PostgreSQL's col::jsonb #> '{a,b}' (the driver parses the jsonb).
 */
export function jsonAt(column: SQL, path: string[]): SQL {
  return onPostgres
    ? sql`(${column}::jsonb #> ${`{${path.join(',')}}`}::text[])`
    : sql`json_extract(${column}, ${`$.${path.join('.')}`})`;
}
