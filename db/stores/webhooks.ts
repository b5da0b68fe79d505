import { and, asc, count, eq, isNull } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { webhooks } from '../schema';
import { first, lockName } from '../query';

/** A webhook (subscription) as stored; `events` is its JSON array of categories, secrets are encrypted. */
export interface WebhookRow {
  id: string;
  accountId: string;
  url: string;
  secretEnc: string;
  events: string;
  active: number;
  pausedAt: string | null;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/** What an edit of a webhook may change (its URL, categories, pause, activity, secrets, deletion). */
export type WebhookChange = Partial<Pick<WebhookRow,
  'url' | 'events' | 'active' | 'pausedAt' | 'secretEnc' | 'previousSecretEnc' | 'previousSecretExpiresAt' | 'deletedAt'>> & { updatedAt: string };

/** The webhooks (subscriptions) of the accounts. */
export class WebhookStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: how many live (not deleted) webhooks the account has, holding the account's
   * webhook creation lock until the job commits, so that on PostgreSQL creates of one account running at
   * once on any instance count and insert one after the other. (SQLite's single writer already does.)
   */
  async countLiveForCreate(accountId: string): Promise<number> {
    await lockName(this.db, `webhooks-of\n${accountId}`);
    const [{ n }] = await this.db.select({ n: count() }).from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt)));
    return n;
  }

  async insert(row: WebhookRow): Promise<void> {
    await this.db.insert(webhooks).values(row);
  }

  /** The account's live (not deleted) webhooks, oldest first. */
  async liveOf(accountId: string): Promise<WebhookRow[]> {
    return this.db.select().from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt)))
      .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  }

  /** One live webhook of the account. */
  async live(accountId: string, id: string): Promise<WebhookRow | undefined> {
    return first(this.db.select().from(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt))));
  }

  /** A webhook by id, deleted or not, as a resend by hand checks it. */
  async stateOf(id: string): Promise<{ active: number; deletedAt: string | null; pausedAt: string | null; url: string } | undefined> {
    return first(this.db.select({ active: webhooks.active, deletedAt: webhooks.deletedAt, pausedAt: webhooks.pausedAt, url: webhooks.url })
      .from(webhooks).where(eq(webhooks.id, id)));
  }

  async update(id: string, change: WebhookChange): Promise<void> {
    await this.db.update(webhooks).set(change).where(eq(webhooks.id, id));
  }

  /** Turns an active webhook inactive (its receiver answered 410); one already inactive is left as it is. */
  async deactivate(id: string, at: string): Promise<void> {
    await this.db.update(webhooks).set({ active: 0, updatedAt: at }).where(and(eq(webhooks.id, id), eq(webhooks.active, 1)));
  }
}
