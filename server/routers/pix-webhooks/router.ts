import { z } from 'zod';
import { configurePixKeyWebhook, deletePixKeyWebhook, getPixKeyWebhook, listPixKeyWebhooks } from '../../domain/pix-api/webhooks';
import { router } from '../../trpc';
import { v2Route } from '../pix-common';
import { putWebhookInput, webhookCompleto, webhookConsultaInput, webhookOfKeyInput, webhooksConsultados } from './schemas';

const errorResponses = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Webhook não encontrado' };
const webhook = { invalid: 'WebhookOperacaoInvalida', errorResponses } as const;

/** Webhooks per Pix key of the API Pix (/v2/webhook), and the same for TypeScript services and the dashboard. */
export const pixWebhooksRouter = router({
  put: v2Route('webhook.write', 'PUT /v2/webhook/{chave}', {
    ...webhook, resource: 'webhook', summary: 'Configurar o Webhook Pix',
    description: 'Cada Pix recebido na chave é enviado por POST a {webhookUrl}/pix como {"pix":[…]}, assinado com os cabeçalhos Standard Webhooks (o segredo de postback da conta).',
  })
    .input(putWebhookInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await configurePixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave, input.webhookUrl); }),

  get: v2Route('webhook.read', 'GET /v2/webhook/{chave}', { ...webhook, summary: 'Exibir informações acerca do Webhook Pix' })
    .input(webhookOfKeyInput)
    .output(webhookCompleto)
    .query(({ ctx, input }) => getPixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave)),

  delete: v2Route('webhook.write', 'DELETE /v2/webhook/{chave}', { ...webhook, successStatus: 204, summary: 'Cancelar o webhook Pix' })
    .input(webhookOfKeyInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await deletePixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave); }),

  list: v2Route('webhook.read', 'GET /v2/webhook', { invalid: 'WebhookConsultaInvalida', errorResponses, summary: 'Consultar webhooks cadastrados' })
    .input(webhookConsultaInput)
    .output(webhooksConsultados)
    .query(({ ctx, input }) => listPixKeyWebhooks(ctx.services, ctx.auth.accountId, input)),
});
