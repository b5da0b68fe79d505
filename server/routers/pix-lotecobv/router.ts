import { z } from 'zod';
import { createLote, getLote, listLotes, reviseLote } from '../../domain/pix-api/lotecobv';
import { router } from '../../trpc';
import { v2Route } from '../pix-common';
import { loteCobVConsultado, loteConsultaInput, loteIdInput, lotesCobVConsultados, patchLoteInput, putLoteInput } from './schemas';

const errorResponses = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Lote não encontrado' };
const lote = { invalid: 'LoteCobVOperacaoInvalida', resource: 'loteCobV', successStatus: 202, errorResponses } as const;
const consulta = { invalid: 'LoteCobVConsultaInvalida', errorResponses } as const;
const synchronous = 'Processado de forma síncrona, numa só transação: ao responder 202, cada cobrança do lote já está CRIADA ou NEGADA '
  + '(com o `problema` que PUT/PATCH /cobv/{txid} responderia), nunca EM_PROCESSAMENTO; GET /lotecobv/{id} diz qual.';

/** Lotes of cobv of the API Pix (/v2/lotecobv), and the same for TypeScript services and the dashboard. */
export const pixLoteCobvRouter = router({
  put: v2Route('lotecobv.write', 'PUT /v2/lotecobv/{id}', {
    ...lote, summary: 'Criar lote de cobranças com vencimento',
    description: `Cria o lote e cada cobrança dele pelas regras de PUT /cobv/{txid}. Um id de lote já utilizado é recusado (400). ${synchronous}`,
  })
    .input(putLoteInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await createLote(ctx.services, ctx.auth.accountId, input); }),

  patch: v2Route('lotecobv.write', 'PATCH /v2/lotecobv/{id}', {
    ...lote, summary: 'Revisar cobranças de um lote de cobranças com vencimento',
    description: `Revisa as cobranças listadas (todas do lote), cada uma pelas regras de PATCH /cobv/{txid}. ${synchronous}`,
  })
    .input(patchLoteInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => { await reviseLote(ctx.services, ctx.auth.accountId, input); }),

  get: v2Route('lotecobv.read', 'GET /v2/lotecobv/{id}', { ...consulta, summary: 'Consultar um lote de cobranças com vencimento' })
    .input(loteIdInput)
    .output(loteCobVConsultado)
    .query(({ ctx, input }) => getLote(ctx.services, ctx.auth.accountId, input.id)),

  list: v2Route('lotecobv.read', 'GET /v2/lotecobv', { ...consulta, summary: 'Consultar lotes de cobranças com vencimento' })
    .input(loteConsultaInput)
    .output(lotesCobVConsultados)
    .query(({ ctx, input }) => listLotes(ctx.services, ctx.auth.accountId, input)),
});
