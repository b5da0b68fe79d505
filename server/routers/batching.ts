/**
 * docs/decisions.md "Sign-in and token limits": a tRPC batch holds at most 20 calls, and the procedures that
 * check a credential are never batched, so one request checks at most one credential. The clients
 * (app/providers.tsx, server/client.ts) send them on their own. (No server imports: the pages load this.)
 */
export const MAX_BATCH_CALLS = 20;
export const UNBATCHABLE_PROCEDURES: readonly string[] = [
  'auth.token', 'session.signIn',
  // a signed-in person's password, confirmed again
  'session.signOutEverywhere', 'session.changePassword', 'dashboard.rotateToken', 'dashboard.postbackSecret', 'dashboard.rotatePixSecret',
  'webhooks.revealSecret', 'webhooks.rotateSecretConfirmed',
];

/** The credential procedure a batch of several calls includes, if any (the batch is then refused whole). */
export function credentialInBatch(info: { isBatchCall: boolean; calls: readonly { path: string }[] }): string | null {
  if (!info.isBatchCall || info.calls.length <= 1) return null;
  return info.calls.find((c) => UNBATCHABLE_PROCEDURES.includes(c.path))?.path ?? null;
}
