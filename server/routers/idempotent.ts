import type { AnyRouter } from '@trpc/server';
import type { Meta } from '../trpc';

/**
 * The procedures that take an `idempotency-key` (their REST meta declares the header): the typed client
 * sends each call of these a fresh key unless the caller gives one, and may then retry it safely.
 */
export function idempotentProcedures(router: AnyRouter): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [path, proc] of Object.entries(router._def.procedures as Record<string, { _def: { type: string; meta?: Meta } }>)) {
    const headers = proc._def.meta?.openapi?.requestHeaders as { shape?: Record<string, unknown> } | undefined;
    if (proc._def.type === 'mutation' && headers?.shape && 'idempotency-key' in headers.shape) out.add(path);
  }
  return out;
}
