import { createTRPCClient, httpLink, type HTTPLinkOptions, type TRPCClient } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';

/*
 * The typed client's runtime: tRPC over HTTP (one request per call, so each create carries its own
 * idempotency-key), with stripe-node's safety habits:
 * - every create (a procedure that takes idempotency-key) gets a fresh key unless the caller gives one
 *   (`context: { idempotencyKey }`), and keeps it across its retries, so a retry never acts twice;
 * - retries with exponential backoff and jitter, honouring retry-after, at most maxNetworkRetries times:
 *   network errors, 409 with retry-after (the same key still running), 429 and 503, for queries and keyed creates;
 *   a mutation without a key is retried only on 429, which is answered before anything runs;
 * - with the client pair it fetches access tokens itself, renews one shortly before it expires, and
 *   re-authenticates once when the server answers 401 (a revoked or expired token).
 * Imports nothing but @trpc/client (and types from @trpc/server): it ships as its own package.
 */

export interface PaymentsClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:3000 */
  url: string;
  /** The client pair of POST /auth/token: the client obtains and renews access tokens itself. */
  credentials?: { code: string; token: string };
  /** Or a fixed access token, or a function returning the current one (no re-authentication then). */
  accessToken?: string | (() => string | Promise<string>);
  /** The project's api_key, for the webhook procedures (sent as x-api-key, with the access token as x-token). */
  apiKey?: string;
  /** Retries after the first attempt (default 2, as stripe-node); 0 turns retrying off. */
  maxNetworkRetries?: number;
  /** First backoff delay in ms (default 500), doubled per retry, with jitter. */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts in ms, retry-after included (default 20,000). */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

/** Per-call options: `client.withdrawals.create.mutate(input, { context: { idempotencyKey } })`. */
export interface PaymentsCallContext { idempotencyKey?: string }

const RETRY_STATUSES = new Set([409, 429, 503]);
/** Renew a token this long before the server would stop accepting it. */
const TOKEN_EARLY_MS = 60_000;

class TokenSource {
  private current: { token: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly o: PaymentsClientOptions, private readonly doFetch: typeof fetch) {}

  get renewable(): boolean { return this.o.credentials !== undefined; }

  async get(): Promise<string | null> {
    const { accessToken } = this.o;
    if (!this.o.credentials) {
      if (accessToken === undefined) return null;
      return typeof accessToken === 'function' ? accessToken() : accessToken;
    }
    if (this.current && Date.now() < this.current.expiresAt - TOKEN_EARLY_MS) return this.current.token;
    return this.renew();
  }

  /** One request for a new token, however many calls are waiting for it. */
  renew(): Promise<string> {
    this.pending ??= (async () => {
      try {
        const res = await this.doFetch(`${baseUrl(this.o.url)}/auth/token`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(this.o.credentials),
        });
        const body = (await res.json().catch(() => null)) as { access_token?: string; expires_in?: number; message?: unknown } | null;
        if (!res.ok || !body?.access_token) {
          throw new Error(`POST /auth/token answered ${res.status}${body?.message ? `: ${String(body.message)}` : ''}`);
        }
        this.current = { token: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
        return body.access_token;
      } finally {
        this.pending = null;
      }
    })();
    return this.pending;
  }
}

const baseUrl = (url: string) => url.replace(/\/+$/, '');

/** Seconds or an HTTP date, as retry-after may say; null when absent or unreadable. */
function retryAfterMs(res: Response): number | null {
  const h = res.headers.get('retry-after');
  if (!h) return null;
  if (/^\d+$/.test(h.trim())) return Number(h) * 1000;
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function backoffMs(retry: number, o: PaymentsClientOptions): number {
  const base = o.retryBaseDelayMs ?? 500;
  const max = o.maxRetryDelayMs ?? 20_000;
  const full = Math.min(max, base * 2 ** retry);
  return full / 2 + Math.random() * (full / 2); // jitter: callers that failed together do not retry together
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A fetch for tRPC's link: sets the credentials on every attempt and retries as described above.
 * `init.body` is a string for tRPC's HTTP link, so every attempt sends the same bytes (and the same
 * idempotency-key, set once per call by the link's headers).
 */
function retryingFetch(o: PaymentsClientOptions, tokens: TokenSource, doFetch: typeof fetch): typeof fetch {
  const maxRetries = Math.max(0, o.maxNetworkRetries ?? 2);
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    const keyed = headers.has('idempotency-key');
    const safe = method === 'GET' || keyed;
    let reauthenticated = false;
    for (let retry = 0; ; retry++) {
      const token = await tokens.get();
      if (token !== null) {
        headers.set('authorization', `Bearer ${token}`);
        if (o.apiKey) { headers.set('x-api-key', o.apiKey); headers.set('x-token', token); }
      }
      let res: Response;
      try {
        res = await doFetch(input, { ...init, headers });
      } catch (err) {
        // the request may have reached the server: only a query or a keyed create may go again
        if (!safe || retry >= maxRetries || init?.signal?.aborted) throw err;
        await sleep(backoffMs(retry, o), init?.signal);
        continue;
      }
      if (res.status === 401 && tokens.renewable && !reauthenticated) {
        // expired or revoked: one fresh token, and this attempt does not count as a retry
        reauthenticated = true;
        await tokens.renew();
        retry--;
        continue;
      }
      // a 409 is worth waiting for only when it says so (the same key still running); a taken external_ref is final
      const retryable = RETRY_STATUSES.has(res.status) && (safe || res.status === 429) && (res.status !== 409 || res.headers.has('retry-after'));
      if (!retryable || retry >= maxRetries) return res;
      const wait = retryAfterMs(res) ?? backoffMs(retry, o);
      await res.body?.cancel().catch(() => undefined);
      await sleep(Math.min(wait, o.maxRetryDelayMs ?? 20_000), init?.signal);
    }
  };
}

/**
 * A typed client over the given router type. `idempotentPaths` are the procedures that take an
 * idempotency-key (the creates); they get one per call.
 */
export function createClientFor<TRouter extends AnyRouter>(o: PaymentsClientOptions, idempotentPaths: ReadonlySet<string>): TRPCClient<TRouter> {
  const doFetch = o.fetch ?? globalThis.fetch;
  const tokens = new TokenSource(o, doFetch);
  const link: HTTPLinkOptions<AnyRouter['_def']['_config']['$types']> = {
    url: `${baseUrl(o.url)}/api/trpc`,
    fetch: retryingFetch(o, tokens, doFetch),
    headers({ op }) {
      if (op.type !== 'mutation' || !idempotentPaths.has(op.path)) return {};
      const given = (op.context as PaymentsCallContext | undefined)?.idempotencyKey;
      return { 'idempotency-key': given ?? globalThis.crypto.randomUUID() };
    },
  };
  // the server uses no transformer, which a generic TRouter cannot prove to httpLink's option types
  return createTRPCClient<TRouter>({ links: [httpLink<TRouter>(link as never)] });
}
