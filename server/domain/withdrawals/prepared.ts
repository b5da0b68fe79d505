import type { DrizzleDb } from '../../../db';

/**
 * Statements prepared once per connection (the read connection, the writer's): on the hot paths,
 * building and preparing the SQL on each call costs more than running it.
 */
export function perConnection<T>(prepare: (db: DrizzleDb) => T): (db: DrizzleDb) => T {
  const cache = new WeakMap<DrizzleDb, T>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) {
      statements = prepare(db);
      cache.set(db, statements);
    }
    return statements;
  };
}
