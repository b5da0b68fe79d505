import { customType } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import { FOLDED_LETTERS, WORD_SEPARATORS } from '../../schema/search';

/**
 * A point in time. PostgreSQL keeps it as `timestamptz(3)` (a real time: leases, `now()` and comparisons
 * work in the database, whatever offset a client sends), while the domain keeps seeing and writing
 * exactly what SQLite stores: `Date#toISOString()` strings (UTC, milliseconds, `Z`). Millisecond
 * precision makes the round trip exact; PostgreSQL parses the ISO string on the way in and whatever
 * DateStyle/TimeZone the session has is normalised on the way out.
 */
export const timestamp = customType<{ data: string; driverData: string | Date }>({
  dataType: () => 'timestamp(3) with time zone',
  toDriver: (value) => value,
  fromDriver: (value) => isoFromPg(value),
});

/** `2026-11-23 05:24:44.123+00` (or a Date, from a driver that parses) → `2026-11-23T05:24:44.123Z`. */
export function isoFromPg(value: string | Date): string {
  if (value instanceof Date) return value.toISOString();
  const iso = value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new Error(`not a timestamp: ${value}`);
  return d.toISOString();
}

/** Money in cents: bigint in the database, a JavaScript number here (the ceiling keeps it below 2^53). */
export { bigint } from 'drizzle-orm/pg-core';
export const cents = { mode: 'number' } as const;

/**
 * The search folding of db/schema/search.ts in PostgreSQL: lower-case ASCII only (COLLATE "C", as
 * SQLite's lower()), then the same accented letters mapped with translate(); a STORED generated column
 * (PostgreSQL 15 has no virtual ones).
 */
export function foldedSql(columnName: string): SQL {
  return sql.raw(foldedExpr(columnName));
}

function foldedExpr(columnName: string): string {
  const from = FOLDED_LETTERS.map(([f]) => f).join('');
  const to = FOLDED_LETTERS.map(([, t]) => t).join('');
  return `translate(lower(btrim("${columnName}") COLLATE "C"), '${from}', '${to}')`;
}

/**
 * The words of a name as a JSON array, as db/schema/search.ts's wordsSql, from the base column (a
 * PostgreSQL generated column cannot read another). PostgreSQL has no immutable JSON quoting, so a
 * control character separates words here (SQLite keeps it, escaped, inside its word).
 */
export function wordsSql(columnName: string): SQL {
  const printable = WORD_SEPARATORS.filter((c) => c.charCodeAt(0) >= 32);
  const from = printable.join('').replace(/'/g, "''");
  const spaced = `regexp_replace(translate(${foldedExpr(columnName)}, '${from}', '${' '.repeat(printable.length)}'), '[[:cntrl:]]', ' ', 'g')`;
  return sql.raw(`'["' || replace(${spaced}, ' ', '","') || '"]'`);
}
