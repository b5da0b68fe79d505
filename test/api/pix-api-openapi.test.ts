// @engines none: builds the OpenAPI documents from routers; no database
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { CobVCompleta, CobVRevisada, cobVSolicitadaCampos, PayloadLocationCompleta, TxId, valorRules } from '../../contract/bcb';
import { buildOpenApiDocument, restProcedures } from '../../server/openapi';
import { buildPixApiOpenApiDocument, PIX_API_DOC_TITLE, pixApiScopeOf } from '../../server/openapi-pix-api';
import { appRouter } from '../../server/routers';
import { publicProcedure, router } from '../../server/trpc';
import { BCB_CHARGE_PATHS, bcbYaml } from '../support/bcb-contract';

/**
 * The two OpenAPI documents: /openapi.json, the payments API, keeps exactly its paths when /v2 procedures
 * join the router; /v2/openapi.json documents every procedure whose meta says `envelope: 'pix-api'` (the
 * real ones in appRouter and stand-ins shaped like them), with its success code, the yaml's scope and
 * problem+json errors, plus the payload locations.
 */
const stub = <T>(out: T) => () => out;
const allStandIns = {
  putCobv: publicProcedure
    .meta({ openapi: { method: 'PUT', path: '/v2/cobv/{txid}' }, envelope: 'pix-api', pixApi: { invalid: 'CobVOperacaoInvalida', resource: 'cobv' }, successStatus: 201 })
    .input(z.strictObject({ ...cobVSolicitadaCampos, txid: TxId }).superRefine(valorRules))
    .output(CobVCompleta)
    .mutation(stub({} as never)),
  patchCobv: publicProcedure
    .meta({ openapi: { method: 'PATCH', path: '/v2/cobv/{txid}' }, envelope: 'pix-api', pixApi: { invalid: 'CobVOperacaoInvalida', resource: 'cobv' } })
    .input(z.object({ txid: TxId, body: CobVRevisada }).transform((x) => x))
    .output(CobVCompleta)
    .mutation(stub({} as never)),
  getCobv: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/v2/cobv/{txid}' }, envelope: 'pix-api', pixApi: { invalid: 'CobVConsultaInvalida' } })
    .input(z.object({ txid: TxId, revisao: z.coerce.number().int().optional() }))
    .output(CobVCompleta)
    .query(stub({} as never)),
  getLoc: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/v2/loc/{id}' }, envelope: 'pix-api', pixApi: { invalid: 'PayloadLocationConsultaInvalida' } })
    .input(z.object({ id: z.coerce.number().int() }))
    .output(PayloadLocationCompleta)
    .query(stub({} as never)),
  deleteWebhook: publicProcedure
    .meta({ openapi: { method: 'DELETE', path: '/v2/webhook/{chave}' }, envelope: 'pix-api', pixApi: { invalid: 'WebhookOperacaoInvalida' }, successStatus: 204 })
    .input(z.object({ chave: z.string() }))
    .output(z.void())
    .mutation(stub(undefined)),
};
// the stand-ins for operations appRouter does not serve yet (a real one and a stand-in cannot share a route)
const served = new Set(restProcedures(appRouter).map((p) => `${p.method} ${p.path}`));
const standIns = router(Object.fromEntries(Object.entries(allStandIns).filter(([, proc]) => {
  const o = (proc._def.meta as { openapi: { method: string; path: string } }).openapi;
  return !served.has(`${o.method.toLowerCase()} ${o.path}`);
})));
// flat, as the real /v2 routers sit beside the others in appRouter (operation ids keep their names)
const withV2 = router({ ...appRouter._def.record, ...standIns._def.record });

const pixApiRoutes = (r: Parameters<typeof restProcedures>[0]) => restProcedures(r).filter((p) => p.meta.envelope === 'pix-api');

describe('/openapi.json (the payments API)', () => {
  it('is the same document with or without /v2 procedures in the router: none of them is in it', () => {
    const alone = buildOpenApiDocument(appRouter, '');
    const mixed = buildOpenApiDocument(withV2, '');
    expect(Object.keys(mixed.paths ?? {}).filter((p) => p.startsWith('/v2'))).toEqual([]);
    expect(mixed.paths).toEqual(alone.paths);
    expect(mixed.components).toEqual(alone.components);
  });
});

