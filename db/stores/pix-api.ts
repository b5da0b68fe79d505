import { and, asc, eq, gt, isNull, notExists, sql } from 'drizzle-orm';
import type { PixKeyType } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first, lockName, touched } from '../query';
import { accounts, pixApiClients, pixApiTokens, pixKeys } from '../schema';

/** One receiving Pix key of an account, live or removed. */
export interface PixKeyRow { id: string; accountId: string; key: string; keyType: PixKeyType; createdAt: string; removedAt: string | null }

/** The account's receiving Pix keys (the charges of the API Pix name one of them as `chave`). */
export class PixKeyStore {
  constructor(private readonly db: DrizzleDb) {}

  /** The account's live keys, oldest first. */
  async liveKeys(accountId: string): Promise<PixKeyRow[]> {
    return this.db.select().from(pixKeys).where(and(eq(pixKeys.accountId, accountId), isNull(pixKeys.removedAt)))
      .orderBy(asc(pixKeys.createdAt), asc(pixKeys.id));
  }

  /** The live key with this canonical spelling, whoever holds it. */
  async liveKey(key: string): Promise<PixKeyRow | undefined> {
    return first(this.db.select().from(pixKeys).where(and(eq(pixKeys.key, key), isNull(pixKeys.removedAt))));
  }

  /**
   * The key the account's charges show: its oldest live EVP, else its oldest live key; undefined for an
   * account with no key row yet (one the start-up backfill has not reached).
   */
  async receivingKey(accountId: string): Promise<string | undefined> {
    const row = await first(receivingKeyOf(this.db).execute({ accountId }));
    return row?.key;
  }

  /**
   * Inside a write job: the live holder of `key`, with a lock named by the key held until the job
   * commits (on PostgreSQL a concurrent add of the same key waits here, then sees this job's row).
   */
  async lockKey(key: string): Promise<PixKeyRow | undefined> {
    await lockName(this.db, `pix-key\n${key}`);
    return this.liveKey(key);
  }

  /** Inside a write job: the account's live keys, with the account's key list locked until the job commits. */
  async lockAccountKeys(accountId: string): Promise<PixKeyRow[]> {
    await lockName(this.db, `pix-keys-of\n${accountId}`);
    return this.liveKeys(accountId);
  }

  async insert(row: { id: string; accountId: string; key: string; keyType: PixKeyType; createdAt: string }): Promise<void> {
    await this.db.insert(pixKeys).values({ ...row, removedAt: null });
  }

  /** Marks the account's live key `id` removed; whether there was one. */
  async markRemoved(accountId: string, id: string, at: string): Promise<boolean> {
    return (await touched(this.db.update(pixKeys).set({ removedAt: at })
      .where(and(eq(pixKeys.id, id), eq(pixKeys.accountId, accountId), isNull(pixKeys.removedAt))).returning({ id: pixKeys.id }))) > 0;
  }

  /** Accounts after `after` (by id) that have never had a key row (created before keys were stored), at most `limit`. */
  async accountsWithoutKeys(after: string, limit: number): Promise<string[]> {
    const rows = await this.db.select({ id: accounts.id }).from(accounts)
      .where(and(gt(accounts.id, after), notExists(this.db.select({ one: sql`1` }).from(pixKeys).where(eq(pixKeys.accountId, accounts.id)))))
      .orderBy(asc(accounts.id)).limit(limit);
    return rows.map((r) => r.id);
  }

  /** Inserts a key unless a live row already holds it (a second instance backfilling at once); whether it did. */
  async insertIfFree(row: { id: string; accountId: string; key: string; keyType: PixKeyType; createdAt: string }): Promise<boolean> {
    return (await touched(this.db.insert(pixKeys).values({ ...row, removedAt: null }).onConflictDoNothing().returning({ id: pixKeys.id }))) > 0;
  }
}

// read on every Pix charge created: prepared once per connection
const receivingKeyOf = perConnection((d) => d.select({ key: pixKeys.key }).from(pixKeys)
  .where(and(eq(pixKeys.accountId, sql.placeholder('accountId')), isNull(pixKeys.removedAt)))
  .orderBy(sql`CASE WHEN ${pixKeys.keyType} = 'EVP' THEN 0 ELSE 1 END`, asc(pixKeys.createdAt), asc(pixKeys.id)).limit(1).prepare());

/** What a token request checks a client against. */
export interface PixApiClientRow { clientId: string; accountId: string; secretHash: string; scopes: string }

/** A live API Pix token as a request presents it. */
export interface LivePixApiTokenRow { accountId: string; clientId: string; tokenHash: string; scopes: string }

// the bearer check of every API Pix request: prepared once per connection
const pixTokenByHash = perConnection((d) => d.select({
  accountId: pixApiTokens.accountId, clientId: pixApiTokens.clientId, tokenHash: pixApiTokens.tokenHash, scopes: pixApiTokens.scopes,
}).from(pixApiTokens)
  .where(and(eq(pixApiTokens.tokenHash, sql.placeholder('hash')), isNull(pixApiTokens.revokedAt), gt(pixApiTokens.expiresAt, sql.placeholder('now')))).prepare());

/** The accounts' API Pix clients (OAuth2 client credentials) and the tokens they are issued. */
export class PixApiClientStore {
  constructor(private readonly db: DrizzleDb) {}

  async insertClient(row: { clientId: string; accountId: string; secretHash: string; scopes: string; createdAt: string }): Promise<void> {
    await this.db.insert(pixApiClients).values({ ...row, secretSetAt: row.createdAt });
  }

  async clientById(clientId: string): Promise<PixApiClientRow | undefined> {
    return first(this.db.select({ clientId: pixApiClients.clientId, accountId: pixApiClients.accountId, secretHash: pixApiClients.secretHash, scopes: pixApiClients.scopes })
      .from(pixApiClients).where(eq(pixApiClients.clientId, clientId)));
  }

  /** The account's client: its public id, scopes and when its secret was set (never the secret's hash). */
  async clientOf(accountId: string): Promise<{ clientId: string; scopes: string; secretSetAt: string } | undefined> {
    return first(this.db.select({ clientId: pixApiClients.clientId, scopes: pixApiClients.scopes, secretSetAt: pixApiClients.secretSetAt })
      .from(pixApiClients).where(eq(pixApiClients.accountId, accountId)));
  }

  /**
   * Inside a write job: a new secret for the account's client, and every token the old one got revoked
   * at `at`; the client id, or null when it has none. The account's client stays locked until the job
   * commits, so two first rotations at once cannot both make one.
   */
  async replaceSecret(accountId: string, secretHash: string, at: string): Promise<string | null> {
    await lockName(this.db, `pix-client-of\n${accountId}`);
    const row = await first(this.db.update(pixApiClients).set({ secretHash, secretSetAt: at })
      .where(eq(pixApiClients.accountId, accountId)).returning({ clientId: pixApiClients.clientId }));
    if (!row) return null;
    await this.db.update(pixApiTokens).set({ revokedAt: at }).where(and(eq(pixApiTokens.clientId, row.clientId), isNull(pixApiTokens.revokedAt)));
    return row.clientId;
  }

  async insertToken(row: { id: string; clientId: string; accountId: string; tokenHash: string; scopes: string; createdAt: string; expiresAt: string }): Promise<void> {
    await this.db.insert(pixApiTokens).values({ ...row, revokedAt: null });
  }

  /** The live (unrevoked, unexpired at `now`) token with this hash. */
  async liveToken(hash: string, now: string): Promise<LivePixApiTokenRow | undefined> {
    return first(pixTokenByHash(this.db).execute({ hash, now }));
  }
}
