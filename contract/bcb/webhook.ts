import { z } from 'zod';
import { DataHora, Paginacao } from './common';

/** Webhooks per Pix key (`/webhook/{chave}`). */

/** WebhookSolicitado: the body of PUT /webhook/{chave}. An https URL (http only to a loopback, in tests). */
export const WebhookSolicitado = z.strictObject({
  webhookUrl: z.url({ protocol: /^https?$/, error: 'webhookUrl é uma URL http(s)' }).max(2048, { error: 'webhookUrl tem no máximo 2048 caracteres' }),
});
export type WebhookSolicitado = z.infer<typeof WebhookSolicitado>;

/** WebhookCompleto: GET /webhook/{chave} and each of the list (`chave`: see test/support/bcb-contract.ts READINGS). */
export const WebhookCompleto = z.object({ webhookUrl: z.string(), chave: z.string().max(77), criacao: DataHora });
export type WebhookCompleto = z.infer<typeof WebhookCompleto>;

/** The query of GET /webhook: inicio and fim are optional here. */
export const WebhookConsulta = z.object({
  inicio: DataHora.optional(),
  fim: DataHora.optional(),
  'paginacao.paginaAtual': z.string().regex(/^\d{1,9}$/, { error: 'um número inteiro não negativo' }).transform(Number).default(0),
  'paginacao.itensPorPagina': z.string().regex(/^\d{1,4}$/, { error: 'um número inteiro de 1 a 1000' }).transform(Number)
    .pipe(z.int().min(1, { error: 'no mínimo 1' }).max(1000, { error: 'no máximo 1000' })).default(100),
}).superRefine((q, ctx) => {
  if (q.inicio && q.fim && Date.parse(q.fim) < Date.parse(q.inicio)) ctx.addIssue({ code: 'custom', path: ['fim'], input: q.fim, message: 'fim é anterior a inicio' });
});
export type WebhookConsulta = z.infer<typeof WebhookConsulta>;

/** WebhooksConsultados: GET /webhook. */
export const WebhooksConsultados = z.object({
  parametros: z.object({ inicio: DataHora.optional(), fim: DataHora.optional(), paginacao: Paginacao }).optional(),
  webhooks: z.array(WebhookCompleto),
});
export type WebhooksConsultados = z.infer<typeof WebhooksConsultados>;
