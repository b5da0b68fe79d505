import type { DrizzleDb } from './client';

const caches = new WeakMap<DrizzleDb, Map<string, unknown>>();

/**
 * Prepares a hot query once per connection. Drizzle otherwise rebuilds the SQL and better-sqlite3
 * re-prepares the statement on every call, which showed up as the largest cost of GET /balance.
 */
export function prepared<T>(db: DrizzleDb, name: string, build: (db: DrizzleDb) => T): T {
  let cache = caches.get(db);
  if (!cache) { cache = new Map(); caches.set(db, cache); }
  let stmt = cache.get(name) as T | undefined;
  if (!stmt) { stmt = build(db); cache.set(name, stmt); }
  return stmt;
}
