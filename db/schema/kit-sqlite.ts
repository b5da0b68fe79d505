import { sql, type SQL } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex, type SQLiteColumnBuilderBase } from 'drizzle-orm/sqlite-core';
import type { ColumnsOf, EnumValues, Kit } from './kit';
import { foldedSql, wordsSql } from './search';

/** SQLite computes search columns on read (VIRTUAL): they cost no space and are indexed all the same. */
const generated = (name: string, as: SQL) => text(name).generatedAlwaysAs(as, { mode: 'virtual' });

/** The values widened to any enum's type: the kit's callers give the column its own type with $type. */
const enumColumn = (name: string, values: EnumValues) => text(name, { enum: values });

/** The SQLite column kit (./kit.ts): times are ISO text, money a 64-bit integer, ids INTEGER PRIMARY KEY AUTOINCREMENT. */
export const sqliteKit = {
  dialect: 'sqlite' as const,
  table: sqliteTable,
  text: (name: string) => text(name).notNull(),
  textOrNull: (name: string) => text(name),
  typedText: <T extends string>(name: string) => text(name).notNull().$type<T>(),
  enumText: <const T extends EnumValues>(name: string, values: T) => enumColumn(name, values).notNull().$type<T[number]>(),
  enumTextDefault: <const T extends EnumValues>(name: string, values: T, byDefault: T[number]) => enumColumn(name, values).notNull().$type<T[number]>().default(byDefault),
  enumTextOrNull: <const T extends EnumValues>(name: string, values: T) => enumColumn(name, values).$type<T[number]>(),
  int: (name: string) => integer(name).notNull(),
  intOrNull: (name: string) => integer(name),
  cents: (name: string) => integer(name).notNull(),
  instant: (name: string) => text(name).notNull(),
  instantOrNull: (name: string) => text(name),
  serial: (name: string) => integer(name).primaryKey({ autoIncrement: true }),
  folded: (name: string, of: string) => generated(name, foldedSql(of)),
  // SQLite reads the words from the folded column (itself generated), which PostgreSQL cannot
  words: (name: string, _of: string, folded: string) => generated(name, wordsSql(folded)),
  lowerTrimmed: (name: string, of: string) => generated(name, sql.raw(`lower(trim("${of}"))`)),
  index,
  uniqueIndex,
  check,
  primaryKey,
};

export type SqliteColumns = ColumnsOf<typeof sqliteKit, SQLiteColumnBuilderBase>;

// the kit as the declarations take it, checked here rather than where it is used
export const kit: Kit<'sqlite', SqliteColumns> = sqliteKit;
