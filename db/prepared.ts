import type { DrizzleDb } from './client';
import { handleOf, type OnHandle } from './stores/handle-of';

/**
 * Statements prepared once per connection (the read connection, the writer's). Drizzle otherwise
 * rebuilds the SQL and better-sqlite3 re-prepares it on every call, which on the hot paths cost more
 * than running it (it was the largest cost of GET /balance and of every write job).
 */
export function perConnection<T>(prepare: (db: DrizzleDb) => T): (db: OnHandle) => T {
  const cache = new WeakMap<DrizzleDb, T>();
  return (on) => {
    const db = handleOf(on);
    let statements = cache.get(db);
    if (!statements) {
      statements = prepare(db);
      cache.set(db, statements);
    }
    return statements;
  };
}
