import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from './services';

export type AuthKind = 'bearer' | 'webhook-api' | 'session';

export interface Auth {
  kind: AuthKind;
  accountId: string;
  userId?: string;
  /** The presented access token (bearer / x-token), e.g. to revoke it. */
  token?: string;
}

export interface Context {
  services: Services;
  /** Lower-cased request headers. */
  headers: Record<string, string | undefined>;
  ip: string;
  /** Set by tests through createContextInner, or by the auth middleware from the headers. */
  auth: Auth | null;
  transport: 'rest' | 'trpc' | 'caller';
  /**
   * Headers of the answer (tRPC's fetch-adapter convention): Set-Cookie of the session procedures,
   * `idempotent-replayed` of a replayed create. Status codes are never set here: they come from meta.
   */
  resHeaders: Headers;
}

/** The inner context: what tests call directly with a known account. */
export function createContextInner(o: {
  services: Services;
  auth?: Auth | null;
  headers?: Record<string, string | undefined>;
  ip?: string;
  transport?: Context['transport'];
}): Context {
  return {
    services: o.services,
    auth: o.auth ?? null,
    headers: o.headers ?? {},
    ip: o.ip ?? '127.0.0.1',
    transport: o.transport ?? 'caller',
    resHeaders: new Headers(),
  };
}

/** node:http already lower-cases names; repeated headers are joined as HTTP allows. */
export function lowerHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The outer context of tRPC over HTTP: reads the request; authentication happens in the procedures' middleware. */
export function createTrpcHttpContext(services: Services) {
  return ({ req }: { req: IncomingMessage; res: ServerResponse }): Context => createContextInner({
    services,
    headers: lowerHeaders(req.headers),
    ip: req.socket.remoteAddress ?? 'unknown',
    transport: 'trpc',
  });
}
