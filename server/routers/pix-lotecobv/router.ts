import { z } from 'zod';
import { createLote, getLote, listLotes, reviseLote } from '../../domain/pix-api/lotecobv';
import { pixApiProcedure, router } from '../../trpc';
import { loteCobVConsultado, loteConsultaInput, loteIdInput, lotesCobVConsultados, patchLoteInput, putLoteInput } from './schemas';

const lote = { invalid: 'LoteCobVOperacaoInvalida', resource: 'loteCobV' } as const;
const errors = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Lote não encontrado' };
const synchronous = 'Processado de forma síncrona, numa só transação: ao responder 202, cada cobrança do lote já está CRIADA ou NEGADA '
  + '(com o `problema` que PUT/PATCH /cobv/{txid} responderia), nunca EM_PROCESSAMENTO; GET /lotecobv/{id} diz qual.';

/** Lotes of cobv of the API Pix (/v2/lotecobv), and the same for TypeScript services and the dashboard. */
export const pixLoteCobvRouter = router({
  put: pixApiProcedure('lotecobv.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: lote, successStatus: 202,
      openapi: {
        method: 'PUT', path: '/v2/lotecobv/{id}', tags: ['lotecobv'], summary: 'Criar lote de cobranças com vencimento',
        description: `Cria o lote e cada cobrança dele pelas regras de PUT /cobv/{txid}. Um id de lote já utilizado é recusado (400). ${synchronous}`,
        errorResponses: errors,
      },
    })
    .input(putLoteInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await createLote(ctx.services, ctx.auth.accountId, input); }),

  patch: pixApiProcedure('lotecobv.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: lote, successStatus: 202,
      openapi: {
        method: 'PATCH', path: '/v2/lotecobv/{id}', tags: ['lotecobv'], summary: 'Revisar cobranças de um lote de cobranças com vencimento',
        description: `Revisa as cobranças listadas (todas do lote), cada uma pelas regras de PATCH /cobv/{txid}. ${synchronous}`,
        errorResponses: errors,
      },
    })
    .input(patchLoteInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await reviseLote(ctx.services, ctx.auth.accountId, input); }),

  get: pixApiProcedure('lotecobv.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'LoteCobVConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/lotecobv/{id}', tags: ['lotecobv'], summary: 'Consultar um lote de cobranças com vencimento', errorResponses: errors },
    })
    .input(loteIdInput)
    .output(loteCobVConsultado)
    .query(({ ctx, input }) => getLote(ctx.services, ctx.auth.accountId, input.id)),

  list: pixApiProcedure('lotecobv.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'LoteCobVConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/lotecobv', tags: ['lotecobv'], summary: 'Consultar lotes de cobranças com vencimento', errorResponses: errors },
    })
    .input(loteConsultaInput)
    .output(lotesCobVConsultados)
    .query(({ ctx, input }) => listLotes(ctx.services, ctx.auth.accountId, input)),
});
