import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { createContextInner, lowerHeaders, type Context } from '../context';
import { restErrorBody } from './presenter';
import type { Envelope as EnvelopeFlavor } from './presenter';
import { DomainError, toDomainError } from '../errors';
import { buildOpenApiDocument, restProcedures } from '../openapi';
import type { Services } from '../services';
import { isJsonContentType, MAX_BODY_BYTES, parseJsonObject, readBody } from './body';

type Req = IncomingMessage & { body?: unknown; apiError?: unknown };

const TRANSACTION_QUERY_KEYS = ['id', 'identifier', 'endtoend', 'external_ref'];

/**
 * THE OLD EDGE, kept only until the new adapter's answers are diffed against it (scripts/edge-diff.ts).
 * The API half of the process: REST paths through trpc-to-openapi's node handler (built once here),
 * /api/trpc through tRPC's adapter, /openapi.json. Anything else is not ours (the caller sends it to Next).
 */
export function createApiHandler(services: Services, router: AnyRouter) {
  // the REST paths as patterns, to tell a wrong method (405) from an unknown path (404)
  const restPaths = restProcedures(router).map((p) =>
    new RegExp('^' + p.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+') + '/?$'));
  const procStatus = new Map<string, number>();
  for (const [name, proc] of Object.entries(router._def.procedures as Record<string, { _def: { meta?: { successStatus?: number } } }>)) {
    if (proc._def.meta?.successStatus) procStatus.set(name, proc._def.meta.successStatus);
  }

  let openApiJson: string | null = null;
  const openApiDocument = () => (openApiJson ??= JSON.stringify(buildOpenApiDocument(router, '')));

  const responseMeta = ({ ctx, paths, errors }: { ctx?: Context; paths?: readonly string[] | string[]; errors: readonly unknown[] }) => {
    const headers: Record<string, string | string[]> = { 'cache-control': 'no-store', ...(ctx ? Object.fromEntries(ctx.resHeaders) : {}) };
    if (errors.length) {
      const d = toDomainError(errors[0]);
      if (d.extra.retryAfterSeconds) headers['retry-after'] = String(d.extra.retryAfterSeconds);
      return { status: d.status, headers };
    }
    const status = (paths?.[0] ? procStatus.get(paths[0]) : undefined) ?? 200;
    return { status, headers };
  };

  const rest = createOpenApiNodeHttpHandler({
    router: router as never,
    createContext: (({ req }: { req: IncomingMessage }) => createContextInner({ services, headers: lowerHeaders(req.headers), ip: req.socket.remoteAddress ?? 'unknown', transport: 'rest' })) as never,
    responseMeta: responseMeta as never,
    maxBodySize: MAX_BODY_BYTES,
    onError: ({ error, req }: { error: unknown; req: Req }) => {
      req.apiError = error;
      const d = toDomainError(error);
      if (d.code === 'INTERNAL') console.error('[api] internal error', error);
    },
  } as never) as (req: Req, res: ServerResponse, next?: () => void) => Promise<void>;

  const trpc = createHTTPHandler({
    router,
    basePath: '/api/trpc/',
    createContext: (({ req }: { req: IncomingMessage }) => createContextInner({ services, headers: lowerHeaders(req.headers), ip: req.socket.remoteAddress ?? 'unknown', transport: 'trpc' })) as never,
    maxBodySize: MAX_BODY_BYTES,
    responseMeta({ ctx, errors }) {
      const headers: Record<string, string | string[]> = { 'cache-control': 'no-store', ...((ctx as Context | undefined) ? Object.fromEntries((ctx as Context).resHeaders) : {}) };
      for (const e of errors) {
        const d = toDomainError(e);
        if (d.extra.retryAfterSeconds) headers['retry-after'] = String(d.extra.retryAfterSeconds);
      }
      return { headers };
    },
    onError({ error }) {
      if (toDomainError(error).code === 'INTERNAL') console.error('[trpc] internal error', error);
    },
  });

  function sendError(res: ServerResponse, err: unknown, flavor: EnvelopeFlavor, close = false) {
    const d = toDomainError(err);
    if (d.code === 'INTERNAL') console.error('[api] internal error', err);
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
    if (method !== 'GET' && method !== 'HEAD') {
      let raw: Buffer;
      try {
        raw = await readBody(req);
      } catch (err) {
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
          res.setHeader('content-type', 'application/json');
          res.end(openApiDocument());
          return;
        }
        if (url.pathname === '/api/trpc' || url.pathname.startsWith('/api/trpc/')) {
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
