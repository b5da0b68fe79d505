import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { IDEMPOTENT_PROCEDURES } from './procedures.js';
import { createClientFor, type PaymentsClientOptions } from './core.js';

export type { AppRouter } from './app-router.js';
export type { PaymentsCallContext, PaymentsClientOptions } from './core.js';

/**
 * The Pix Payments API as typed procedures (inputs and outputs inferred from AppRouter, plain JSON):
 *
 *   const payments = createPaymentsClient({ url, credentials: { code, token } });
 *   const { available } = await payments.account.balance.query();
 */
export function createPaymentsClient(options: PaymentsClientOptions): TRPCClient<AppRouter> {
  return createClientFor<AppRouter>(options, IDEMPOTENT_PROCEDURES);
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;
