import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { TRPCRequestInfo } from '@trpc/server/http';
import { TRPCError } from '@trpc/server';
import { cameOverHttps, clientAddress } from './http/client-address';
import { credentialInBatch } from './routers/batching';
import { requestRecordOf, type RequestRecord } from './observability/request-context';
import { servicesForRequest, type Services } from './services';

export type AuthKind = 'bearer' | 'webhook-api' | 'session' | 'pix-api';

export interface Auth {
  kind: AuthKind;
  accountId: string;
  userId?: string;
  /** A dashboard session: its id (never the cookie's token) and the person's email. */
  sessionId?: string;
  email?: string;
  /** The presented access token (bearer / x-token), e.g. to revoke it. */
  token?: string;
}

export interface Context {
  services: Services;
  /** Lower-cased request headers. */
  headers: Record<string, string | undefined>;
  /** The client address (docs/decisions.md "Client addresses"): what limits are counted against. */
  ip: string;
  /** The request came over https (our TLS socket, or a trusted proxy's X-Forwarded-Proto). */
  https: boolean;
  /** Set by tests through createContextInner, or by the auth middleware from the headers. */
  auth: Auth | null;
  transport: 'rest' | 'trpc' | 'caller';
  /**
   * Headers of the answer (tRPC's fetch-adapter convention): Set-Cookie of the session procedures,
   * `idempotent-replayed` of a replayed create. Status codes are never set here: they come from meta.
   */
  resHeaders: Headers;
  /** The log record of the HTTP request this call serves (absent for in-process callers). */
  request: RequestRecord | null;
}

/** The inner context: what tests call directly with a known account. */
export function createContextInner(o: {
  services: Services;
  auth?: Auth | null;
  headers?: Record<string, string | undefined>;
  ip?: string;
  https?: boolean;
  transport?: Context['transport'];
  request?: RequestRecord | null;
}): Context {
  return {
    // the request's write jobs carry its id (the events they record keep it)
    services: o.request ? servicesForRequest(o.services, o.request.id) : o.services,
    auth: o.auth ?? null,
    headers: o.headers ?? {},
    ip: o.ip ?? '127.0.0.1',
    https: o.https ?? false,
    transport: o.transport ?? 'caller',
    resHeaders: new Headers(),
    request: o.request ?? null,
  };
}

/** node:http already lower-cases names; repeated headers are joined as HTTP allows. */
export function lowerHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** What a node:http request says about its client, for either transport (docs/decisions.md "Client addresses"). */
export function requestOrigin(services: Services, req: IncomingMessage) {
  return {
    headers: lowerHeaders(req.headers),
    ip: clientAddress(req, services.config.trustedProxies),
    https: cameOverHttps(req, services.config.trustedProxies),
  };
}

/** The outer context of tRPC over HTTP: reads the request; authentication happens in the procedures' middleware. */
export function createTrpcHttpContext(services: Services) {
  return ({ req, info }: { req: IncomingMessage; res: ServerResponse; info?: TRPCRequestInfo }): Context => {
    const credential = info ? credentialInBatch(info) : null;
    // refused before any call of the batch runs
    if (credential) throw new TRPCError({ code: 'BAD_REQUEST', message: `${credential} cannot be batched with other calls; send it on its own` });
    return createContextInner({ services, ...requestOrigin(services, req), transport: 'trpc', request: requestRecordOf(req) });
  };
}
