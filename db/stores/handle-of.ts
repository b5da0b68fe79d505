import type { DrizzleDb } from '../handle';

/**
 * The handle under stores, or the handle itself: the helpers of db/ run on handles and accept the
 * domain's stores too. (By shape rather than `instanceof`, so that this module needs nothing of the
 * stores' own and db/prepared.ts can use it without an import cycle.)
 */
/** A handle, or anything that runs on one (the domain's stores). */
export type OnHandle = DrizzleDb | { readonly handle: DrizzleDb };

export function handleOf(db: OnHandle): DrizzleDb {
  return 'handle' in db ? db.handle : db;
}
