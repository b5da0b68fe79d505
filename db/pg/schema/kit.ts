import { sql, type SQL } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, primaryKey, text, uniqueIndex, type PgColumnBuilderBase } from 'drizzle-orm/pg-core';
import type { ColumnsOf, EnumValues, Kit } from '../../schema/kit';
import type { SqliteColumns } from '../../schema/kit-sqlite';
import { cents, foldedSql, timestamp, wordsSql } from './columns';

/** PostgreSQL 15 has no virtual generated columns: STORED, from the base column (one cannot read another). */
const generated = (name: string, as: SQL) => text(name).generatedAlwaysAs(as);

/** The values widened to any enum's type: the kit's callers give the column its own type with $type. */
const enumColumn = (name: string, values: EnumValues) => text(name, { enum: values });

/**
 * The PostgreSQL column kit (db/schema/kit.ts): times are timestamptz(3) read back as ISO text, money and
 * growing counters bigint (a JavaScript number: the ceiling keeps them below 2^53), ids identity columns.
 */
export const pgKit = {
  dialect: 'pg' as const,
  table: pgTable,
  text: (name: string) => text(name).notNull(),
  textOrNull: (name: string) => text(name),
  typedText: <T extends string>(name: string) => text(name).notNull().$type<T>(),
  enumText: <const T extends EnumValues>(name: string, values: T) => enumColumn(name, values).notNull().$type<T[number]>(),
  enumTextDefault: <const T extends EnumValues>(name: string, values: T, byDefault: T[number]) => enumColumn(name, values).notNull().$type<T[number]>().default(byDefault),
  enumTextOrNull: <const T extends EnumValues>(name: string, values: T) => enumColumn(name, values).$type<T[number]>(),
  int: (name: string) => integer(name).notNull(),
  intOrNull: (name: string) => integer(name),
  cents: (name: string) => bigint(name, cents).notNull(),
  instant: (name: string) => timestamp(name).notNull(),
  instantOrNull: (name: string) => timestamp(name),
  serial: (name: string) => bigint(name, cents).primaryKey().generatedByDefaultAsIdentity(),
  folded: (name: string, of: string) => generated(name, foldedSql(of)),
  words: (name: string, of: string) => generated(name, wordsSql(of)),
  lowerTrimmed: (name: string, of: string) => generated(name, sql.raw(`lower(btrim("${of}"))`)),
  index,
  uniqueIndex,
  check,
  primaryKey,
};

export type PgColumns = ColumnsOf<typeof pgKit, PgColumnBuilderBase>;

// the kit as the declarations take it, checked here rather than where it is used
export const kit: Kit<'pg', PgColumns> = pgKit;

/**
 * The same kit as the domain's queries see it. The domain is compiled once, against the SQLite tables
 * (db/schema/index.ts), and runs on PostgreSQL with the tables this kit builds; db/query.ts carries what
 * differs in the calls. Typing PostgreSQL's builders as SQLite's is a claim the compiler cannot check, so
 * it is made here, once, for the kit: every table built from it is then typed without a cast of its own.
 */
export const domainKit = kit as unknown as Kit<'sqlite', SqliteColumns>;
