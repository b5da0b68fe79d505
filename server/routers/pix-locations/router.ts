import { createLocation, getLocation, listLocations, unlinkLocation } from '../../domain/pix-api/locations';
import { pixApiProcedure, router } from '../../trpc';
import { createLocationInput, locationConsultaInput, locationIdInput, payloadLocation, payloadLocationCompleta, payloadLocationConsultadas } from './schemas';

const invalid = { invalid: 'PayloadLocationOperacaoInvalida' } as const;
const errors = { 400: 'Requisição inválida', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Location não encontrada' };

/** Payload locations of the API Pix (/v2/loc). */
export const pixLocationsRouter = router({
  create: pixApiProcedure('payloadlocation.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: invalid, successStatus: 201,
      openapi: { method: 'POST', path: '/v2/loc', tags: ['loc'], summary: 'Criar location do payload', errorResponses: errors },
    })
    .input(createLocationInput)
    .output(payloadLocation)
    .mutation(async ({ ctx, input }) => {
      const loc = await createLocation(ctx.services, ctx.auth.accountId, input.tipoCob);
      ctx.resHeaders.set('location', loc.location);
      return loc;
    }),

  list: pixApiProcedure('payloadlocation.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: { invalid: 'PayloadLocationConsultaInvalida' },
      openapi: { method: 'GET', path: '/v2/loc', tags: ['loc'], summary: 'Consultar locations cadastradas', errorResponses: errors },
    })
    .input(locationConsultaInput)
    .output(payloadLocationConsultadas)
    .query(({ ctx, input }) => listLocations(ctx.services, ctx.auth.accountId, input)),

  get: pixApiProcedure('payloadlocation.read')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: invalid,
      openapi: { method: 'GET', path: '/v2/loc/{id}', tags: ['loc'], summary: 'Recuperar location do payload', errorResponses: errors },
    })
    .input(locationIdInput)
    .output(payloadLocationCompleta)
    .query(({ ctx, input }) => getLocation(ctx.services, ctx.auth.accountId, input.id)),

  unlink: pixApiProcedure('payloadlocation.write')
    .meta({
      auth: 'bearer', envelope: 'pix-api', pixApi: invalid,
      openapi: { method: 'DELETE', path: '/v2/loc/{id}/txid', tags: ['loc'], summary: 'Desvincular uma cobrança de uma location', errorResponses: errors },
    })
    .input(locationIdInput)
    .output(payloadLocation)
    .mutation(({ ctx, input }) => unlinkLocation(ctx.services, ctx.auth.accountId, input.id)),
});
