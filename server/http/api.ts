import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { createHttpContext, type Context } from '../context';
import { DomainError, restErrorBody, toDomainError, type EnvelopeFlavor } from '../errors';
import { buildOpenApiDocument, restProcedures } from '../openapi';
import { MAX_BATCH_CALLS } from '../routers/batching';
import type { Services } from '../services';
import { log } from '../log';
import { noteRoute } from '../observability/request-context';
import { ClientAbortError, isJsonContentType, MAX_BODY_BYTES, parseJsonObject, readBody } from './body';
import { STATEMENT_CSV_PATH, streamStatementCsv } from './statement-csv';

type Req = IncomingMessage & { body?: unknown; apiError?: unknown };

const TRANSACTION_QUERY_KEYS = ['id', 'identifier', 'endtoend', 'external_ref'];

/**
 * The API half of the process: REST paths through trpc-to-openapi's node handler (built once here),
 * /api/trpc through tRPC's adapter, /openapi.json. Anything else is not ours (the caller sends it to Next).
 */
export function createApiHandler(services: Services, router: AnyRouter) {
  // the REST paths as patterns, to tell a wrong method (405) from an unknown path (404)
  const restRoutes = restProcedures(router).map((p) => ({
    template: p.path,
    pattern: new RegExp('^' + p.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+') + '/?$'),
  }));
  const restPaths = restRoutes.map((r) => r.pattern);
  const procedureNames = new Set(Object.keys(router._def.procedures as object));
  const procStatus = new Map<string, number>();
  for (const [name, proc] of Object.entries(router._def.procedures as Record<string, { _def: { meta?: { successStatus?: number } } }>)) {
    if (proc._def.meta?.successStatus) procStatus.set(name, proc._def.meta.successStatus);
  }

  let openApiJson: string | null = null;
  const openApiDocument = () => (openApiJson ??= JSON.stringify(buildOpenApiDocument(router, '')));

  const responseMeta = ({ ctx, paths, errors }: { ctx?: Context; paths?: readonly string[] | string[]; errors: readonly unknown[] }) => {
    const headers: Record<string, string | string[]> = { 'cache-control': 'no-store', ...(ctx?.response.headers ?? {}) };
    if (errors.length) {
      const d = toDomainError(errors[0]);
      if (d.extra.retryAfterSeconds) headers['retry-after'] = String(d.extra.retryAfterSeconds);
      return { status: d.status, headers };
    }
    const status = ctx?.response.status ?? (paths?.[0] ? procStatus.get(paths[0]) : undefined) ?? 200;
    return { status, headers };
  };

  const rest = createOpenApiNodeHttpHandler({
    router: router as never,
    createContext: createHttpContext(services, 'rest') as never,
    responseMeta: responseMeta as never,
    maxBodySize: MAX_BODY_BYTES,
    onError: ({ error, req }: { error: unknown; req: Req }) => {
      req.apiError = error;
      const d = toDomainError(error);
      if (d.code === 'INTERNAL') log.error({ err: error }, 'internal error');
    },
  } as never) as (req: Req, res: ServerResponse, next?: () => void) => Promise<void>;

  const trpc = createHTTPHandler({
    router,
    basePath: '/api/trpc/',
    createContext: createHttpContext(services, 'trpc') as never,
    maxBodySize: MAX_BODY_BYTES,
    // one request cannot fan out into hundreds of calls (DECISIONS "Sign-in and token limits")
    maxBatchSize: MAX_BATCH_CALLS,
    responseMeta({ ctx, errors }) {
      const headers: Record<string, string | string[]> = { 'cache-control': 'no-store', ...((ctx as Context | undefined)?.response.headers ?? {}) };
      for (const e of errors) {
        const d = toDomainError(e);
        if (d.extra.retryAfterSeconds) headers['retry-after'] = String(d.extra.retryAfterSeconds);
      }
      return { headers };
    },
    onError({ error }) {
      if (toDomainError(error).code === 'INTERNAL') log.error({ err: error }, 'internal error');
    },
  });

  function sendError(res: ServerResponse, err: unknown, flavor: EnvelopeFlavor, close = false) {
    const d = toDomainError(err);
    if (d.code === 'INTERNAL') log.error({ err }, 'internal error');
    const body = JSON.stringify(restErrorBody(d, flavor, services.clock.now()));
    res.statusCode = d.status;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    if (d.extra.retryAfterSeconds) res.setHeader('retry-after', String(d.extra.retryAfterSeconds));
    if (close) res.setHeader('connection', 'close');
    res.end(body);
  }

  async function handleRest(req: Req, res: ServerResponse, url: URL, flavor: EnvelopeFlavor) {
    const method = (req.method ?? 'GET').toUpperCase();
    const route = restRoutes.find((r) => r.pattern.test(url.pathname));
    if (route) noteRoute(route.template);
    if (method !== 'GET' && method !== 'HEAD') {
      let raw: Buffer;
      try {
        raw = await readBody(req);
      } catch (err) {
        if (err instanceof ClientAbortError) {
          // an ordinary event on the internet, not a fault of ours
          log.info({ method, route: route?.template ?? '(unmatched)' }, 'client abort: the connection closed mid-body');
          return;
        }
        // stop reading a body we refused; the connection is not reusable mid-body
        sendError(res, err, flavor, true);
        req.resume();
        return;
      }
      try {
        if (raw.length > 0) {
          if (!isJsonContentType(req.headers['content-type'])) {
            throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'send the body as JSON with Content-Type: application/json');
          }
          req.body = parseJsonObject(raw);
        } else {
          req.body = {};
        }
      } catch (err) {
        sendError(res, err, flavor);
        return;
      }
      // trpc-to-openapi checks the header itself; the body has been vetted above
      req.headers['content-type'] = 'application/json';
      // The published example of the transaction query is labelled POST: a POST with no body and a
      // query parameter answers exactly like the GET.
      if (method === 'POST' && url.pathname.replace(/\/$/, '') === '/transaction'
        && Object.keys(req.body as object).length === 0 && TRANSACTION_QUERY_KEYS.some((k) => url.searchParams.has(k))) {
        req.method = 'GET';
      }
    }
    // Rewrite trpc-to-openapi's error body into our envelope: onError has left the error on req.
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    (res as { end: unknown }).end = (...args: unknown[]) => {
      if (req.apiError !== undefined && res.statusCode >= 400) {
        const body = JSON.stringify(restErrorBody(toDomainError(req.apiError), flavor, services.clock.now()));
        return end(body);
      }
      return end(...args);
    };
    await rest(req, res, () => {
      const allowed = restPaths.some((r) => r.test(url.pathname));
      sendError(res, new DomainError(allowed ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', allowed ? `${method} is not allowed on ${url.pathname}` : 'no such path'), flavor);
    });
  }

  return {
    openApiDocument,
    /** Whether this request is the API's; false means "give it to the pages". */
    owns(pathname: string): boolean {
      return pathname === '/openapi.json' || pathname === '/api/trpc' || pathname.startsWith('/api/trpc/')
        || pathname.startsWith('/api/') || restPaths.some((r) => r.test(pathname));
    },
    async handle(req: Req, res: ServerResponse): Promise<void> {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const flavor: EnvelopeFlavor = url.pathname.startsWith('/api/webhooks') ? 'webhooks' : 'payments';
      try {
        if (url.pathname === '/openapi.json') {
          noteRoute('/openapi.json');
          res.setHeader('content-type', 'application/json');
          res.end(openApiDocument());
          return;
        }
        if (url.pathname === STATEMENT_CSV_PATH) {
          if (req.method !== 'GET') throw new DomainError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${url.pathname}`);
          await streamStatementCsv(services, req, res, url, createHttpContext(services, 'rest')({ req, res }).headers);
          return;
        }
        if (url.pathname === '/api/trpc' || url.pathname.startsWith('/api/trpc/')) {
          // one label per procedure; a batch or an unknown name gets a fixed one
          const name = url.pathname.slice('/api/trpc/'.length);
          noteRoute(procedureNames.has(name) ? `/api/trpc/${name}` : name.includes(',') ? '/api/trpc/(batch)' : '/api/trpc/(unknown)');
          trpc(req, res);
          return;
        }
        await handleRest(req, res, url, flavor);
      } catch (err) {
        if (!res.headersSent) sendError(res, err, flavor);
        else res.destroy();
      }
    },
  };
}
