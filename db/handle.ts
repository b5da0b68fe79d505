import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema';

// The handle's type alone, so that helpers over a handle (./query.ts) need not import the module that
// opens one (./client.ts imports those helpers: the two used to import each other).
export type Schema = typeof schema;
export type DrizzleDb = BetterSQLite3Database<Schema>;
