import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { createTrpcHttpContext, lowerHeaders, type Context } from '../context';
import { DomainError, toDomainError } from '../errors';
import { log } from '../log';
import { noteRoute, requestRecordOf } from '../observability/request-context';
import { buildOpenApiDocument } from '../openapi';
import { buildPixApiOpenApiDocument, PIX_API_OPENAPI_PATH } from '../openapi-pix-api';
import { MAX_BATCH_CALLS } from '../routers/batching';
import type { Services } from '../services';
import { MAX_BODY_BYTES } from './body';
import { errorHeaders, presentRestError } from './presenter';
import { createRestAdapter } from './rest';
import { STATEMENT_CSV_PATH, streamStatementCsv } from './statement-csv';
import { OAUTH_TOKEN_PATH, serveTokenRequest } from './oauth-token';
import { ownsPixPayloadPath, servePixPayloadRequest } from './pix-payloads';

/**
 * The API half of the process: the REST adapter, tRPC's adapter at /api/trpc, and /openapi.json.
 * Anything else is not ours (the caller sends it to Next).
 */
export function createApiHandler(services: Services, router: AnyRouter) {
  const rest = createRestAdapter(services, router);
  const procedureNames = new Set(Object.keys(router._def.procedures as object));
  let openApiJson: string | null = null;
  const openApiDocument = () => (openApiJson ??= JSON.stringify(buildOpenApiDocument(router, '')));
  let pixApiJson: string | null = null;
  const pixApiDocument = () => (pixApiJson ??= JSON.stringify(buildPixApiOpenApiDocument(router, '')));

  const trpc = createHTTPHandler({
    router,
    basePath: '/api/trpc/',
    createContext: createTrpcHttpContext(services) as never,
    maxBodySize: MAX_BODY_BYTES,
    // one request cannot fan out into hundreds of calls (docs/decisions.md "Sign-in and token limits")
    maxBatchSize: MAX_BATCH_CALLS,
    responseMeta({ ctx, errors }) {
      const headers: Record<string, string | string[]> = { 'cache-control': 'no-store' };
      const resHeaders = (ctx as Context | undefined)?.resHeaders;
      if (resHeaders) {
        const cookies = resHeaders.getSetCookie();
        if (cookies.length) headers['set-cookie'] = cookies;
        resHeaders.forEach((v, k) => { if (k !== 'set-cookie') headers[k] = v; });
      }
      for (const e of errors) Object.assign(headers, errorHeaders(toDomainError(e)));
      return { headers };
    },
    onError({ error }) {
      if (toDomainError(error).code === 'INTERNAL') log.error({ err: error }, 'internal error');
    },
  });

  const isTrpc = (pathname: string) => pathname === '/api/trpc' || pathname.startsWith('/api/trpc/');

  return {
    rest,
    openApiDocument,
    pixApiDocument,
    /** Whether this request is the API's; false means "give it to the pages". */
    owns(pathname: string): boolean {
      return pathname === '/openapi.json' || pathname === PIX_API_OPENAPI_PATH || pathname === OAUTH_TOKEN_PATH || ownsPixPayloadPath(pathname) || isTrpc(pathname) || pathname === STATEMENT_CSV_PATH || pathname.startsWith('/api/') || rest.owns(pathname);
    },
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const pathname = (req.url ?? '/').split('?')[0];
      const record = requestRecordOf(req);
      try {
        if (pathname === '/openapi.json') {
          noteRoute(record, '/openapi.json');
          res.setHeader('content-type', 'application/json');
          res.end(openApiDocument());
          return;
        }
        if (pathname === PIX_API_OPENAPI_PATH) {
          noteRoute(record, PIX_API_OPENAPI_PATH);
          res.setHeader('content-type', 'application/json');
          res.end(pixApiDocument());
          return;
        }
        if (pathname === STATEMENT_CSV_PATH) {
          noteRoute(record, STATEMENT_CSV_PATH);
          if (req.method !== 'GET') {
            const out = presentRestError(new DomainError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}`), 'payments', services.clock.now());
            res.writeHead(out.status, out.headers).end(out.body);
            return;
          }
          await streamStatementCsv(services, req, res, new URL(req.url ?? '/', 'http://localhost'), lowerHeaders(req.headers));
          return;
        }
        if (pathname === OAUTH_TOKEN_PATH) {
          // the API Pix's OAuth2 token endpoint: a form body and RFC 6749's answers, not a REST procedure's
          await serveTokenRequest(services, req, res);
          return;
        }
        if (ownsPixPayloadPath(pathname)) {
          // the payload locations of dynamic QR codes and their JWKS: open GETs answering a JWS, not procedures
          await servePixPayloadRequest(services, req, res);
          return;
        }
        if (isTrpc(pathname)) {
          // one label per procedure; a batch or an unknown name gets a fixed one
          const name = pathname.slice('/api/trpc/'.length);
          noteRoute(record, procedureNames.has(name) ? `/api/trpc/${name}` : name.includes(',') ? '/api/trpc/(batch)' : '/api/trpc/(unknown)');
          trpc(req, res);
          return;
        }
        await rest.handleNode(req, res);
      } catch (err) {
        // what throws here (the CSV stream's own checks) answers in the payments envelope, like REST
        if (res.headersSent) { res.destroy(); return; }
        const out = presentRestError(err, 'payments', services.clock.now());
        res.writeHead(out.status, out.headers).end(out.body);
      }
    },
  };
}
