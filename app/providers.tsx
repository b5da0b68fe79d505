'use client';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { MAX_BATCH_CALLS, UNBATCHABLE_PROCEDURES } from '../server/routers/batching';
import { useState, type ReactNode } from 'react';
import { z } from 'zod';
import type { AppRouter } from '@/server/routers';
import { apiErrorCode, isApiError } from './_lib/api-errors';
import { TRPCProvider } from './_lib/trpc';

// zod probes whether it may compile validators with Function(); the CSP forbids eval, so say no up
// front instead of letting the probe raise a violation on every page (validation works the same)
z.config({ jitless: true });

function csrfToken(): string {
  const m = /(?:^|;\s*)pp_csrf=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : '';
}

/** A session that ended (expired, revoked, signed out elsewhere) sends the person back to sign in. */
function onAuthLost(err: unknown) {
  if (apiErrorCode(err) !== 'UNAUTHORIZED') return;
  if (isApiError(err) && err.data?.path === 'session.signIn') return; // a wrong password, not a lost session
  if (window.location.pathname !== '/sign-in') window.location.assign('/sign-in');
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({
    queryCache: new QueryCache({ onError: onAuthLost }),
    mutationCache: new MutationCache({ onError: onAuthLost }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // 4xx answers are final; only transport trouble and 5xx are worth another try
        retry: (count, err) => count < 2 && (!isApiError(err) || !err.data || (err.data.httpStatus ?? 500) >= 500),
      },
    },
  }));
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({
    links: [splitLink({
      // the server refuses credential checks inside a batch and batches above 20 calls
      condition: (op) => UNBATCHABLE_PROCEDURES.includes(op.path),
      true: httpLink({ url: '/api/trpc', headers: () => ({ 'x-csrf-token': csrfToken() }) }),
      false: httpBatchLink({ url: '/api/trpc', maxItems: MAX_BATCH_CALLS, headers: () => ({ 'x-csrf-token': csrfToken() }) }),
    })],
  }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>{children}</TRPCProvider>
    </QueryClientProvider>
  );
}
