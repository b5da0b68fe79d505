export * from './accounts';
export * from './ledger';
export * from './platform';
export * from './withdrawals';
export * from './transactions';
export * from './webhooks';
export { nameWords } from './search';
