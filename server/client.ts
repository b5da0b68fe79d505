import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { MAX_BATCH_CALLS, UNBATCHABLE_PROCEDURES } from './routers/batching';
import type { AppRouter } from './routers';

export type { AppRouter } from './routers';

export interface PaymentsClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Access token from POST /auth/token (or a function returning the current one). */
  accessToken: string | (() => string | Promise<string>);
  /** The project's api_key, for the webhook procedures (sent as x-api-key with the token as x-token). */
  apiKey?: string;
  fetch?: typeof fetch;
}

/**
 * A typed client for other TypeScript services: the same procedures as the REST API, inferred from
 * AppRouter, plain JSON (no transformer).
 */
export function createPaymentsClient(o: PaymentsClientOptions) {
  const url = `${o.url.replace(/\/$/, '')}/api/trpc`;
  async function headers() {
    const token = typeof o.accessToken === 'function' ? await o.accessToken() : o.accessToken;
    const h: Record<string, string> = { authorization: `Bearer ${token}` };
    if (o.apiKey) { h['x-api-key'] = o.apiKey; h['x-token'] = token; }
    return h;
  }
  return createTRPCClient<AppRouter>({
    links: [
      // the server refuses credential checks inside a batch and batches above 20 calls
      splitLink({
        condition: (op) => UNBATCHABLE_PROCEDURES.includes(op.path),
        true: httpLink({ url, fetch: o.fetch, headers }),
        false: httpBatchLink({ url, fetch: o.fetch, maxItems: MAX_BATCH_CALLS, headers }),
      }),
    ],
  });
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;
