// The API Pix's authentication (docs/decisions.md "The Banco Central's API Pix"): OAuth2 client credentials
// (RFC 6749 §4.4) at POST /oauth/token, opaque bearer tokens with the yaml's scopes, and the check each
// /v2 operation makes of the scope it needs. The HTTP shape (Basic header, form body, JSON answers) is
// the edge's: server/http/oauth-token.ts.
import type { Stores } from '../../../db';
import { PIX_API_SCOPES, type PixApiScope } from '../../../contract/enums';
import { DomainError } from '../../errors';
import { addressKey } from '../../rate-limit';
import type { Services } from '../../services';
import { newId } from '../ids';
import { hashSecret, randomSecret, safeEqualHex } from '../secrets';

export { PIX_API_SCOPES, type PixApiScope };

export const PIX_API_TOKEN_TTL_SECONDS = 3600;
const CLIENT_SECRET_PREFIX = 'pxs_';
const TOKEN_PREFIX = 'pxa_';
const KNOWN_SCOPES: ReadonlySet<string> = new Set(PIX_API_SCOPES);

/** Who an API Pix request acts for: the account, the client its token was issued to, and what the token may do. */
export interface PixApiPrincipal {
  accountId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
}

/**
 * A token that lacks the scope an operation needs: the /v2 layer answers it 403 `AcessoNegado` in the
 * standard's problem shape; anywhere else it is an ordinary 403.
 */
export class PixApiAccessDenied extends DomainError {
  constructor(readonly scope: string) {
    super('FORBIDDEN', `the access token does not have the scope ${scope}`);
    this.name = 'PixApiAccessDenied';
  }
}

/**
 * A refused token request, as RFC 6749 §5.2 names it (`error`), with the HTTP status the edge answers:
 * 401 for a client that failed to authenticate, 429 when the address must wait, 400 otherwise.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope' | 'temporarily_unavailable',
    readonly description: string,
    readonly status: 400 | 401 | 429 = error === 'invalid_client' ? 401 : 400,
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** A new client secret: random, 256 bits, shown once, stored only as its SHA-256. */
export function newPixClientSecret(): string {
  return randomSecret(CLIENT_SECRET_PREFIX);
}

/** Inside a write job: the account's API Pix client with every scope; its id and secret (the secret exists only in this answer). */
export async function createPixApiClient(tx: Stores, accountId: string, at: Date): Promise<{ clientId: string; clientSecret: string }> {
  const clientId = newId('pixApiClient');
  const clientSecret = newPixClientSecret();
  await tx.pixApiClients.insertClient({ clientId, accountId, secretHash: hashSecret(clientSecret), scopes: PIX_API_SCOPES.join(' '), createdAt: at.toISOString() });
  return { clientId, clientSecret };
}

/**
 * A new secret for the account's API Pix client (the client is made now for an account created before
 * there were API Pix credentials). The old secret stops working and every token it got is revoked, in
 * the same job as `alongside` (the dashboard records the rotation there).
 */
export async function rotatePixClientSecret(
  s: Pick<Services, 'db' | 'clock'>, accountId: string, alongside?: (tx: Stores, at: Date) => Promise<void>,
): Promise<{ client_id: string; client_secret: string }> {
  const clientSecret = newPixClientSecret();
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    let clientId = await tx.pixApiClients.replaceSecret(accountId, hashSecret(clientSecret), at.toISOString());
    if (clientId === null) {
      if (!(await tx.accounts.accountById(accountId))) throw new DomainError('NOT_FOUND', 'account not found');
      clientId = newId('pixApiClient');
      await tx.pixApiClients.insertClient({ clientId, accountId, secretHash: hashSecret(clientSecret), scopes: PIX_API_SCOPES.join(' '), createdAt: at.toISOString() });
    }
    await alongside?.(tx, at);
    return { client_id: clientId, client_secret: clientSecret };
  });
}

/** The account's API Pix client as the dashboard shows it (null before one was made). */
export async function pixApiClientOf(tx: Stores, accountId: string) {
  const row = await tx.pixApiClients.clientOf(accountId);
  return row ? { client_id: row.clientId, scopes: row.scopes.split(' ').filter(Boolean), secret_set_at: row.secretSetAt } : null;
}

/** What a token request asks for, as the edge read it from the Basic header and the form body. */
export interface TokenRequest {
  /** null when no HTTP Basic credentials were sent. */
  client: { id: string; secret: string } | null;
  grantType: string | undefined;
  /** The `scope` parameter as sent (space-separated), undefined when absent. */
  scope: string | undefined;
}

