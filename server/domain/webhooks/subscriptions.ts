import type { Stores } from '../../../db';
import type { WebhookRow } from '../../../db/stores/webhooks';
import { DomainError, validationError } from '../../errors';
import type { Services } from '../../services';
import { checkIdempotencyKey, requestFingerprint, runIdempotent, type IdempotentCreateOptions, type IdempotentOperation, type IdempotentResult } from '../idempotency';
import { newId } from '../ids';
import type { EventCategory } from '../events';
import { MAX_WEBHOOK_URL_LENGTH } from '../../../contract/webhooks';
import { decryptSecret, encryptSecret, newWebhookSecret } from './secrets';
import { checkWebhookUrl } from './url-guard';
import { confirmPassword } from '../sessions';
import { recordAudit, recordDisclosure, type DashboardActor } from '../audit-trail';

export { MAX_WEBHOOK_URL_LENGTH, WEBHOOK_CATEGORIES } from '../../../contract/webhooks';

/** Caps the fan-out one account can cause: every event is sent once per webhook. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 50;

/** The spec's webhook shape, owned here: the router's schema (server/routers/webhooks/schemas.ts) is checked against it. */
export interface WebhookView {
  magic_id: string;
  url: string;
  /** whsec_… signing secret; masked (whsec_…last4) for dashboard sessions. */
  secret: string;
  events: EventCategory[];
  /** false once the receiver answered 410 Gone. */
  active: boolean;
  paused: boolean;
  /** After a rotation: until when the previous secret still signs deliveries. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

function view(row: WebhookRow, secret: string): WebhookView {
  return {
    magic_id: row.id,
    url: row.url,
    secret,
    events: JSON.parse(row.events) as EventCategory[],
    active: row.active === 1,
    paused: row.pausedAt !== null,
    previous_secret_expires_at: row.previousSecretExpiresAt,
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
  const answer = await runIdempotent<{ webhook: WebhookView }>(s, scope, fingerprint, async (tx) => {
    // on PostgreSQL creates of one account run at once on any instance: count and insert under one lock
    const n = await tx.webhooks.countLiveForCreate(accountId);
    if (n >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new DomainError('UNPROCESSABLE', `an account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`);
    }
    const at = s.clock.now().toISOString();
    const row: WebhookRow = {
      id: newId('webhook'), accountId, url, secretEnc, events: JSON.stringify(events),
      active: 1, pausedAt: null, previousSecretEnc: null, previousSecretExpiresAt: null, createdAt: at, updatedAt: at, deletedAt: null,
    };
    await tx.webhooks.insert(row);
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
export async function listWebhooks(s: Services, accountId: string, o: { secrets: SecretDisclosure }): Promise<WebhookView[]> {
  const rows = await s.db.read.webhooks.liveOf(accountId);
  return rows.map((r) => view(r, disclose(s, r.secretEnc, o.secrets)));
}

/** A live (not deleted) webhook of the account, or 404 (another account's id looks unknown). */
export async function liveWebhook(tx: Stores, accountId: string, id: string): Promise<WebhookRow> {
  const row = await tx.webhooks.live(accountId, id);
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
    await tx.webhooks.update(id, { deletedAt: at, active: 0, updatedAt: at });
    const stopped = await tx.deliveries.failPendingOfWebhook(id, 'webhook deleted', at);
    // another webhook or postback with the same URL may have been queued behind these
    await tx.deliveries.promoteQueueHeads(stopped, at);
    return { deleted_at: at };
  });
}

/**
 * Whether an answer carries the plain secret. The webhook API (x-api-key + x-token) always did, and
 * its clients read it from the list; a dashboard session gets it masked and must re-enter the password
 * (revealWebhookSecret), so an unattended signed-in browser does not hand out signing secrets.
 */
export type SecretDisclosure = 'plain' | 'masked';

