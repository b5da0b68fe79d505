// The PostgreSQL schema: table for table, column for column the SQLite one in db/schema
// (test/unit/pg-schema-parity.test.ts compares the migrated catalogs of both).
export * from './accounts';
export * from './ledger';
export * from './platform';
export * from './withdrawals';
export * from './transactions';
export * from './webhooks';
export * from './limits';
export { nameWords } from './search';
