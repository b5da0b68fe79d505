import { z } from 'zod';
import { Chave, WebhookCompleto, WebhookConsulta, WebhooksConsultados, WebhookSolicitado } from '../../../contract/bcb';

/** A path segment as sent: a client may percent-encode a key's `@` or `+`; the key is compared decoded. */
function decoded(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** PUT /webhook/{chave}: the body's webhookUrl (nothing else: unknown fields are refused) and the path's key. */
export const putWebhookInput = WebhookSolicitado.safeExtend({ chave: z.string().transform(decoded).pipe(Chave) });

/**
 * GET and DELETE /webhook/{chave}: the yaml answers these with 404 only (no 400), so any text is taken and
 * a key without a webhook of this account is simply not found.
 */
export const webhookOfKeyInput = z.object({ chave: z.string().max(300).transform(decoded) });

export const webhookConsultaInput = WebhookConsulta;

export const webhookCompleto = WebhookCompleto satisfies z.ZodType<WebhookCompleto>;
export const webhooksConsultados = WebhooksConsultados satisfies z.ZodType<WebhooksConsultados>;
