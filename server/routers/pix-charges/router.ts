import { createCob, createCobv, getCob, getCobv, listCobs, listCobvs, reviseCob, reviseCobv } from '../../domain/pix-api/charges';
import { amountDueView } from '../../domain/pix-api/amount-due';
import { amountDueInput, amountDueOutput } from './amount-due-schemas';
import { pixApiProcedure, router } from '../../trpc';
import { v2Route } from '../pix-common';
import {
  cobCompleta, cobConsultaInput, cobGerada, cobsConsultadas, cobsVConsultadas, cobvCompleta, cobvConsultaInput, cobvGerada, getChargeInput,
  patchCobInput, patchCobvInput, postCobInput, putCobInput, putCobvInput,
} from './schemas';

const errorResponses = { 400: 'Requisição inválida (nada é gravado)', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Cobrança não encontrada' };
const cob = { invalid: 'CobOperacaoInvalida', resource: 'cob', errorResponses } as const;
const cobv = { invalid: 'CobVOperacaoInvalida', resource: 'cobv', errorResponses } as const;

/** cob and cobv of the API Pix (/v2), and the same for TypeScript services and the dashboard. */
export const pixChargesRouter = router({
  putCob: v2Route('cob.write', 'PUT /v2/cob/{txid}', { ...cob, successStatus: 201, summary: 'Criar cobrança imediata' })
    .input(putCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => createCob(ctx.services, ctx.auth.accountId, input)),

  postCob: v2Route('cob.write', 'POST /v2/cob', { ...cob, successStatus: 201, summary: 'Criar cobrança imediata (txid definido pelo PSP)' })
    .input(postCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => createCob(ctx.services, ctx.auth.accountId, input)),

  patchCob: v2Route('cob.write', 'PATCH /v2/cob/{txid}', { ...cob, summary: 'Revisar cobrança imediata' })
    .input(patchCobInput)
    .output(cobGerada)
    .mutation(({ ctx, input }) => reviseCob(ctx.services, ctx.auth.accountId, input)),

  getCob: v2Route('cob.read', 'GET /v2/cob/{txid}', { invalid: 'CobOperacaoInvalida', errorResponses, summary: 'Consultar cobrança imediata' })
    .input(getChargeInput)
    .output(cobCompleta)
    .query(({ ctx, input }) => getCob(ctx.services, ctx.auth.accountId, input.txid, input.revisao)),

  listCobs: v2Route('cob.read', 'GET /v2/cob', { invalid: 'CobConsultaInvalida', errorResponses, summary: 'Consultar lista de cobranças imediatas' })
    .input(cobConsultaInput)
    .output(cobsConsultadas)
    .query(({ ctx, input }) => listCobs(ctx.services, ctx.auth.accountId, input)),

  putCobv: v2Route('cobv.write', 'PUT /v2/cobv/{txid}', { ...cobv, successStatus: 201, summary: 'Criar cobrança com vencimento' })
    .input(putCobvInput)
    .output(cobvGerada)
    .mutation(({ ctx, input }) => createCobv(ctx.services, ctx.auth.accountId, input)),

  patchCobv: v2Route('cobv.write', 'PATCH /v2/cobv/{txid}', { ...cobv, summary: 'Revisar cobrança com vencimento' })
    .input(patchCobvInput)
    .output(cobvGerada)
    .mutation(({ ctx, input }) => reviseCobv(ctx.services, ctx.auth.accountId, input)),

  getCobv: v2Route('cobv.read', 'GET /v2/cobv/{txid}', { invalid: 'CobVOperacaoInvalida', errorResponses, summary: 'Consultar cobrança com vencimento' })
    .input(getChargeInput)
    .output(cobvCompleta)
    .query(({ ctx, input }) => getCobv(ctx.services, ctx.auth.accountId, input.txid, input.revisao)),

  listCobvs: v2Route('cobv.read', 'GET /v2/cobv', { invalid: 'CobVConsultaInvalida', errorResponses, summary: 'Consultar lista de cobranças com vencimento' })
    .input(cobvConsultaInput)
    .output(cobsVConsultadas)
    .query(({ ctx, input }) => listCobvs(ctx.services, ctx.auth.accountId, input)),

  /** The dashboard's "amount due today" of a cobv (tRPC only: the API Pix quotes it in the payload). */
  amountDue: pixApiProcedure('cobv.read')
    .input(amountDueInput)
    .output(amountDueOutput)
    .query(({ ctx, input }) => amountDueView(ctx.services, ctx.auth.accountId, input.txid, input.data)),
});
