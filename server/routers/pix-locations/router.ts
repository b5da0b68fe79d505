import { createLocation, getLocation, listLocations, unlinkLocation } from '../../domain/pix-api/locations';
import { router } from '../../trpc';
import { v2Route } from '../pix-common';
import { createLocationInput, locationConsultaInput, locationIdInput, payloadLocation, payloadLocationCompleta, payloadLocationConsultadas } from './schemas';

const errorResponses = { 400: 'Requisição inválida', 401: 'Sem token', 403: 'Token sem o escopo', 404: 'Location não encontrada' };
const loc = { invalid: 'PayloadLocationOperacaoInvalida', errorResponses } as const;

/** Payload locations of the API Pix (/v2/loc). */
export const pixLocationsRouter = router({
  create: v2Route('payloadlocation.write', 'POST /v2/loc', { ...loc, successStatus: 201, summary: 'Criar location do payload' })
    .input(createLocationInput)
    .output(payloadLocation)
    .mutation(async ({ ctx, input }) => {
      const created = await createLocation(ctx.services, ctx.auth.accountId, input.tipoCob);
      ctx.resHeaders.set('location', created.location);
      return created;
    }),

  list: v2Route('payloadlocation.read', 'GET /v2/loc', { invalid: 'PayloadLocationConsultaInvalida', errorResponses, summary: 'Consultar locations cadastradas' })
    .input(locationConsultaInput)
    .output(payloadLocationConsultadas)
    .query(({ ctx, input }) => listLocations(ctx.services, ctx.auth.accountId, input)),

  get: v2Route('payloadlocation.read', 'GET /v2/loc/{id}', { ...loc, summary: 'Recuperar location do payload' })
    .input(locationIdInput)
    .output(payloadLocationCompleta)
    .query(({ ctx, input }) => getLocation(ctx.services, ctx.auth.accountId, input.id)),

  unlink: v2Route('payloadlocation.write', 'DELETE /v2/loc/{id}/txid', { ...loc, summary: 'Desvincular uma cobrança de uma location' })
    .input(locationIdInput)
    .output(payloadLocation)
    .mutation(({ ctx, input }) => unlinkLocation(ctx.services, ctx.auth.accountId, input.id)),
});
