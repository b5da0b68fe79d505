// @engines none: reads the schema and migration files, opens no database of the run (runs once)
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../db/client';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/**
 * The two engines' schemas are the same: read from the catalogs of a migrated SQLite database and a
 * migrated throwaway PostgreSQL (not from the drizzle objects, so what the migrations really built is
 * compared: shipped migrations, hand-written triggers and all). Each table is declared once
 * (db/schema/tables.ts) and each engine's kit says what differs on purpose, so what is left to hold here
 * is that the migrations followed: a schema change is `npm run db:generate`, never a hand edit of one side.
 */

/** Made by db/pg/sql/triggers.sql on PostgreSQL only, each for a reason given there. */
const PG_ONLY_TRIGGERS = [
  'events.events_no_truncate', 'ledger_entries.ledger_entries_no_truncate', 'ledger_lines.ledger_lines_no_truncate',
  // a commit that adds or changes background work wakes the other instances (NOTIFY pix_work, db/pg/notify.ts)
  'events.events_notify_work', 'deliveries.deliveries_notify_work', 'withdrawal_batches.withdrawal_batches_notify_work', 'refunds.refunds_notify_work',
];

interface Catalog {
  tables: string[];
  /** table.column → type class, not-null, generated */
  columns: Record<string, { type: string; notNull: boolean; generated: boolean }>;
  primaryKeys: string[];
  unique: string[];
  checks: string[];
  foreignKeys: string[];
  indexes: string[];
  triggers: string[];
}

