import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { PIX_KEY_TYPES } from '../../contract/enums';

/**
 * What the Banco Central's API Pix needs of an account (docs/decisions.md "The Banco Central's API Pix"):
 * its receiving Pix keys, and the OAuth2 client its integrations authenticate with.
 */
export function pixApiTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts }: { accounts: { id: unknown } }) {
  /**
   * An account's receiving Pix keys, in their canonical spelling (contract/pix/keys.ts). Created with
   * the account (its EVP); more can be added, and any but the last removed. A removed key keeps its row
   * (`removed_at`), so what a charge named stays explained; a live key belongs to one account only.
   */
  const pixKeys = k.table('pix_keys', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    key: k.text('key'),
    keyType: k.enumText('key_type', PIX_KEY_TYPES),
    createdAt: k.instant('created_at'),
    removedAt: k.instantOrNull('removed_at'),
  }, (t) => [
    // one live holder per key, whatever races (the store also takes a lock named by the key first)
    k.uniqueIndex('pix_keys_live_key_uq').on(t.key).where(sql`${t.removedAt} IS NULL`),
    k.index('pix_keys_account_idx').on(t.accountId, t.createdAt),
    k.check('pix_keys_key_type_ck', sql`${t.keyType} IN (${sql.raw(PIX_KEY_TYPES.map((v) => `'${v}'`).join(', '))})`),
  ]);

  /**
   * The account's API Pix client (OAuth2 client credentials): a public client id and the SHA-256 of its
   * secret (random, ≥128 bits, so a fast hash is enough, as for the client token), and the scopes it
   * may be granted, space-separated.
   */
  const pixApiClients = k.table('pix_api_clients', {
    clientId: k.text('client_id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    secretHash: k.text('secret_hash'),
    scopes: k.text('scopes'),
    createdAt: k.instant('created_at'),
    /** When the secret last changed (the creation, or the latest rotation). */
    secretSetAt: k.instant('secret_set_at'),
  }, (t) => [
    k.uniqueIndex('pix_api_clients_account_uq').on(t.accountId),
  ]);

  /** Bearer tokens of the API Pix, stored as SHA-256 hashes, with the scopes granted. */
  const pixApiTokens = k.table('pix_api_tokens', {
    id: k.text('id').primaryKey(),
    clientId: k.text('client_id').references(() => pixApiClients.clientId),
    accountId: k.text('account_id').references(() => accounts.id),
    tokenHash: k.text('token_hash'),
    scopes: k.text('scopes'),
    createdAt: k.instant('created_at'),
    expiresAt: k.instant('expires_at'),
    revokedAt: k.instantOrNull('revoked_at'),
  }, (t) => [
    k.uniqueIndex('pix_api_tokens_hash_uq').on(t.tokenHash),
    k.index('pix_api_tokens_client_idx').on(t.clientId),
  ]);

  return { pixKeys, pixApiClients, pixApiTokens };
}
