import type { IncomingMessage, ServerResponse } from 'node:http';
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
  ip: string;
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
  transport?: Context['transport'];
  path?: string | null;
}): Context {
  return {
    services: o.services,
    auth: o.auth ?? null,
    headers: o.headers ?? {},
    ip: o.ip ?? '127.0.0.1',
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
  return ({ req }: { req: IncomingMessage; res: ServerResponse }): Context => createContextInner({
    services,
    headers: lowerHeaders(req),
    ip: req.socket.remoteAddress ?? 'unknown',
    transport,
    path: transport === 'rest' ? new URL(req.url ?? '/', 'http://x').pathname : null,
  });
}