/** `whsec_…` plus the last four characters: enough to tell secrets apart, useless for signing. */
export function maskSecret(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

function disclose(s: Services, secretEnc: string, how: SecretDisclosure): string {
  const plain = decryptSecret(secretEnc, s.masterKey);
  return how === 'plain' ? plain : maskSecret(plain);
}

function answer(s: Services, row: WebhookRow, how: SecretDisclosure): WebhookView {
  return view(row, disclose(s, row.secretEnc, how));
}

/** After a rotation the old secret still signs (a second `v1,` signature) for this long, as Standard Webhooks and Stripe allow. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface UpdateWebhookInput { url?: string; events?: EventCategory[] }

/**
 * Changes an endpoint's URL and/or categories. A new URL passes the same SSRF check as at creation
 * (before the write job: DNS may be slow). Deliveries still pending move to the new URL; new
 * categories apply to events recorded from now on.
 */
export async function updateWebhook(s: Services, accountId: string, id: string, input: UpdateWebhookInput, how: SecretDisclosure) {
  if (input.url === undefined && input.events === undefined) throw validationError([{ path: 'url', message: 'send url and/or events' }]);
  if (input.url !== undefined) {
    const checked = await checkWebhookUrl(input.url, { allowPrivate: s.config.webhookAllowPrivateUrls });
    if (!checked.ok) throw validationError([{ path: 'url', message: checked.reason }]);
  }
  const row = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, id);
    const at = s.clock.now().toISOString();
    const set = { url: input.url ?? hook.url, events: input.events ? JSON.stringify(input.events) : hook.events, updatedAt: at };
    await tx.webhooks.update(id, set);
    if (set.url !== hook.url) {
      // ordering queues are per URL: the moved deliveries keep their order among themselves
      await tx.deliveries.moveQueuedTo(id, set.url, at);
    }
    return { ...hook, ...set };
  });
  return answer(s, row, how);
}

/**
 * Pauses an endpoint: events recorded while it is paused are not queued for it (they are skipped, as
 * for a disabled Stripe endpoint; they stay in the event log), and deliveries already queued wait,
 * unattempted, until it is resumed. Pausing a paused endpoint changes nothing.
 */
export async function pauseWebhook(s: Services, accountId: string, id: string, how: SecretDisclosure) {
  const row = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, id);
    if (hook.pausedAt) return hook;
    const at = s.clock.now().toISOString();
    await tx.webhooks.update(id, { pausedAt: at, updatedAt: at });
    return { ...hook, pausedAt: at, updatedAt: at };
  });
  return answer(s, row, how);
}

/**
 * Resumes a paused endpoint, or re-enables one disabled by a 410: the deliveries that waited are sent
 * (in order), and new events reach it again.
 */
export async function resumeWebhook(s: Services, accountId: string, id: string, how: SecretDisclosure) {
  const row = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, id);
    if (!hook.pausedAt && hook.active === 1) return hook;
    const at = s.clock.now().toISOString();
    await tx.webhooks.update(id, { pausedAt: null, active: 1, updatedAt: at });
    return { ...hook, pausedAt: null, active: 1, updatedAt: at };
  });
  s.wake.delivery?.();
  return answer(s, row, how);
}

/**
 * A new signing secret; the current one becomes the previous one, still signing every delivery
 * (a second `v1,` signature) for ROTATION_OVERLAP_MS, so receivers can switch without losing events.
 * The answer carries the new secret in plain: whoever may rotate may read it (the dashboard asks for
 * the password first).
 */
export async function rotateWebhookSecret(s: Services, accountId: string, id: string, alongside?: (tx: Stores, at: Date) => Promise<void>) {
  const secret = newWebhookSecret();
  const secretEnc = encryptSecret(secret, s.masterKey);
  const row = await s.db.write(async (tx) => {
    const hook = await liveWebhook(tx, accountId, id);
    const now = s.clock.now();
    const set = {
      secretEnc, previousSecretEnc: hook.secretEnc,
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(), updatedAt: now.toISOString(),
    };
    await tx.webhooks.update(id, set);
    await alongside?.(tx, now);
    return { ...hook, ...set };
  });
  return answer(s, row, 'plain');
}

/** The dashboard's rotation: after the password, and recorded in the audit trail in the rotation's own write job. */
export async function rotateWebhookSecretConfirmed(s: Services, who: DashboardActor, id: string, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  return rotateWebhookSecret(s, who.accountId, id, (tx, at) => recordAudit(tx, who, 'webhook_secret.rotate', at, id));
}

/**
 * The current signing secret, after the person re-entered their password (a miss counts as a failed
 * sign-in); recorded before it is answered. Another account's webhook is a 404 and records nothing.
 */
export async function revealWebhookSecret(s: Services, who: DashboardActor, id: string, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  const hook = await liveWebhook(s.db.read, who.accountId, id);
  await recordDisclosure(s, who, 'webhook_secret.reveal', id);
  return answer(s, hook, 'plain');
}
