// The tables the domain queries, for the engine of this process (db/dialect.ts). The compiler sees the
// SQLite tables; with DATABASE_URL set the same names hold PostgreSQL tables, built from the same
// declarations (./tables.ts) with the PostgreSQL kit as the domain sees it (db/pg/schema/kit.ts), so the
// domain's queries are built for the engine they run on. The PostgreSQL kit is loaded only then: SQLite's
// start-up pays nothing.
import * as sqlite from './sqlite';
import { declareTables } from './tables';
import { onPostgres } from '../dialect';

export * from './sqlite';

const tables = onPostgres ? declareTables((await import('../pg/schema/kit')).domainKit) : sqlite;

export const accessTokens = tables.accessTokens;
export const accounts = tables.accounts;
export const auditTrail = tables.auditTrail;
export const customers = tables.customers;
export const dashboardSessions = tables.dashboardSessions;
export const dashboardUsers = tables.dashboardUsers;
export const deliveries = tables.deliveries;
export const deliveryAttempts = tables.deliveryAttempts;
export const disputes = tables.disputes;
export const events = tables.events;
export const idempotencyKeys = tables.idempotencyKeys;
export const ledgerBooks = tables.ledgerBooks;
export const ledgerEntries = tables.ledgerEntries;
export const ledgerLines = tables.ledgerLines;
export const refunds = tables.refunds;
export const transactions = tables.transactions;
export const webhooks = tables.webhooks;
export const withdrawalBatches = tables.withdrawalBatches;
export const withdrawals = tables.withdrawals;
export const nameWords = tables.nameWords;
export const limitBuckets = tables.limitBuckets;
export const limitAttempts = tables.limitAttempts;
export const limitSignInDelays = tables.limitSignInDelays;
export const pixKeys = tables.pixKeys;
export const pixApiClients = tables.pixApiClients;
export const pixApiTokens = tables.pixApiTokens;
export const pixLocations = tables.pixLocations;
export const pixCharges = tables.pixCharges;
export const pixChargeRevisions = tables.pixChargeRevisions;
export const pixCobvBatches = tables.pixCobvBatches;
export const pixCobvBatchItems = tables.pixCobvBatchItems;
export const pixReceived = tables.pixReceived;
export const pixDevolucoes = tables.pixDevolucoes;
export const pixKeyWebhooks = tables.pixKeyWebhooks;
export const accountReceivers = tables.accountReceivers;
