import { TRPCError } from '@trpc/server';

/**
 * DECISIONS "Sign-in and token limits": a tRPC batch holds at most 20 calls, and the procedures that
 * check a credential are never batched, so one request checks at most one credential. The clients
 * (app/providers.tsx, server/client.ts) send them on their own.
 */
export const MAX_BATCH_CALLS = 20;
export const UNBATCHABLE_PROCEDURES: readonly string[] = ['auth.token', 'session.signIn'];

/** Refuses (400) a batch of several calls that includes a credential check, before any call runs. */
export function refuseCredentialBatch(info: { isBatchCall: boolean; calls: readonly { path: string }[] }) {
  if (!info.isBatchCall || info.calls.length <= 1) return;
  const credential = info.calls.find((c) => UNBATCHABLE_PROCEDURES.includes(c.path));
  if (credential) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `${credential.path} cannot be batched with other calls; send it on its own` });
  }
}
