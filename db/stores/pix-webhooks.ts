// The API Pix webhooks per key (PUT /v2/webhook/{chave}).
import { and, asc, count, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { first, lockName } from '../query';
import { pixKeyWebhooks } from '../schema';

/** The webhook of one key: `url` is the webhookUrl as registered (notifications go to `{url}/pix`). */
export interface PixKeyWebhookRow { chave: string; accountId: string; url: string; createdAt: string; updatedAt: string }

/** Which of an account's webhooks a list reads: created within [inicio, fim], either end optional. */
export interface PixKeyWebhookFilter { accountId: string; inicio?: string; fim?: string }

function where(f: PixKeyWebhookFilter): SQL | undefined {
  return and(
    eq(pixKeyWebhooks.accountId, f.accountId),
    f.inicio ? gte(pixKeyWebhooks.createdAt, f.inicio) : undefined,
    f.fim ? lte(pixKeyWebhooks.createdAt, f.fim) : undefined,
  );
}

/** Webhooks per Pix key: at most one per key (the key is the primary key), always of the key's holder. */
export class PixKeyWebhookStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: the webhook of `chave`, with a lock named by the key held until the job commits,
   * so a notification queued and the webhook changed or dropped take turns (on PostgreSQL a pay job
   * committing beside a DELETE would otherwise queue to a URL the DELETE had just stopped).
   */
  async lockOfKey(accountId: string, chave: string): Promise<PixKeyWebhookRow | undefined> {
    await lockName(this.db, `pix-key-webhook\n${chave}`);
    return this.ofKey(accountId, chave);
  }

  /** The webhookUrls of the account's webhooks. */
  async urlsOf(accountId: string): Promise<string[]> {
    return (await this.db.select({ url: pixKeyWebhooks.url }).from(pixKeyWebhooks).where(eq(pixKeyWebhooks.accountId, accountId))).map((r) => r.url);
  }

  /** The webhook of `chave` if the account has one there (another account's key looks like no webhook). */
  async ofKey(accountId: string, chave: string): Promise<PixKeyWebhookRow | undefined> {
    return first(this.db.select().from(pixKeyWebhooks).where(and(eq(pixKeyWebhooks.chave, chave), eq(pixKeyWebhooks.accountId, accountId))));
  }

  /**
   * Inside a write job, with the account's keys locked: registers or replaces the key's webhook; the row
   * as stored. A replaced URL keeps the webhook's `criacao`. A row left by an earlier holder of the key
   * (none should be: removing a key drops its webhook in the same job) is taken over, never shared.
   */
  async upsert(row: { chave: string; accountId: string; url: string; at: string }): Promise<PixKeyWebhookRow> {
    const [stored] = await this.db.insert(pixKeyWebhooks)
      .values({ chave: row.chave, accountId: row.accountId, url: row.url, createdAt: row.at, updatedAt: row.at })
      .onConflictDoUpdate({ target: pixKeyWebhooks.chave, set: { accountId: row.accountId, url: row.url, updatedAt: row.at } })
      .returning();
    return stored;
  }

  /** Removes the account's webhook of `chave`; the row removed, if there was one. */
  async remove(accountId: string, chave: string): Promise<PixKeyWebhookRow | undefined> {
    return first(this.db.delete(pixKeyWebhooks).where(and(eq(pixKeyWebhooks.chave, chave), eq(pixKeyWebhooks.accountId, accountId))).returning());
  }

  /** How many of the account's webhooks point to `url` (several keys may share one receiver). */
  async countWithUrl(accountId: string, url: string): Promise<number> {
    const row = await first(this.db.select({ n: count() }).from(pixKeyWebhooks)
      .where(and(eq(pixKeyWebhooks.accountId, accountId), eq(pixKeyWebhooks.url, url))));
    return Number(row?.n ?? 0);
  }

  /** The account's webhooks created within the filter's window, oldest first, `offset` rows skipped, at most `limit`. */
  async page(f: PixKeyWebhookFilter, offset: number, limit: number): Promise<PixKeyWebhookRow[]> {
    return this.db.select().from(pixKeyWebhooks).where(where(f))
      .orderBy(asc(pixKeyWebhooks.createdAt), asc(pixKeyWebhooks.chave)).limit(limit).offset(offset);
  }

  /** How many webhooks the filter matches. */
  async count(f: PixKeyWebhookFilter): Promise<number> {
    const row = await first(this.db.select({ n: count() }).from(pixKeyWebhooks).where(where(f)));
    return Number(row?.n ?? 0);
  }
}
