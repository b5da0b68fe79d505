import { accountTables } from './accounts';
import type { Columns, Dialect, Kit } from './kit';
import { ledgerTables } from './ledger';
import { limitTables } from './limits';
import { pixApiTables } from './pix-api';
import { pixChargeTables } from './pix-charges';
import { platformTables } from './platform';
import { searchTables } from './search';
import { transactionTables } from './transactions';
import { webhookTables } from './webhooks';
import { withdrawalTables } from './withdrawals';

/**
 * Every table of the service, declared once (in the aggregate files beside this one) and built with one
 * engine's kit: ./sqlite.ts for SQLite, db/pg/schema/index.ts for PostgreSQL. What the two engines'
 * migrations made is compared by test/unit/pg-schema-parity.test.ts.
 */
export function declareTables<D extends Dialect, C extends Columns>(k: Kit<D, C>) {
  const accounts = accountTables(k);
  const platform = platformTables(k, accounts);
  const charges = transactionTables(k, accounts);
  return {
    ...accounts,
    ...ledgerTables(k, accounts),
    ...platform,
    ...withdrawalTables(k, accounts),
    ...charges,
    ...webhookTables(k, { ...accounts, ...platform }),
    ...limitTables(k),
    ...searchTables(k),
    ...pixApiTables(k, accounts),
    ...pixChargeTables(k, { ...accounts, ...charges }),
  };
}
