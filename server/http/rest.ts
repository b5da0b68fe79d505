import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { createContextInner, requestOrigin } from '../context';
import { DomainError } from '../errors';
import { log } from '../log';
import { noteRoute, requestRecordOf, type RequestRecord } from '../observability/request-context';
import type { Services } from '../services';
import type { Meta } from '../trpc';
import { ClientAbortError, isJsonContentType, MAX_BODY_BYTES, parseJsonObject, readBody } from './body';
import { procedureCall, type ProcedureCall } from './procedure-call';
import { presentRestError, presentRestSuccess, type Envelope, type RestAnswer } from './presenter';
import type { PixApiRoute } from '../domain/pix-api/problem';

/**
 * The REST edge: routes read from the procedures' `meta.openapi`, input built from path, query and
 * body, the procedure called directly, every answer shaped by the presenter. trpc-to-openapi only
 * generates /openapi.json; its runtime handler (a WHATWG Request per call, schema coercion per call)
 * is not on this path.
 */

export interface RestRoute {
  method: string;
  /** The openapi path as declared, e.g. /api/webhooks/{magic_id}. */
  path: string;
  /** Where the procedure sits in the router, e.g. withdrawals.create. */
  procedurePath: string;
  procedure: AnyProcedure;
  envelope: Envelope;
  /** The /v2 route's problem types (envelope 'pix-api'). */
  pixApi?: PixApiRoute;
  successStatus: number;
  /** Matches a normalised pathname, path parameters as named groups. */
  pattern: RegExp;
  /** The procedure takes no input at all (z.void and the like). */
  noInput: boolean;
  /** Calls the procedure (its middlewares, validation and resolver) without tRPC's generic caller. */
  call: ProcedureCall;
}

/** A request as the adapter sees it, whatever carried it (node:http, a WHATWG Request, a test). */
export interface RestRequest {
  method: string;
  /** Path and query, e.g. /withdraw?identifier=wd_… */
  target: string;
  headers: Record<string, string | undefined>;
  /** The client address and whether it came over https (docs/decisions.md "Client addresses"). */
  ip: string;
  https: boolean;
  /** The raw body, or the error reading it raised (too large), or null for none. */
  body: Buffer | Error | null;
  /** The request's log record (its id, route and account), when the request wrapper opened one. */
  record?: RequestRecord;
}

/** Pathnames whose declared path is remembered (see knownPath). */
const KNOWN_PATHNAMES_MAX = 1024;

/** The published example labels the transaction query POST (docs/decisions.md "Transactions"). */
const TRANSACTION_QUERY_KEYS = ['id', 'identifier', 'endtoend', 'external_ref'];

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
/** As trpc-to-openapi matches: no leading/trailing slash difference, case-insensitive. */
const normalizePath = (p: string) => `/${p.replace(/^\/|\/$/g, '')}`;

function inputIsVoid(proc: AnyProcedure): boolean {
  const parsers = (proc._def as { inputs?: { _zod?: { def?: { type?: string } } }[] }).inputs ?? [];
  if (parsers.length === 0) return true;
  const type = parsers[0]?._zod?.def?.type;
  return type === 'void' || type === 'undefined' || type === 'never';
}

/**
 * The routes of every procedure with `meta.openapi`. A REST procedure without its `envelope` meta is
 * refused here, at startup, so a new path cannot silently answer in the wrong envelope.
 */
export function restRoutes(router: AnyRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  const missing: string[] = [];
  for (const [procedurePath, procedure] of Object.entries(router._def.procedures as Record<string, AnyProcedure>)) {
    const meta = procedure._def.meta as Meta | undefined;
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) continue;
    if (meta.envelope !== 'payments' && meta.envelope !== 'webhooks' && meta.envelope !== 'pix-api') {
      missing.push(`${procedurePath} (${openapi.method} ${openapi.path})`);
      continue;
    }
    const path = normalizePath(openapi.path);
    routes.push({
      method: openapi.method.toUpperCase(),
      path: openapi.path,
      procedurePath,
      procedure,
      envelope: meta.envelope,
      pixApi: meta.pixApi,
      successStatus: meta.successStatus ?? 200,
      pattern: new RegExp(`^${escapeRegExp(path).replace(/\{(\w+)\}/g, (_, name) => `(?<${name}>[^/]+)`)}$`, 'i'),
      noInput: inputIsVoid(procedure),
      call: procedureCall(procedure, procedurePath),
    });
  }
  if (missing.length) {
    throw new Error(`REST procedures without meta.envelope ('payments', 'webhooks' or 'pix-api'): ${missing.join(', ')}`);
  }
  return routes;
}

