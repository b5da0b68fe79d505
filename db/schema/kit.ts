import type { $Type, BuildColumns, BuildExtraConfigColumns, ColumnBuilderBase, HasDefault, IsPrimaryKey, NotNull, SQL } from 'drizzle-orm';
import type { PgTableWithColumns } from 'drizzle-orm/pg-core';
import type { SQLiteTableWithColumns } from 'drizzle-orm/sqlite-core';

/**
 * The column kit: what a table declaration (db/schema/tables.ts and the aggregates it gathers) may use,
 * so that each table is written once and built for both engines, by the SQLite kit (./kit-sqlite.ts) for
 * db/migrations and by the PostgreSQL kit (db/pg/schema/kit.ts) for db/pg/migrations. What differs on
 * purpose lives in the kits: a point in time is ISO text in SQLite and timestamptz in PostgreSQL, money and
 * growing counters bigint there, generated columns virtual here and stored there.
 *
 * The declarations are generic over the kit, and every type here is a function of the kit's own builder
 * types, so each engine gets its exact drizzle tables (the domain compiles against the SQLite ones, the
 * PostgreSQL tests against the PostgreSQL ones) with no cast. Type-only imports: neither engine loads
 * the other's drizzle module at run time.
 */
export type Dialect = 'sqlite' | 'pg';

/**
 * What a declaration calls on a column the kit made: both engines' builders have these methods. A
 * declaration calls at most one of them per column (the kit's functions already say NOT NULL or not): the
 * compiler keeps a call's effect on a kit's type only for the call made on it directly.
 */
export interface Column<Data> extends ColumnBuilderBase {
  default(value: Data): HasDefault<this>;
  references(ref: () => unknown): this;
  primaryKey(): IsPrimaryKey<NotNull<this>>;
  unique(name?: string): this;
}

/** A kit's column types (its builders, NOT NULL unless the name says "OrNull"). */
export interface Columns<Base extends ColumnBuilderBase = ColumnBuilderBase> {
  base: Base;
  text: Column<string> & Base;
  textOrNull: Column<string> & Base;
  int: Column<number> & Base;
  intOrNull: Column<number> & Base;
  /** Money in cents, and counters that outgrow 32 bits (ms since the epoch, sequence numbers). */
  cents: Column<number> & Base;
  /** A point in time, seen by the domain as `Date#toISOString()` text on both engines. */
  instant: Column<string> & Base;
  instantOrNull: Column<string> & Base;
  /** An integer id that the database assigns, counting up. */
  serial: Base;
  /** A text column the database computes from others (search folding), never written. */
  generated: Base;
}

/** A kit's column types, read off its functions (each kit's Columns, without writing them out twice). */
export type ColumnsOf<K, Base extends ColumnBuilderBase> = K extends {
  text: (name: string) => infer Text; textOrNull: (name: string) => infer TextOrNull; int: (name: string) => infer Int;
  intOrNull: (name: string) => infer IntOrNull; cents: (name: string) => infer Cents; instant: (name: string) => infer Instant;
  instantOrNull: (name: string) => infer InstantOrNull; serial: (name: string) => infer Serial; folded: (name: string, of: string) => infer Generated;
} ? { base: Base; text: Text; textOrNull: TextOrNull; int: Int; intOrNull: IntOrNull; cents: Cents; instant: Instant; instantOrNull: InstantOrNull; serial: Serial; generated: Generated } : never;

export type TableOf<D extends Dialect, N extends string, M extends Record<string, ColumnBuilderBase>> = D extends 'sqlite'
  ? SQLiteTableWithColumns<{ name: N; schema: undefined; columns: BuildColumns<N, M, 'sqlite'>; dialect: 'sqlite' }>
  : PgTableWithColumns<{ name: N; schema: undefined; columns: BuildColumns<N, M, 'pg'>; dialect: 'pg' }>;

/** What a table's indexes, checks and keys are declared over: its columns (index columns on PostgreSQL). */
export type ExtraColumnsOf<D extends Dialect, N extends string, M extends Record<string, ColumnBuilderBase>> = D extends 'sqlite'
  ? BuildColumns<N, M, 'sqlite'>
  : BuildExtraConfigColumns<N, M, 'pg'>;

/** An index builder, as both engines' index()/uniqueIndex() return it. */
export interface IndexOn {
  on(...columns: unknown[]): { where(condition: SQL): unknown };
}

/** The values of an enum text column, as contract/ declares them (`as const`). */
export type EnumValues = readonly [string, ...string[]];

/**
 * The methods are methods (not function-valued properties) on purpose: a kit's functions take their own
 * engine's columns and table-level values, and TypeScript relates a method's parameters both ways.
 */
export interface Kit<D extends Dialect, C extends Columns> {
  dialect: D;
  table<N extends string, M extends Record<string, C['base']>>(name: N, columns: M, extra?: (t: ExtraColumnsOf<D, N, M>) => unknown[]): TableOf<D, N, M>;
  text(name: string): C['text'];
  textOrNull(name: string): C['textOrNull'];
  /** Text the domain reads as `T` (a vocabulary the database does not check). */
  typedText<T extends string>(name: string): $Type<C['text'], T>;
  enumText<const T extends EnumValues>(name: string, values: T): $Type<C['text'], T[number]>;
  /** An enum text column with a default (one function: a default chained after enumText would lose its type). */
  enumTextDefault<const T extends EnumValues>(name: string, values: T, byDefault: T[number]): HasDefault<$Type<C['text'], T[number]>>;
  enumTextOrNull<const T extends EnumValues>(name: string, values: T): $Type<C['textOrNull'], T[number]>;
  int(name: string): C['int'];
  intOrNull(name: string): C['intOrNull'];
  cents(name: string): C['cents'];
  instant(name: string): C['instant'];
  instantOrNull(name: string): C['instantOrNull'];
  serial(name: string): C['serial'];
  /** `of` folded for search (db/schema/search.ts's FOLDED_LETTERS): accents dropped, ASCII lower-cased. */
  folded(name: string, of: string): C['generated'];
  /** The words of `of` as a JSON array (SQLite reads them from `folded`, the generated folding of `of`). */
  words(name: string, of: string, folded: string): C['generated'];
  /** `of` trimmed and lower-cased (an e-mail, for search). */
  lowerTrimmed(name: string, of: string): C['generated'];
  index(name: string): IndexOn;
  uniqueIndex(name: string): IndexOn;
  check(name: string, value: SQL): unknown;
  primaryKey(config: { columns: [unknown, ...unknown[]] }): unknown;
}