/** `"t"."col" IS NOT NULL`, `(col IS NOT NULL)`, `status = 'OPEN'::text` → one comparable spelling. */
function predicate(sql: string | null, table: string): string {
  if (!sql) return '';
  return ' where ' + sql.replace(new RegExp(`["\`]?${table}["\`]?\\.`, 'g'), '').replace(/::text/g, '').replace(/["`'()]/g, '')
    .replace(/\s+/g, ' ').trim().toLowerCase();
}

function sqliteCatalog(conn: Database.Database): Catalog {
  const tables = (conn.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  const c: Catalog = { tables, columns: {}, primaryKeys: [], unique: [], checks: [], foreignKeys: [], indexes: [], triggers: [] };
  for (const t of tables) {
    const cols = conn.prepare(`SELECT name, type, "notnull" AS nn, pk, hidden FROM pragma_table_xinfo(?)`).all(t) as { name: string; type: string; nn: number; pk: number; hidden: number }[];
    for (const col of cols) c.columns[`${t}.${col.name}`] = { type: col.type.toLowerCase(), notNull: col.nn === 1 || col.pk > 0, generated: col.hidden === 2 || col.hidden === 3 };
    c.primaryKeys.push(`${t}(${cols.filter((x) => x.pk > 0).sort((a, b) => a.pk - b.pk).map((x) => x.name).join(',')})`);
    const createSql = (conn.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(t) as { sql: string }).sql;
    for (const m of createSql.matchAll(/CONSTRAINT\s+["`]?(\w+)["`]?\s+CHECK/gi)) c.checks.push(`${t}.${m[1]}`);
    for (const fk of conn.prepare(`SELECT "table" AS ref, "from" AS col, "to" AS refCol FROM pragma_foreign_key_list(?)`).all(t) as { ref: string; col: string; refCol: string }[]) {
      c.foreignKeys.push(`${t}.${fk.col} -> ${fk.ref}.${fk.refCol}`);
    }
    for (const ix of conn.prepare(`SELECT name, "unique" AS u, origin, partial FROM pragma_index_list(?)`).all(t) as { name: string; u: number; origin: string; partial: number }[]) {
      if (ix.origin === 'pk') continue;
      const cols2 = (conn.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(ix.name) as { name: string }[]).map((r) => r.name).join(',');
      const ixSql = (conn.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).get(ix.name) as { sql: string | null } | undefined)?.sql ?? null;
      const where = ixSql && /\bWHERE\b/i.test(ixSql) ? predicate(ixSql.replace(/^[\s\S]*?\bWHERE\b/i, ''), t) : '';
      if (ix.u) c.unique.push(`${t}(${cols2})${where}`);
      c.indexes.push(`${ix.name} on ${t}(${cols2})${where}`);
    }
  }
  c.triggers = (conn.prepare(`SELECT tbl_name || '.' || name AS n FROM sqlite_master WHERE type = 'trigger'`).all() as { n: string }[]).map((r) => r.n);
  return c;
}

async function pgCatalog(sql: postgres.Sql): Promise<Catalog> {
  const q = async <T>(text: string) => (await sql.unsafe(text)) as unknown as T[];
  const tables = (await q<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)).map((r) => r.name);
  const c: Catalog = { tables, columns: {}, primaryKeys: [], unique: [], checks: [], foreignKeys: [], indexes: [], triggers: [] };
  for (const col of await q<{ t: string; name: string; type: string; nullable: string; generated: string }>(
    `SELECT table_name AS t, column_name AS name, data_type AS type, is_nullable AS nullable, is_generated AS generated FROM information_schema.columns WHERE table_schema = 'public'`)) {
    c.columns[`${col.t}.${col.name}`] = { type: col.type, notNull: col.nullable === 'NO', generated: col.generated === 'ALWAYS' };
  }
  const indexRows = await q<{ t: string; name: string; uniq: boolean; prim: boolean; cols: string; pred: string | null }>(`
    SELECT tc.relname AS t, ic.relname AS name, i.indisunique AS uniq, i.indisprimary AS prim,
           (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS cols,
           pg_get_expr(i.indpred, i.indrelid) AS pred
    FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
    JOIN pg_namespace ns ON ns.oid = tc.relnamespace WHERE ns.nspname = 'public'`);
  for (const ix of indexRows) {
    if (ix.prim) { c.primaryKeys.push(`${ix.t}(${ix.cols})`); continue; }
    const where = predicate(ix.pred, ix.t);
    if (ix.uniq) c.unique.push(`${ix.t}(${ix.cols})${where}`);
    c.indexes.push(`${ix.name} on ${ix.t}(${ix.cols})${where}`);
  }
  for (const r of await q<{ t: string; name: string }>(`SELECT conrelid::regclass::text AS t, conname AS name FROM pg_constraint WHERE contype = 'c' AND connamespace = 'public'::regnamespace`)) c.checks.push(`${r.t}.${r.name}`);
  for (const r of await q<{ fk: string }>(`
    SELECT conrelid::regclass::text || '.' || a.attname || ' -> ' || confrelid::regclass::text || '.' || fa.attname AS fk
    FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[1]
    WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace`)) c.foreignKeys.push(r.fk);
  c.triggers = (await q<{ n: string }>(`SELECT event_object_table || '.' || trigger_name AS n FROM information_schema.triggers WHERE trigger_schema = 'public'
    UNION SELECT tgrelid::regclass::text || '.' || tgname FROM pg_trigger WHERE NOT tgisinternal`)).map((r) => r.n);
  return c;
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

describe('the SQLite and PostgreSQL schemas are the same', () => {
  let pgServer: ThrowawayPostgres;
  let lite: Catalog;
  let post: Catalog;
  const dir = mkdtempSync(join(tmpdir(), 'pix-parity-'));

  beforeAll(async () => {
    const conn = new Database(join(dir, 'parity.db'));
    conn.pragma('foreign_keys = ON');
    applyMigrations(conn);
    lite = sqliteCatalog(conn);
    conn.close();
    pgServer = await startTestPostgres({ migrated: true });
    const sql = postgres(pgServer.url, { max: 1, onnotice: () => {} });
    try { post = await pgCatalog(sql); } finally { await sql.end(); }
  });
  afterAll(async () => {
    await pgServer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the same tables', () => {
    expect(lite.tables.length).toBeGreaterThan(15);
    expect(post.tables).toEqual(lite.tables);
  });

  it('has the same columns, nullability and generated columns, with types that carry the same values', () => {
    expect(sorted(Object.keys(post.columns))).toEqual(sorted(Object.keys(lite.columns)));
    const problems: string[] = [];
    for (const [name, l] of Object.entries(lite.columns)) {
      const p = post.columns[name];
      if (p.notNull !== l.notNull) problems.push(`${name}: not null ${l.notNull} in SQLite, ${p.notNull} in PostgreSQL`);
      if (p.generated !== l.generated) problems.push(`${name}: generated ${l.generated} in SQLite, ${p.generated} in PostgreSQL`);
      const column = name.split('.')[1];
      // a point in time: ISO text in SQLite, timestamptz in PostgreSQL (read back as the same ISO text)
      const isTime = /_at$/.test(column);
      const expected = l.type === 'integer' ? ['integer', 'bigint'] : isTime ? ['timestamp with time zone'] : ['text'];
      // (which integers are bigint on PostgreSQL is the declaration's word: `cents` or `int` in the kit)
      if (!expected.includes(p.type)) problems.push(`${name}: ${l.type} in SQLite, ${p.type} in PostgreSQL (expected ${expected.join(' or ')})`);
    }
    expect(problems).toEqual([]);
  });

  it('has the same primary keys, unique constraints (with their conditions), checks and foreign keys', () => {
    expect(sorted(post.primaryKeys)).toEqual(sorted(lite.primaryKeys));
    expect(sorted(post.unique)).toEqual(sorted(lite.unique));
    expect(lite.checks.length).toBeGreaterThan(10);
    expect(sorted(post.checks)).toEqual(sorted(lite.checks));
    expect(lite.foreignKeys.length).toBeGreaterThan(20);
    expect(sorted(post.foreignKeys)).toEqual(sorted(lite.foreignKeys));
  });

  it('has the same indexes (a plan that works on one engine has its index on the other)', () => {
    const pgIndexes = post.indexes;
    expect(sorted(pgIndexes)).toEqual(sorted(lite.indexes));
  });

  it('has every ledger trigger of SQLite on PostgreSQL, on the same table', () => {
    expect(lite.triggers.length).toBeGreaterThan(10);
    expect(sorted(post.triggers.filter((t) => !PG_ONLY_TRIGGERS.includes(t)))).toEqual(sorted(lite.triggers));
  });
});
