import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TRPCRequestInfo } from '@trpc/server/http';
import { cameOverHttps, clientAddress } from './http/client-address';
import { TRPCError } from '@trpc/server';
import { credentialInBatch } from './routers/batching';
import type { Services } from './services';

export type AuthKind = 'bearer' | 'webhook-api' | 'session';

export interface Auth {
  kind: AuthKind;
  accountId: string;
  userId?: string;
  /** The presented access token (bearer / x-token), e.g. to revoke it. */
  token?: string;
}

/** What a procedure may leave for the transport: status and headers of a success answer. */
export interface ResponseNotes {
  status?: number;
  /** An array sends the header once per value (several Set-Cookie). */
  headers: Record<string, string | string[]>;
}

export interface Context {
  services: Services;
  /** Lower-cased request headers. */
  headers: Record<string, string | undefined>;
  /** The client address (DECISIONS "Client addresses"): what limits are counted against. */
  ip: string;
  /** The request came over https (our TLS socket, or a trusted proxy's X-Forwarded-Proto). */
  https: boolean;
  /** Set by tests through createContextInner, or by the auth middleware from the headers. */
  auth: Auth | null;
  transport: 'rest' | 'trpc' | 'caller';
  /** The REST path as called (for idempotency scope). */
  path: string | null;
  response: ResponseNotes;
}

/** The inner context: what tests call directly with a known account. */
export function createContextInner(o: {
  services: Services;
  auth?: Auth | null;
  headers?: Record<string, string | undefined>;
  ip?: string;
  https?: boolean;
  transport?: Context['transport'];
  path?: string | null;
}): Context {
  return {
    services: o.services,
    auth: o.auth ?? null,
    headers: o.headers ?? {},
    ip: o.ip ?? '127.0.0.1',
    https: o.https ?? false,
    transport: o.transport ?? 'caller',
    path: o.path ?? null,
    response: { headers: {} },
  };
}

function lowerHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The outer context: reads the HTTP request; authentication itself happens in the procedures' middleware. */
export function createHttpContext(services: Services, transport: 'rest' | 'trpc') {
  return ({ req, info }: { req: IncomingMessage; res: ServerResponse; info?: TRPCRequestInfo }): Context => {
    const credential = info ? credentialInBatch(info) : null;
    // refused before any call of the batch runs
    if (credential) throw new TRPCError({ code: 'BAD_REQUEST', message: `${credential} cannot be batched with other calls; send it on its own` });
    return createContextInner({
      services,
      headers: lowerHeaders(req),
      ip: clientAddress(req, services.config.trustedProxies),
      https: cameOverHttps(req, services.config.trustedProxies),
      transport,
      path: transport === 'rest' ? new URL(req.url ?? '/', 'http://x').pathname : null,
    });
  };
}
