// The API Pix webhooks per key (docs/bcb-pix-api-2.9.0.yaml, /webhook/{chave} and its `listaPix`
// callback): one URL per live key of the account; each Pix received on the key, and each devolução of it
// that changes, is POSTed to `{webhookUrl}/pix` as `{"pix":[…]}` through the same delivery machinery as
// every other webhook (server/domain/webhooks: retries, the SSRF guard at send time, the delivery log,
// resend), signed with the Standard Webhooks headers using the account's postback secret.
import type { Stores } from '../../../db';
import type { PixKeyWebhookRow } from '../../../db/stores/pix-webhooks';
import type { WebhookCompleto, WebhookConsulta, WebhooksConsultados } from '../../../contract/bcb';
import { MAX_WEBHOOK_URL_LENGTH } from '../../../contract/webhooks';
import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { newId } from '../ids';
import type { EventType } from '../events';
import { checkWebhookUrl } from '../webhooks/url-guard';

/** Why a pending notification stopped when its key's webhook went away. */
const WEBHOOK_REMOVED = 'webhook of the Pix key removed';

function view(r: PixKeyWebhookRow): WebhookCompleto {
  return { webhookUrl: r.url, chave: r.chave, criacao: r.createdAt };
}

/** A refusal of PUT /webhook/{chave} naming the property, as the yaml's WebhookOperacaoInvalida lists them. */
function refused(path: 'chave' | 'webhookUrl', message: string): DomainError {
  return new DomainError('VALIDATION', `${path}: ${message}`, { problem: 'WebhookOperacaoInvalida', issues: [{ path, message }] });
}

function notFound(): DomainError {
  return new DomainError('NOT_FOUND', 'nenhum webhook cadastrado para esta chave', { problem: 'WebhookNaoEncontrado' });
}

/**
 * Where a key's notifications go: the yaml's callback `{webhookUrl}/pix`, appended to the URL's path (one
 * slash between them; a query string stays a query string).
 */
