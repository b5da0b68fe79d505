import { z } from 'zod';
import { configurePixKeyWebhook, deletePixKeyWebhook, getPixKeyWebhook, listPixKeyWebhooks } from '../../domain/pix-api/webhooks';
import { pixApiProcedure, router } from '../../trpc';
import { putWebhookInput, webhookCompleto, webhookConsultaInput, webhookOfKeyInput, webhooksConsultados } from './schemas';

const webhook = { invalid: 'WebhookOperacaoInvalida', resource: 'webhook' } as const;
const errors = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Webhook não encontrado' };

/** Webhooks per Pix key of the API Pix (/v2/webhook), and the same for TypeScript services and the dashboard. */
export const pixWebhooksRouter = router({
  put: pixApiProcedure('webhook.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: webhook,
      openapi: {
        method: 'PUT', path: '/v2/webhook/{chave}', tags: ['webhook'], summary: 'Configurar o Webhook Pix',
        description: 'Cada Pix recebido na chave é enviado por POST a {webhookUrl}/pix como {"pix":[…]}, assinado com os cabeçalhos Standard Webhooks (o segredo de postback da conta).',
        errorResponses: errors,
      },
    })
    .input(putWebhookInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await configurePixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave, input.webhookUrl); }),

  get: pixApiProcedure('webhook.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'WebhookOperacaoInvalida' },
      openapi: { method: 'GET', path: '/v2/webhook/{chave}', tags: ['webhook'], summary: 'Exibir informações acerca do Webhook Pix', errorResponses: errors },
    })
    .input(webhookOfKeyInput)
    .output(webhookCompleto)
    .query(({ ctx, input }) => getPixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave)),

  delete: pixApiProcedure('webhook.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'WebhookOperacaoInvalida' }, successStatus: 204,
      openapi: { method: 'DELETE', path: '/v2/webhook/{chave}', tags: ['webhook'], summary: 'Cancelar o webhook Pix', errorResponses: errors },
    })
    .input(webhookOfKeyInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await deletePixKeyWebhook(ctx.services, ctx.auth.accountId, input.chave); }),

  list: pixApiProcedure('webhook.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'WebhookConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/webhook', tags: ['webhook'], summary: 'Consultar webhooks cadastrados', errorResponses: errors },
    })
    .input(webhookConsultaInput)
    .output(webhooksConsultados)
    .query(({ ctx, input }) => listPixKeyWebhooks(ctx.services, ctx.auth.accountId, input)),
});
