import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestOrigin } from '../context';
import { DomainError, toDomainError } from '../errors';
import { log } from '../log';
import { noteRoute, requestRecordOf } from '../observability/request-context';
import { grantClientCredentials, OAuthError, type TokenRequest } from '../domain/pix-api/oauth';
import type { Services } from '../services';
import { ClientAbortError, readBody } from './body';

export const OAUTH_TOKEN_PATH = '/oauth/token';

/** An answer of the token endpoint: status, headers and JSON body (RFC 6749 §5.1 and §5.2). */
export interface TokenAnswer { status: number; headers: Record<string, string>; body: string }

// RFC 6749 §5.1: token answers are never cached
const NO_STORE = { 'content-type': 'application/json;charset=UTF-8', 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * The client credentials of an `Authorization: Basic …` header (RFC 6749 §2.3.1: id and secret are
 * form-urlencoded, then joined by a colon and base64-encoded); null when there is no Basic header,
 * an OAuthError when there is one that cannot be read.
 */
export function basicClient(authorization: string | undefined): TokenRequest['client'] {
  const m = authorization ? /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization) : null;
  if (!m) {
    if (authorization && /^Basic\b/i.test(authorization)) throw new OAuthError('invalid_client', 'the Basic credentials are not valid base64');
    return null;
  }
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials must be client_id:client_secret');
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'the Basic credentials are not valid form-urlencoding');
  }
}

/** The form body's parameters; a parameter sent twice is refused (RFC 6749 §3.2), unknown ones are ignored. */
export function tokenForm(contentType: string | undefined, raw: Buffer): Map<string, string> {
  const base = contentType?.split(';')[0].trim().toLowerCase();
  if (base !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  }
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) {
    if (out.has(k)) throw new OAuthError('invalid_request', `${k} is sent more than once`);
    out.set(k, v);
  }
  return out;
}

function oauthError(e: OAuthError): TokenAnswer {
  const headers: Record<string, string> = { ...NO_STORE };
  // RFC 6749 §5.2: a client that tried to authenticate with Basic and failed is answered with the scheme to use
  if (e.status === 401) headers['www-authenticate'] = 'Basic realm="pix", charset="UTF-8"';
  if (e.retryAfterSeconds) headers['retry-after'] = String(e.retryAfterSeconds);
  return { status: e.status, headers, body: JSON.stringify({ error: e.error, error_description: e.description }) };
}

/** One token request, from what the edge read to the answer; transport-neutral (tests call it in process too). */
export async function answerTokenRequest(s: Services, req: { method: string; headers: Record<string, string | undefined>; body: Buffer | Error; ip: string }): Promise<TokenAnswer> {
  try {
    if (req.method !== 'POST') {
      return { status: 405, headers: { ...NO_STORE, allow: 'POST' }, body: JSON.stringify({ error: 'invalid_request', error_description: `${req.method} is not allowed on ${OAUTH_TOKEN_PATH}; POST the token request` }) };
    }
    if (req.body instanceof Error) throw req.body;
    const form = tokenForm(req.headers['content-type'], req.body);
    const request: TokenRequest = { client: basicClient(req.headers.authorization), grantType: form.get('grant_type'), scope: form.get('scope') };
    const granted = await grantClientCredentials(s, request, req.ip);
    return { status: 200, headers: { ...NO_STORE }, body: JSON.stringify(granted) };
  } catch (err) {
    if (err instanceof OAuthError) return oauthError(err);
    const d = toDomainError(err);
    if (d.code === 'PAYLOAD_TOO_LARGE') return oauthError(new OAuthError('invalid_request', d.detail));
    if (d.code === 'INTERNAL') log.error({ err }, 'internal error');
    // the database busy or gone (503), or our fault (500): no OAuth error code says it, so the status does
    return { status: d.status, headers: { ...NO_STORE, ...(d.extra.retryAfterSeconds ? { 'retry-after': String(d.extra.retryAfterSeconds) } : {}) }, body: JSON.stringify({ error: 'server_error', error_description: d.detail }) };
  }
}

/** POST /oauth/token over node:http. */
export async function serveTokenRequest(s: Services, req: IncomingMessage, res: ServerResponse): Promise<void> {
  noteRoute(requestRecordOf(req), OAUTH_TOKEN_PATH);
  const method = (req.method ?? 'GET').toUpperCase();
  let body: Buffer | Error = Buffer.alloc(0);
  if (method === 'POST') {
    body = await readBody(req).catch((err: unknown) => (err instanceof Error ? err : new DomainError('INTERNAL', String(err))));
    if (body instanceof ClientAbortError) return;
  }
  const { headers, ip } = requestOrigin(s, req);
  const out = await answerTokenRequest(s, { method, headers, body, ip });
  res.writeHead(out.status, { ...out.headers, 'content-length': String(Buffer.byteLength(out.body)), ...(body instanceof Error ? { connection: 'close' } : {}) });
  res.end(out.body);
  if (body instanceof Error) req.resume();
}