/** Repeated query keys become arrays, single ones strings (what trpc-to-openapi gave procedures). */
function queryInput(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export function createRestAdapter(services: Services, router: AnyRouter) {
  const routes = restRoutes(router);
  const byMethod = new Map<string, RestRoute[]>();
  for (const r of routes) byMethod.set(r.method, [...(byMethod.get(r.method) ?? []), r]);
  // a known path under another method is a 405, anything else a 404 (case-sensitive, as published)
  const knownPaths = [...new Set(routes.map((r) => r.path))].map((p) => ({
    template: p,
    pattern: new RegExp('^' + escapeRegExp(p).replace(/\{\w+\}/g, '[^/]+') + '/?$'),
    envelope: routes.find((r) => r.path === p)!.envelope,
    pixApi: routes.find((r) => r.path === p)!.pixApi,
    /** The segments before the first path parameter: /api/webhooks/deliveries/{id}/resend → api, webhooks, deliveries. */
    base: p.split('{')[0].split('/').filter(Boolean),
  }));

  // The declared path a pathname falls under, remembered: every API request asked it three times (the
  // process's dispatch, the log's route label, the answer), each a regex test per declared path until
  // one matched. Bounded: paths with ids in them are as many as callers make, so past the bound it starts over.
  type KnownPath = (typeof knownPaths)[number];
  const knownByPathname = new Map<string, KnownPath | null>();
  function knownPath(pathname: string): KnownPath | undefined {
    let found = knownByPathname.get(pathname);
    if (found === undefined) {
      found = knownPaths.find((k) => k.pattern.test(pathname)) ?? null;
      if (knownByPathname.size >= KNOWN_PATHNAMES_MAX) knownByPathname.clear();
      knownByPathname.set(pathname, found);
    }
    return found ?? undefined;
  }

  /**
   * The envelope of an answer no procedure gives (unknown path, body refused before routing): that of
   * the declared route the path falls under (the longest declared base it starts with), else payments.
   */
  function envelopeNear(pathname: string): Envelope {
    const segs = pathname.split('/').filter(Boolean);
    // the Banco Central's surface owns its whole base path: an unknown /v2/… is a problem, not a payments 404
    if (segs[0] === 'v2' && knownPaths.some((k) => k.envelope === 'pix-api')) return 'pix-api';
    let best: { len: number; envelope: Envelope } = { len: 0, envelope: 'payments' };
    for (const k of knownPaths) {
      if (k.pattern.test(pathname)) return k.envelope;
      if (k.base.length > best.len && k.base.every((seg, i) => segs[i] === seg)) best = { len: k.base.length, envelope: k.envelope };
    }
    return best.envelope;
  }

  function match(method: string, pathname: string): { route: RestRoute; params: Record<string, string> } | null {
    const path = normalizePath(pathname);
    for (const route of byMethod.get(method) ?? []) {
      const m = route.pattern.exec(path);
      if (m) return { route, params: { ...(m.groups ?? {}) } };
    }
    return null;
  }

  /** One REST call, from a transport-neutral request to a transport-neutral answer. */
  async function answer(req: RestRequest): Promise<RestAnswer> {
    const url = new URL(req.target, 'http://localhost');
    let method = req.method.toUpperCase();
    // logs and metrics label the request by the route template, never the raw path
    const known = knownPath(url.pathname);
    if (known) noteRoute(req.record, known.template);
    const fallback = known ? known.envelope : envelopeNear(url.pathname);
    let body: Record<string, unknown> = {};
    if (method !== 'GET' && method !== 'HEAD') {
      try {
        if (req.body instanceof Error) throw req.body;
        if (req.body && req.body.length > 0) {
          if (!isJsonContentType(req.headers['content-type'])) {
            throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'send the body as JSON with Content-Type: application/json');
          }
          body = parseJsonObject(req.body);
        }
      } catch (err) {
        const refused = presentRestError(err, fallback, services.clock.now(), { pixApi: known?.pixApi, requestId: req.record?.id });
        // the rest of a body refused while reading is never read: the connection cannot be reused
        if (req.body instanceof Error) refused.headers.connection = 'close';
        return refused;
      }
      if (method === 'POST' && url.pathname.replace(/\/$/, '') === '/transaction'
        && Object.keys(body).length === 0 && TRANSACTION_QUERY_KEYS.some((k) => url.searchParams.has(k))) {
        method = 'GET';
      }
    }
    const found = match(method, url.pathname);
    if (!found) {
      const allowed = known !== undefined;
      return presentRestError(new DomainError(allowed ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND',
        allowed ? `${method} is not allowed on ${url.pathname}` : 'no such path'), fallback, services.clock.now(), { requestId: req.record?.id });
    }
    const { route, params } = found;
    const usesBody = method !== 'GET' && method !== 'DELETE';
    const input = route.noInput ? undefined : { ...(usesBody ? body : queryInput(url.searchParams)), ...params };
    const ctx = createContextInner({ services, headers: req.headers, ip: req.ip, https: req.https, transport: 'rest', request: req.record });
    try {
      const output = await route.call(ctx, input);
      return presentRestSuccess(output, route.successStatus, ctx.resHeaders);
    } catch (err) {
      return presentRestError(err, route.envelope, services.clock.now(), { pixApi: route.pixApi, requestId: req.record?.id, input });
    }
  }

  return {
    routes,
    answer,
    /** Whether a path is one of the REST routes (any method). */
    owns(pathname: string): boolean {
      return knownPath(pathname) !== undefined;
    },
    /** Serves a node:http request. */
    async handleNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const method = (req.method ?? 'GET').toUpperCase();
      let raw: Buffer | Error | null = null;
      if (method !== 'GET' && method !== 'HEAD') {
        raw = await readBody(req).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        if (raw instanceof ClientAbortError) {
          // an ordinary event on the internet, not a fault of ours: nobody is left to answer
          const known = knownPath((req.url ?? '/').split('?')[0]);
          if (known) noteRoute(requestRecordOf(req), known.template);
          log.info({ method, route: known?.template ?? '(unmatched)' }, 'client abort: the connection closed mid-body');
          return;
        }
      }
      const out = await answer({ method, target: req.url ?? '/', ...requestOrigin(services, req), body: raw, record: requestRecordOf(req) });
      // writeHead fixes the headers before end() could count the body: without this every answer went
      // out with chunked framing
      if (out.body !== undefined) res.setHeader('content-length', Buffer.byteLength(out.body));
      res.writeHead(out.status, out.headers);
      res.end(out.body);
      if (raw instanceof Error) req.resume();
    },
    /** Serves a WHATWG Request, in process (tests, or another host). */
    async handle(request: Request, origin: { ip: string; https: boolean } = { ip: '127.0.0.1', https: false }): Promise<Response> {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((v, k) => { headers[k] = v; });
      let raw: Buffer | Error | null = null;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const declared = Number(headers['content-length']);
        const buf = Number.isFinite(declared) && declared > MAX_BODY_BYTES ? null : Buffer.from(await request.arrayBuffer());
        raw = buf === null || buf.length > MAX_BODY_BYTES ? new DomainError('PAYLOAD_TOO_LARGE', 'request body is larger than 64 KiB') : buf;
      }
      const out = await answer({ method: request.method, target: url.pathname + url.search, headers, ...origin, body: raw });
      // a HEAD answer has the headers of its GET and no body, as node:http sends it
      return new Response(request.method === 'HEAD' ? null : out.body ?? null, { status: out.status, headers: out.headers });
    },
  };
}

export type RestAdapter = ReturnType<typeof createRestAdapter>;
