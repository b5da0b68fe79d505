import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first, touched } from '../query';
import { accessTokens, accountReceivers, accounts } from '../schema';

/** A new merchant account's row: its public pair halves, hashed client token and encrypted postback secret. */
export interface NewAccountRow {
  id: string;
  name: string;
  code: string;
  tokenHash: string;
  apiKey: string;
  postbackSecretEnc: string;
  createdAt: string;
  updatedAt: string;
}

/** What the dashboard and the bootstrap show of an account (never its secrets). */
export interface AccountRow { id: string; name: string; code: string; apiKey: string; createdAt: string }

/** The account as recebedor of its charges (account_receivers): document normalised, uf upper case, cep 8 digits. */
export interface AccountReceiverRow {
  accountId: string; document: string; name: string; tradeName: string | null;
  street: string; city: string; uf: string; cep: string; updatedAt: string;
}

/** A new access token's row (the token itself is never stored, only its hash). */
export interface NewAccessTokenRow { id: string; accountId: string; tokenHash: string; createdAt: string; expiresAt: string }

// the bearer check of every merchant request: prepared once per connection
const tokenByHash = perConnection((d) => d.select({ accountId: accessTokens.accountId, tokenHash: accessTokens.tokenHash }).from(accessTokens)
  .where(and(eq(accessTokens.tokenHash, sql.placeholder('hash')), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, sql.placeholder('now')))).prepare());

/** Accounts, their client pair and the access tokens it issues. */
export class AccountStore {
  constructor(private readonly db: DrizzleDb) {}

  async insertAccount(row: NewAccountRow): Promise<void> {
    await this.db.insert(accounts).values(row);
  }

  /** The account a client `code` names and the hash of its client token, for POST /auth/token. */
  async clientPairByCode(code: string): Promise<{ id: string; tokenHash: string } | undefined> {
    return first(this.db.select({ id: accounts.id, tokenHash: accounts.tokenHash }).from(accounts).where(eq(accounts.code, code)));
  }

  /** The account whose public api key this is, with the key as stored. */
  async byApiKey(apiKey: string): Promise<{ id: string; apiKey: string } | undefined> {
    return first(this.db.select({ id: accounts.id, apiKey: accounts.apiKey }).from(accounts).where(eq(accounts.apiKey, apiKey)));
  }

  async accountById(accountId: string): Promise<AccountRow | undefined> {
    return first(this.db.select({ id: accounts.id, name: accounts.name, code: accounts.code, apiKey: accounts.apiKey, createdAt: accounts.createdAt })
      .from(accounts).where(eq(accounts.id, accountId)));
  }

  /** Whether the database holds any account at all (reads one row at most). */
  async anyAccount(): Promise<boolean> {
    return (await this.db.select({ id: accounts.id }).from(accounts).limit(1)).length > 0;
  }

  /**
   * A new client token for the account (`tokenHash`), and every access token the old one issued
   * revoked at `at`; the account's code, or null (nothing changed) when there is no such account.
   */
  async replaceClientToken(accountId: string, tokenHash: string, at: string): Promise<{ code: string } | null> {
    const row = await first(this.db.update(accounts).set({ tokenHash, updatedAt: at }).where(eq(accounts.id, accountId)).returning({ code: accounts.code }));
    if (!row) return null;
    await this.db.update(accessTokens).set({ revokedAt: at }).where(and(eq(accessTokens.accountId, accountId), isNull(accessTokens.revokedAt)));
    return row;
  }

  async insertAccessToken(row: NewAccessTokenRow): Promise<void> {
    await this.db.insert(accessTokens).values(row);
  }

  /** The live (unrevoked, unexpired at `now`) access token with this hash: its account and hash. */
  async liveAccessToken(hash: string, now: string): Promise<{ accountId: string; tokenHash: string } | undefined> {
    return first(tokenByHash(this.db).execute({ hash, now }));
  }

  /** Revokes the unrevoked access token with this hash; whether there was one. */
  async revokeAccessToken(hash: string, at: string): Promise<boolean> {
    return (await touched(this.db.update(accessTokens).set({ revokedAt: at })
      .where(and(eq(accessTokens.tokenHash, hash), isNull(accessTokens.revokedAt))).returning({ id: accessTokens.id }))) > 0;
  }

  /** The merchant's name, which its Pix charges show; null for an unknown account. */
  async merchantName(accountId: string): Promise<string | null> {
    const account = await first(this.db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, accountId)));
    return account?.name ?? null;
  }

  /** The account's postback secret, as stored (encrypted). */
  async postbackSecretEncrypted(accountId: string): Promise<string | undefined> {
    return (await first(this.db.select({ enc: accounts.postbackSecretEnc }).from(accounts).where(eq(accounts.id, accountId))))?.enc;
  }

  /** The account's recebedor data, or undefined when none was registered. */
  async receiver(accountId: string): Promise<AccountReceiverRow | undefined> {
    return first(this.db.select().from(accountReceivers).where(eq(accountReceivers.accountId, accountId)));
  }

  /** Registers or replaces the account's recebedor data (one row per account). */
  async upsertReceiver(row: AccountReceiverRow): Promise<void> {
    const { accountId, ...rest } = row;
    await this.db.insert(accountReceivers).values(row).onConflictDoUpdate({ target: accountReceivers.accountId, set: rest });
  }
}
