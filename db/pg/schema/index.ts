// The PostgreSQL tables: the declarations of db/schema/tables.ts built with the PostgreSQL kit (drizzle-kit
// generates db/pg/migrations from this file; db/pg/open.ts and the PostgreSQL tests use them).
import { declareTables } from '../../schema/tables';
import { kit } from './kit';

// named one by one: drizzle-kit and the imports want each table as an export of its own
export const {
  accounts, accessTokens, dashboardUsers, dashboardSessions, auditTrail, ledgerBooks, ledgerEntries, ledgerLines, events, idempotencyKeys,
  withdrawals, withdrawalBatches, customers, transactions, disputes, refunds, webhooks, deliveries, deliveryAttempts,
  limitBuckets, limitAttempts, limitSignInDelays, nameWords, pixKeys, pixApiClients, pixApiTokens,
  pixLocations, pixCharges, pixChargeRevisions, pixCobvBatches, pixCobvBatchItems, pixReceived, pixDevolucoes, pixKeyWebhooks,
  accountReceivers,
} = declareTables(kit);
