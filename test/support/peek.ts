import Database from 'better-sqlite3';
import postgres from 'postgres';
import { onPostgres } from '../../db/dialect';
import { isoFromPg } from '../../db/pg/schema/columns';
import { serverDatabaseUrl } from './server';

/**
 * Raw SQL on a database a test did not open through the app (a running server's, or makeTestServices'
 * by its `db.path`), the same on both engines: `?` placeholders, rows as SQLite gives them (counts and
 * cents as numbers, timestamps as ISO strings). On SQLite a read-only connection to the file; on
 * PostgreSQL a connection to the server's own database (test/support/server.ts) or to the URL given.
 */
export interface SqlPeek {
  all<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T | undefined>;
  /** The service's tables. */
  tables(): Promise<string[]>;
  /** `SELECT count(*)` of a table. */
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

export function peekDb(databasePathOrUrl: string, o: { write?: boolean } = {}): SqlPeek {
  const url = onPostgres ? serverDatabaseUrl(databasePathOrUrl) ?? (/^postgres(ql)?:/.test(databasePathOrUrl) ? databasePathOrUrl : undefined) : undefined;
  if (onPostgres && !url) throw new Error(`no PostgreSQL database is known for ${databasePathOrUrl}`);
  let all: (text: string, params: unknown[]) => Promise<unknown[]>;
  let close: () => Promise<void>;
  if (url) {
    const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
    // as db/pg/open.ts reads them
    sql.options.parsers[1184] = (v: string) => isoFromPg(v);
    sql.options.parsers[20] = Number;
    sql.options.parsers[1700] = Number;
    all = async (text, params) => {
      let n = 0;
      return [...await sql.unsafe(text.replace(/\?/g, () => `$${++n}`), params as never[])];
    };
    close = () => sql.end({ timeout: 5 });
  } else {
    const conn = new Database(databasePathOrUrl, { readonly: !o.write, fileMustExist: true });
    conn.pragma('busy_timeout = 5000');
    all = async (text, params) => {
      const st = conn.prepare(text);
      return st.reader ? st.all(...params) : (st.run(...params), []);
    };
    close = async () => { conn.close(); };
  }
  const peek: SqlPeek = {
    all: (text, ...params) => all(text, params) as never,
    get: async (text, ...params) => (await all(text, params))[0] as never,
    tables: async () => (await all(url
      ? `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`
      : `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1`, []) as { name: string }[]).map((t) => t.name),
    count: async (table) => Number(((await all(`SELECT count(*) AS n FROM ${table}`, []))[0] as { n: number }).n),
    close,
  };
  return peek;
}

/** One look: opens, runs `f`, closes. */
export async function peek<T>(databasePathOrUrl: string, f: (db: SqlPeek) => Promise<T>): Promise<T> {
  const db = peekDb(databasePathOrUrl);
  try { return await f(db); } finally { await db.close(); }
}
