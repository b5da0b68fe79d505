import { createTRPCClient, httpBatchLink } from '@trpc/client';
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
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${o.url.replace(/\/$/, '')}/api/trpc`,
        fetch: o.fetch,
        async headers() {
          const token = typeof o.accessToken === 'function' ? await o.accessToken() : o.accessToken;
          const h: Record<string, string> = { authorization: `Bearer ${token}` };
          if (o.apiKey) { h['x-api-key'] = o.apiKey; h['x-token'] = token; }
          return h;
        },
      }),
    ],
  });
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;