export function pixCallbackUrl(webhookUrl: string): string {
  const u = new URL(webhookUrl);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/pix`;
  return u.toString();
}

/**
 * The URL rules, before anything is stored and outside any write job (DNS may be slow): the existing
 * webhooks' SSRF guard (server/domain/webhooks/url-guard.ts), and https, as the Banco Central's callbacks
 * are (mTLS at the receiver's side). WEBHOOK_ALLOW_PRIVATE_URLS, which lets the existing webhooks reach
 * private addresses for development and tests, also lets this one be plain http.
 */
async function checkCallbackUrl(s: Pick<Services, 'config'>, url: string): Promise<void> {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw refused('webhookUrl', `no máximo ${MAX_WEBHOOK_URL_LENGTH} caracteres`);
  const checked = await checkWebhookUrl(url, { allowPrivate: s.config.webhookAllowPrivateUrls });
  if (!checked.ok) throw refused('webhookUrl', checked.reason);
  if (checked.url.protocol !== 'https:' && !s.config.webhookAllowPrivateUrls) throw refused('webhookUrl', 'o webhook deve ser uma URL https');
}

/**
 * PUT /webhook/{chave}: registers `webhookUrl` for one of the account's live keys, or replaces the URL of
 * its webhook. A key that is not a live key of this account is a 400 naming `chave` (as the yaml lists
 * it), checked before the URL and again under the lock of the account's keys, so a key removed meanwhile
 * never keeps a webhook. Notifications still queued for the old URL move to the new one, unless another
 * key of the account still points there.
 */
export async function configurePixKeyWebhook(s: Pick<Services, 'db' | 'clock' | 'config'>, accountId: string, chave: string, webhookUrl: string): Promise<void> {
  const mine = (keys: { key: string }[]) => keys.some((k) => k.key === chave);
  if (!mine(await s.db.read.pixKeys.liveKeys(accountId))) throw refused('chave', 'a chave não é uma chave Pix deste usuário recebedor');
  await checkCallbackUrl(s, webhookUrl);
  await s.db.write(async (tx) => {
    if (!mine(await tx.pixKeys.lockAccountKeys(accountId))) throw refused('chave', 'a chave não é uma chave Pix deste usuário recebedor');
    const at = s.clock.now().toISOString();
    const before = await tx.pixKeyWebhooks.lockOfKey(accountId, chave);
    await tx.pixKeyWebhooks.upsert({ chave, accountId, url: webhookUrl, at });
    if (before && before.url !== webhookUrl && (await tx.pixKeyWebhooks.countWithUrl(accountId, before.url)) === 0) {
      await tx.deliveries.moveQueuedOfUrl(accountId, 'pix', pixCallbackUrl(before.url), pixCallbackUrl(webhookUrl), at);
    }
  });
}

/** GET /webhook/{chave}: the key's webhook; 404 when it has none (another account's key alike). */
export async function getPixKeyWebhook(s: Pick<Services, 'db'>, accountId: string, chave: string): Promise<WebhookCompleto> {
  const row = await s.db.read.pixKeyWebhooks.ofKey(accountId, chave);
  if (!row) throw notFound();
  return view(row);
}

/**
 * Inside a write job: drops the key's webhook, if it has one, and stops the notifications still queued
 * for it (unless another key of the account shares its URL, whose notifications those may be). What
 * DELETE /webhook/{chave} and the removal of a key (keys.ts) do; whether there was one.
 */
export async function dropPixKeyWebhook(tx: Stores, accountId: string, chave: string, at: Date): Promise<boolean> {
  if (!(await tx.pixKeyWebhooks.lockOfKey(accountId, chave))) return false;
  const removed = await tx.pixKeyWebhooks.remove(accountId, chave);
  if (!removed) return false;
  if ((await tx.pixKeyWebhooks.countWithUrl(accountId, removed.url)) === 0) {
    const iso = at.toISOString();
    const stopped = await tx.deliveries.failPendingTo(accountId, 'pix', pixCallbackUrl(removed.url), WEBHOOK_REMOVED, iso);
    await tx.deliveries.promoteQueueHeads(stopped, iso);
  }
  return true;
}

/** DELETE /webhook/{chave}: 404 when the key has no webhook of this account. */
export async function deletePixKeyWebhook(s: Pick<Services, 'db' | 'clock'>, accountId: string, chave: string): Promise<void> {
  await s.db.write(async (tx) => {
    // the account's keys are locked as PUT locks them, so a PUT and a DELETE of one key take turns
    await tx.pixKeys.lockAccountKeys(accountId);
    if (!(await dropPixKeyWebhook(tx, accountId, chave, s.clock.now()))) throw notFound();
  });
}

/** GET /webhook: the account's webhooks created within [inicio, fim], oldest first, one page. */
export async function listPixKeyWebhooks(s: Pick<Services, 'db'>, accountId: string, q: WebhookConsulta): Promise<WebhooksConsultados> {
  const db = s.db.read;
  const filter = {
    accountId,
    // stored instants are UTC ISO strings: an offset in the query is read, then compared as stored
    inicio: q.inicio ? new Date(q.inicio).toISOString() : undefined,
    fim: q.fim ? new Date(q.fim).toISOString() : undefined,
  };
  const pagina = q['paginacao.paginaAtual'];
  const porPagina = q['paginacao.itensPorPagina'];
  const total = await db.pixKeyWebhooks.count(filter);
  const rows = pagina * porPagina < total ? await db.pixKeyWebhooks.page(filter, pagina * porPagina, porPagina) : [];
  return {
    parametros: {
      ...(q.inicio ? { inicio: q.inicio } : {}),
      ...(q.fim ? { fim: q.fim } : {}),
      paginacao: { paginaAtual: pagina, itensPorPagina: porPagina, quantidadeDePaginas: Math.max(1, Math.ceil(total / porPagina)), quantidadeTotalDeItens: total },
    },
    webhooks: rows.map(view),
  };
}

export interface PixNotification {
  accountId: string;
  /** The key the Pix was paid to. */
  chave: string;
  /** The Pix's endToEndId: a Pix and its later devoluções are delivered in order, one after the other. */
  resourceId: string;
  /** The Pix as the yaml's Pix schema (GET /pix/{e2eid}) shows it at this moment, `devolucoes` included. */
  pix: object;
  at: Date;
}

/**
 * Inside the caller's write job: queues `{"pix":[pix]}` to the key's webhook (`{webhookUrl}/pix`) when the
 * key has one, so the notification exists if and only if the change it reports commits. The event is
 * recorded already dispatched with its one delivery (the fan-out to `webhooks` rows never sees it); the
 * sender picks the delivery up like any other. The delivery's id, or null when the key has no webhook.
 */
async function queuePixNotification(tx: Stores, type: Extract<EventType, `pix.${string}`>, o: PixNotification): Promise<string | null> {
  const hook = await tx.pixKeyWebhooks.lockOfKey(o.accountId, o.chave);
  if (!hook) return null;
  const at = o.at.toISOString();
  const eventId = newId('event');
  const seq = await tx.events.recordDispatched({
    id: eventId, accountId: o.accountId, type, category: 'pix', resourceId: o.resourceId, payload: JSON.stringify({ pix: [o.pix] }), createdAt: at,
  });
  const id = newId('delivery');
  await tx.deliveries.insertDeliveries([{
    id, eventId, eventSeq: seq, accountId: o.accountId, webhookId: null, target: 'pix', url: pixCallbackUrl(hook.url),
    resourceId: o.resourceId, status: 'PENDING', attempts: 0, nextAttemptAt: at, createdAt: at, updatedAt: at,
  }]);
  // a later notification of the same Pix waits behind an earlier one still pending
  await tx.deliveries.holdBehindEarlier([id]);
  return id;
}

/**
 * Whether a delivery to `url` still has a key's webhook of the account behind it: a resend by hand of a
 * notification goes only where a webhook still points, as a resend to a deleted `webhooks` row is refused.
 */
export async function pixCallbackStillRegistered(tx: Stores, accountId: string, url: string): Promise<boolean> {
  return (await tx.pixKeyWebhooks.urlsOf(accountId)).some((u) => pixCallbackUrl(u) === url);
}

/** Inside the pay job: a Pix received on `chave` (with a txid: the yaml notifies only those). */
export function queuePixReceivedDelivery(tx: Stores, o: PixNotification): Promise<string | null> {
  return queuePixNotification(tx, 'pix.received', o);
}

/**
 * Inside the job that changes a devolução (the yaml: when it reaches DEVOLVIDO or NAO_REALIZADO): the Pix
 * again, its `devolucoes` as they now stand.
 */
export function queuePixDevolucaoDelivery(tx: Stores, o: PixNotification): Promise<string | null> {
  return queuePixNotification(tx, 'pix.devolucao', o);
}
