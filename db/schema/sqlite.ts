// The SQLite tables (drizzle-kit generates db/migrations from this file; db/schema/index.ts picks the engine's).
export * from './accounts';
export * from './ledger';
export * from './platform';
export * from './withdrawals';
export * from './transactions';
export * from './webhooks';
export * from './limits';
export { nameWords } from './search';
