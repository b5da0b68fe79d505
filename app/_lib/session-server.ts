import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { cookies } from 'next/headers';
import { cache } from 'react';
import type { DrizzleDb } from '@/db';
import * as schema from '@/db/schema';
import { loadConfig } from '@/server/config';
import { sessionFor, SESSION_COOKIE, type SessionAuth } from '@/server/domain/sessions';

/**
 * The pages' server-side gate. Next runs inside the API process, so this reads the same database
 * through its own read-only connection (SQLite WAL: it sees committed sessions at once) and asks
 * `sessionFor`, exactly as the tRPC middleware does. Data itself is always fetched through tRPC.
 */
type SessionDb = DrizzleDb;
const holder = globalThis as typeof globalThis & { __ppPagesSessionDb?: SessionDb };

/** The pages' own read-only connection (the session gate, and the CSV export's reads). */
export function pagesDb(): SessionDb {
  if (!holder.__ppPagesSessionDb) {
    const conn = new Database(loadConfig().databasePath, { readonly: true, fileMustExist: true });
    conn.pragma('busy_timeout = 5000');
    holder.__ppPagesSessionDb = drizzle(conn, { schema });
  }
  return holder.__ppPagesSessionDb;
}

/**
 * The signed-in person of this request, or null (no cookie, unknown, revoked or expired session).
 * Once per request: the layout's gate and the language lookup share it.
 */
export const currentSession = cache(async (): Promise<SessionAuth | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  return sessionFor(pagesDb(), token, new Date());
});
