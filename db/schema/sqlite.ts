// The SQLite tables (drizzle-kit generates db/migrations from this file; db/schema/index.ts picks the engine's).
import { kit } from './kit-sqlite';
import { declareTables } from './tables';

export { DASHBOARD_LOCALES, DEFAULT_LOCALE, type DashboardLocale, AUDIT_ACTIONS, type AuditAction } from './accounts';
export { BALANCE_CEILING_CENTS, BALANCE_CEILING_ENTRY_KINDS } from './ledger';

// named one by one: drizzle-kit and the imports want each table as an export of its own
export const {
  accounts, accessTokens, dashboardUsers, dashboardSessions, auditTrail, ledgerBooks, ledgerEntries, ledgerLines, events, idempotencyKeys,
  withdrawals, withdrawalBatches, customers, transactions, disputes, refunds, webhooks, deliveries, deliveryAttempts,
  limitBuckets, limitAttempts, limitSignInDelays, nameWords, pixKeys, pixApiClients, pixApiTokens,
  pixLocations, pixCharges, pixChargeRevisions, pixCobvBatches, pixCobvBatchItems, pixReceived, pixDevolucoes, pixKeyWebhooks,
  accountReceivers,
} = declareTables(kit);
