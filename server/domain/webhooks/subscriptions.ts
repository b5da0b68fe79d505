import { and, asc, count, eq, isNull } from 'drizzle-orm';
import type { DrizzleDb } from '../../../db';
import { deliveries, webhooks } from '../../../db/schema';
import { DomainError, validationError } from '../../errors';
import type { Services } from '../../services';
import { checkIdempotencyKey, requestFingerprint, runIdempotent, type IdempotentCreateOptions, type IdempotentOperation, type IdempotentResult } from '../idempotency';
import { newId } from '../ids';
import type { EventCategory } from '../events';
import { MAX_WEBHOOK_URL_LENGTH } from './categories';
import { promoteQueueHeads } from './queues';
import { decryptSecret, encryptSecret, newWebhookSecret } from './secrets';
import { checkWebhookUrl } from './url-guard';
import type { z } from 'zod';
import type { webhookView } from '../../routers/webhooks/schemas';

export { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_CATEGORIES } from './categories';

/** Caps the fan-out one account can cause: every event is sent once per webhook. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 50;

/** The spec's webhook shape; its type is the contract's. */
export type WebhookView = z.infer<typeof webhookView>;

type WebhookRow = typeof webhooks.$inferSelect;

function view(row: WebhookRow, secret: string): WebhookView {
  return {
    magic_id: row.id,
    url: row.url,
    secret,
    events: JSON.parse(row.events) as EventCategory[],
    active: row.active === 1,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export interface CreateWebhookInput { url: string; events: EventCategory[] }

const OPERATION: IdempotentOperation = 'webhook.create';

/**
 * Registers a webhook. The URL passes the SSRF guard before anything is stored. The answer is stored
 * under the idempotency key with the secret still encrypted (secrets stay encrypted at rest, the
 * idempotency table included) and decrypted on the way out, so a replay is byte-identical.
 */
export async function createWebhook(
  s: Services,
  accountId: string,
  input: CreateWebhookInput,
  opts: IdempotentCreateOptions = {},
): Promise<IdempotentResult<{ webhook: WebhookView }>> {
  const key = checkIdempotencyKey(opts.idempotencyKey);
  const { url, events } = input;
  const duplicates = events.filter((e, i) => events.indexOf(e) !== i);
  if (events.length === 0) throw validationError([{ path: 'events', message: 'must list at least one of transaction, withdraw, dispute' }]);
  if (duplicates.length) throw validationError([{ path: 'events', message: `lists ${duplicates[0]} more than once` }]);
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw validationError([{ path: 'url', message: `at most ${MAX_WEBHOOK_URL_LENGTH} characters` }]);

  const scope = { accountId, operation: OPERATION, key };
  const fingerprint = requestFingerprint(s.masterKey, OPERATION, { url, events });
  const secret = newWebhookSecret();
  const secretEnc = encryptSecret(secret, s.masterKey);
  const answer = await runIdempotent<{ webhook: WebhookView }>(s.db, scope, fingerprint, () => s.clock.now(), async (tx) => {
    const [{ n }] = await tx.select({ n: count() }).from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt))).all();
    if (n >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new DomainError('UNPROCESSABLE', `an account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`);
    }
    const at = s.clock.now().toISOString();
    const row: WebhookRow = {
      id: newId('webhook'), accountId, url, secretEnc, events: JSON.stringify(events),
      active: 1, createdAt: at, updatedAt: at, deletedAt: null,
    };
    await tx.insert(webhooks).values(row);
    // stored with the secret still encrypted; decrypted on the way out
    return { webhook: view(row, secretEnc) };
  }, async () => {
    // DNS may be slow: checked before the write job, never inside it (and not at all for a replay)
    const checked = await checkWebhookUrl(url, { allowPrivate: s.config.webhookAllowPrivateUrls });
    if (!checked.ok) throw validationError([{ path: 'url', message: checked.reason }]);
  });
  return { webhook: { ...answer.webhook, secret: decryptSecret(answer.webhook.secret, s.masterKey) }, replayed: answer.replayed };
}

/**
 * Every webhook of the account that is not deleted, oldest first. `secret` is included: it is in the
 * spec's webhook shape and existing clients read it from the list.
 */
export async function listWebhooks(s: Services, accountId: string): Promise<WebhookView[]> {
  const rows = await s.db.read.select().from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt)))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id)).all();
  return rows.map((r) => view(r, decryptSecret(r.secretEnc, s.masterKey)));
}

/** A live (not deleted) webhook of the account, or 404 (another account's id looks unknown). */
export async function liveWebhook(db: DrizzleDb, accountId: string, id: string): Promise<WebhookRow> {
  const row = await db.select().from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId), isNull(webhooks.deletedAt))).get();
  if (!row) throw new DomainError('NOT_FOUND', 'webhook not found');
  return row;
}

/**
 * Deletes a webhook (soft: its deliveries keep their log). In the same write job its pending
 * deliveries stop: they become FAILED with last_error "webhook deleted".
 */
export async function deleteWebhook(s: Services, accountId: string, id: string): Promise<{ deleted_at: string }> {
  return s.db.write(async (tx) => {
    await liveWebhook(tx, accountId, id);
    const at = s.clock.now().toISOString();
    await tx.update(webhooks).set({ deletedAt: at, active: 0, updatedAt: at }).where(eq(webhooks.id, id)).run();
    const stopped = await tx.update(deliveries).set({ status: 'FAILED', nextAttemptAt: null, manual: 0, lastError: 'webhook deleted', updatedAt: at })
      .where(and(eq(deliveries.webhookId, id), eq(deliveries.status, 'PENDING'))).returning({ id: deliveries.id }).all();
    // another webhook or postback with the same URL may have been queued behind these
    await promoteQueueHeads(tx, stopped.map((d) => d.id), at);
    return { deleted_at: at };
  });
}
