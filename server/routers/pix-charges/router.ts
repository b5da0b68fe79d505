import { createCob, createCobv, getCob, getCobv, listCobs, listCobvs, reviseCob, reviseCobv } from '../../domain/pix-api/charges';
import { amountDueView } from '../../domain/pix-api/amount-due';
import { amountDueInput, amountDueOutput } from './amount-due-schemas';
import { pixApiProcedure, router } from '../../trpc';
import {
  cobCompleta, cobConsultaInput, cobGerada, cobsConsultadas, cobsVConsultadas, cobvCompleta, cobvConsultaInput, cobvGerada, getChargeInput,
  patchCobInput, patchCobvInput, postCobInput, putCobInput, putCobvInput,
} from './schemas';

const cob = { invalid: 'CobOperacaoInvalida', resource: 'cob' } as const;
const cobv = { invalid: 'CobVOperacaoInvalida', resource: 'cobv' } as const;
const errors = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Cobrança não encontrada' };

/** cob and cobv of the API Pix (/v2), and the same for TypeScript services and the dashboard. */
export const pixChargesRouter = router({
  putCob: pixApiProcedure('cob.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: cob, successStatus: 201,
      openapi: { method: 'PUT', path: '/v2/cob/{txid}', tags: ['cob'], summary: 'Criar cobrança imediata', errorResponses: errors },
    })
    .input(putCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => createCob(ctx.services, ctx.auth.accountId, input)),

  postCob: pixApiProcedure('cob.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: cob, successStatus: 201,
      openapi: { method: 'POST', path: '/v2/cob', tags: ['cob'], summary: 'Criar cobrança imediata (txid definido pelo PSP)', errorResponses: errors },
    })
    .input(postCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => createCob(ctx.services, ctx.auth.accountId, input)),

  patchCob: pixApiProcedure('cob.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: cob,
      openapi: { method: 'PATCH', path: '/v2/cob/{txid}', tags: ['cob'], summary: 'Revisar cobrança imediata', errorResponses: errors },
    })
    .input(patchCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => reviseCob(ctx.services, ctx.auth.accountId, input)),

  getCob: pixApiProcedure('cob.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'CobOperacaoInvalida' },
      openapi: { method: 'GET', path: '/v2/cob/{txid}', tags: ['cob'], summary: 'Consultar cobrança imediata', errorResponses: errors },
    })
    .input(getChargeInput)
    .output(cobCompleta)
    .query(({ ctx, input }) => getCob(ctx.services, ctx.auth.accountId, input.txid, input.revisao)),

  listCobs: pixApiProcedure('cob.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'CobConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/cob', tags: ['cob'], summary: 'Consultar lista de cobranças imediatas', errorResponses: errors },
    })
    .input(cobConsultaInput)
    .output(cobsConsultadas)
    .query(({ ctx, input }) => listCobs(ctx.services, ctx.auth.accountId, input)),

  putCobv: pixApiProcedure('cobv.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: cobv, successStatus: 201,
      openapi: { method: 'PUT', path: '/v2/cobv/{txid}', tags: ['cobv'], summary: 'Criar cobrança com vencimento', errorResponses: errors },
    })
    .input(putCobvInput)
    .output(cobvGerada)
    .mutation(({ ctx, input }) => createCobv(ctx.services, ctx.auth.accountId, input)),

  patchCobv: pixApiProcedure('cobv.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: cobv,
      openapi: { method: 'PATCH', path: '/v2/cobv/{txid}', tags: ['cobv'], summary: 'Revisar cobrança com vencimento', errorResponses: errors },
    })
    .input(patchCobvInput)
    .output(cobvGerada)
    .mutation(({ ctx, input }) => reviseCobv(ctx.services, ctx.auth.accountId, input)),

  getCobv: pixApiProcedure('cobv.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'CobVOperacaoInvalida' },
      openapi: { method: 'GET', path: '/v2/cobv/{txid}', tags: ['cobv'], summary: 'Consultar cobrança com vencimento', errorResponses: errors },
    })
    .input(getChargeInput)
    .output(cobvCompleta)
    .query(({ ctx, input }) => getCobv(ctx.services, ctx.auth.accountId, input.txid, input.revisao)),

  listCobvs: pixApiProcedure('cobv.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'CobVConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/cobv', tags: ['cobv'], summary: 'Consultar lista de cobranças com vencimento', errorResponses: errors },
    })
    .input(cobvConsultaInput)
    .output(cobsVConsultadas)
    .query(({ ctx, input }) => listCobvs(ctx.services, ctx.auth.accountId, input)),

  /** The dashboard's "amount due today" of a cobv (tRPC only: the API Pix quotes it in the payload). */
  amountDue: pixApiProcedure('cobv.read')
    .input(amountDueInput)
    .output(amountDueOutput)
    .query(({ ctx, input }) => amountDueView(ctx.services, ctx.auth.accountId, input.txid, input.data)),
});
