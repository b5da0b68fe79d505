import { openConnection, drizzleOver, type DrizzleDb } from '../../db/client';
import { storesOver, type Stores } from '../../db/stores';
import { openDatabase } from '../../db';
import { onPostgres } from '../../db/dialect';
import { loadConfig } from '../../server/config';
import { createAccount, type AccountCredentials } from '../../server/domain/accounts';
import { loadMasterKey } from '../../server/domain/master-key';
import { accessToken, serverDatabaseUrl } from './server';
import { systemClock } from '../../server/clock';

/**
 * Creates another account in a running server's database (as `npm run account:create` would): its own
 * writer connection beside the server's; busy_timeout covers the overlap. Returns its credentials and
 * an access token obtained over HTTP.
 */
export async function accountInServer(url: string, databasePath: string, o: { name?: string; balance?: number } = {}): Promise<AccountCredentials & { accessToken: string }> {
  const config = loadConfig({ databasePath, rateLimitRps: 0 });
  // on PostgreSQL: the server's own database (test/support/server.ts), not the file's
  const s = { db: openDatabase(databasePath, { url: serverDatabaseUrl(databasePath) }), masterKey: loadMasterKey(config.databasePath, config.secretsKeyPath) };
  try {
    const creds = await createAccount({ db: s.db, masterKey: s.masterKey, clock: systemClock }, { name: o.name ?? 'Second Merchant', balance: o.balance });
    return { ...creds, accessToken: await accessToken(url, creds.code, creds.token) };
  } finally {
    await s.db.close();
  }
}

/** A read-only look at a running server's database (committed data only). */
export function readServerDb(databasePath: string): { db: Stores; close(): void } {
  // on PostgreSQL (vitest.pg.config.ts): the server's own database on the file's cluster
  if (onPostgres) {
    const d = openDatabase(databasePath, { url: serverDatabaseUrl(databasePath) });
    return { db: d.read, close: () => { void d.close(); } };
  }
  const conn = openConnection(databasePath, { readonly: true });
  return { db: storesOver(drizzleOver(conn)), close: () => conn.close() };
}

/** A POST /withdraw/pix body to a phone key, for a CNPJ holder; `o` overrides or adds fields (amount, external_ref…). */
export function phoneWithdrawal(o: Record<string, unknown> = {}) {
  return { amount: 1_000, key: '+55 11 98765-4321', key_type: 'PHONE', details: { name: 'Beltrano', document: '11.222.333/0001-81' }, ...o };
}