describe('/v2/openapi.json (the API Pix)', () => {
  it('parses as OpenAPI 3, with every /v2 procedure and the payload locations, and nothing of the payments API', async () => {
    const doc = buildPixApiOpenApiDocument(withV2, '') as any;
    const { validate } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(doc));
    expect(result.valid, JSON.stringify((result as { errors?: unknown }).errors ?? null).slice(0, 800)).toBe(true);
    expect(doc.info.title).toBe(PIX_API_DOC_TITLE);
    const routes = [...pixApiRoutes(appRouter), ...pixApiRoutes(standIns)];
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const r of routes) expect(doc.paths[r.path]?.[r.method], `${r.method} ${r.path}`).toBeDefined();
    const documented = Object.keys(doc.paths);
    // besides /v2 and the payload locations, only the sandbox's payer, which takes an API Pix token
    expect(documented.filter((p) => !p.startsWith('/v2/') && !p.startsWith('/qr/v2/'))).toEqual(pixApiRoutes(appRouter).some((r) => r.path === '/sandbox/pix/pay') ? ['/sandbox/pix/pay'] : []);
    expect(documented).toEqual(expect.arrayContaining(['/qr/v2/{pixUrlAccessToken}', '/qr/v2/cobv/{pixUrlAccessToken}', '/qr/v2/jwks']));
    // built from the real appRouter alone too (whatever /v2 procedures it holds today)
    expect((await validate(structuredClone(buildPixApiOpenApiDocument(appRouter, '') as never))).valid).toBe(true);
  });

  it('gives each operation its success code, the yaml scope and problem+json errors', () => {
    const doc = buildPixApiOpenApiDocument(withV2, '') as any;
    const put = doc.paths['/v2/cobv/{txid}'].put;
    expect(put.responses['201']).toBeDefined();
    expect(put.responses['200']).toBeUndefined();
    expect(put.security).toEqual([{ OAuth2: ['cobv.write'] }]);
    expect(doc.paths['/v2/cobv/{txid}'].get.security).toEqual([{ OAuth2: ['cobv.read'] }]);
    expect(doc.paths['/v2/loc/{id}'].get.security).toEqual([{ OAuth2: ['payloadlocation.read'] }]);
    expect(doc.paths['/v2/webhook/{chave}'].delete.responses['204']).toBeDefined();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [code, resp] of Object.entries<any>(op.responses)) {
          if (Number(code) < 400) continue;
          expect(Object.keys(resp.content ?? {}), `${method} ${path} ${code}`).toEqual(['application/problem+json']);
          expect(resp.content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problema');
        }
        if (path.startsWith('/v2/')) for (const code of ['400', '401', '403', '404', '500', '503']) expect(op.responses[code], `${method} ${path} ${code}`).toBeDefined();
      }
    }
    expect(Object.keys(doc.paths['/qr/v2/cobv/{pixUrlAccessToken}'].get.responses['200'].content)).toEqual(['application/jose']);
    expect(doc.paths['/qr/v2/jwks'].get.security).toEqual([]);
    expect(doc.components.securitySchemes.OAuth2.flows.clientCredentials.tokenUrl).toBe('/oauth/token');
  });

  it('names the scope the yaml gives every operation of the charge side', () => {
    const yaml = bcbYaml().doc;
    let checked = 0;
    // the payload locations are open (security []) and served at /qr/v2, not procedures
    for (const path of BCB_CHARGE_PATHS.filter((p) => !p.includes('{pixUrlAccessToken}'))) {
      for (const [method, op] of Object.entries<any>(yaml.paths[path] ?? {})) {
        if (!op?.responses) continue;
        const yamlScopes = (op.security ?? []).flatMap((s: Record<string, string[]>) => s.OAuth2 ?? []);
        expect(pixApiScopeOf(method, `/v2${path}`), `${method} ${path}`).toBe(yamlScopes[0] ?? null);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