export interface TokenGranted { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const SCOPE_PARAMETER = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;

/**
 * The scopes to grant: every scope of the client when none is asked for (RFC 6749 §3.3 lets the server
 * pick a default), else exactly those asked for. A scope the client does not have, or that does not
 * exist, refuses the whole request with `invalid_scope` rather than being dropped: an integration that
 * asks for a scope expects it, and a token silently narrower would fail later with a 403 far from the
 * cause. Checked after the client authenticated, so it reveals nothing to a stranger.
 */
export function grantedScopes(clientScopes: readonly string[], requested: string | undefined): string[] {
  if (requested === undefined || requested === '') return [...clientScopes];
  if (!SCOPE_PARAMETER.test(requested)) throw new OAuthError('invalid_scope', 'scope: space-separated scope names');
  const has = new Set(clientScopes);
  const asked = [...new Set(requested.split(' '))];
  const missing = asked.filter((x) => !has.has(x));
  if (missing.length) {
    const unknown = missing.filter((x) => !KNOWN_SCOPES.has(x));
    throw new OAuthError('invalid_scope', unknown.length
      ? `scope: unknown scope ${unknown.join(', ')}`
      : `scope: this client may not be granted ${missing.join(', ')}`);
  }
  return asked;
}

/** Checks what needs no credential: the grant type and the scope's syntax. */
function checkGrant(req: TokenRequest) {
  if (req.grantType === undefined || req.grantType === '') throw new OAuthError('invalid_request', 'grant_type is required');
  if (req.grantType !== 'client_credentials') throw new OAuthError('unsupported_grant_type', 'only grant_type=client_credentials is supported');
  if (req.scope !== undefined && req.scope !== '' && !SCOPE_PARAMETER.test(req.scope)) throw new OAuthError('invalid_scope', 'scope: space-separated scope names');
}

/**
 * POST /oauth/token, client credentials grant. The request's shape is checked first (nothing counted);
 * then the attempt counts against the client address before the secret is checked, and only against
 * it (the token limits of docs/decisions.md "Sign-in and token limits", the same window POST /auth/token
 * counts in): a client id is public and its secret unguessable, so failures never lock a client, and
 * nobody can keep a merchant's integration out by sending wrong secrets for its id. A success does
 * not count. Unknown client and wrong secret look alike and cost alike.
 */
export async function grantClientCredentials(s: Services, req: TokenRequest, clientAddress: string): Promise<TokenGranted> {
  checkGrant(req);
  if (!req.client) throw new OAuthError('invalid_client', 'authenticate the client with HTTP Basic (client_id:client_secret)');
  const address = addressKey(clientAddress);
  const limit = s.limits.tokenByAddress;
  const wait = await limit.attempt(address);
  if (wait !== null) throw new OAuthError('temporarily_unavailable', `too many failed attempts; try again in ${wait} s`, 429, wait);
  const client = req.client.id.length <= 200 ? await s.db.read.pixApiClients.clientById(req.client.id) : undefined;
  const presented = hashSecret(req.client.secret);
  // compared against a dummy hash when the client is unknown, so both paths cost the same
  const ok = safeEqualHex(presented, client?.secretHash ?? hashSecret('no-such-client')) && !!client;
  if (!ok || !client) throw new OAuthError('invalid_client', 'unknown client or wrong client secret');
  await limit.succeeded(address);
  const scopes = grantedScopes(client.scopes.split(' ').filter(Boolean), req.scope);
  const accessToken = randomSecret(TOKEN_PREFIX);
  const at = s.clock.now();
  await s.db.write(async (tx) => {
    await tx.pixApiClients.insertToken({
      id: newId('pixApiToken'), clientId: client.clientId, accountId: client.accountId, tokenHash: hashSecret(accessToken), scopes: scopes.join(' '),
      createdAt: at.toISOString(), expiresAt: new Date(at.getTime() + PIX_API_TOKEN_TTL_SECONDS * 1000).toISOString(),
    });
  });
  return { access_token: accessToken, token_type: 'Bearer', expires_in: PIX_API_TOKEN_TTL_SECONDS, scope: scopes.join(' ') };
}

/**
 * Who an `Authorization: Bearer <token>` header of an API Pix request acts for, or null (no header, not
 * Bearer, unknown, expired or revoked now). The lookup is by hash, so its timing says nothing about
 * the token; the hashes are compared in constant time all the same.
 */
export async function pixApiPrincipal(s: Pick<Services, 'db' | 'clock'>, authorization: string | undefined): Promise<PixApiPrincipal | null> {
  const m = authorization ? /^Bearer +(\S+) *$/i.exec(authorization) : null;
  if (!m) return null;
  const token = m[1];
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const hash = hashSecret(token);
  const row = await s.db.read.pixApiClients.liveToken(hash, s.clock.now().toISOString());
  if (!row || !safeEqualHex(hash, row.tokenHash)) return null;
  return { accountId: row.accountId, clientId: row.clientId, scopes: new Set(row.scopes.split(' ').filter(Boolean)) };
}

/** Throws PixApiAccessDenied unless the principal's token carries `scope`. */
export function requireScope(principal: PixApiPrincipal, scope: PixApiScope): void {
  if (!principal.scopes.has(scope)) throw new PixApiAccessDenied(scope);
}
