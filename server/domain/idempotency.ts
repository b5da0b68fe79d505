import { createHmac } from 'node:crypto';
import type { Stores } from '../../db';
import { DomainError } from '../errors';
import type { Services } from '../services';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The operations that take an idempotency-key: named, not URL paths, so REST and tRPC share keys. */
export type IdempotentOperation = 'withdrawal.create' | 'transaction.create' | 'webhook.create' | 'refund.create';

export interface IdempotencyScope {
  accountId: string;
  operation: IdempotentOperation;
  key: string | null;
}

/** The one options shape of the three idempotent creates: the `idempotency-key` header as sent. */
export interface IdempotentCreateOptions { idempotencyKey?: string | null }

/** A create's plain result, and whether it was the stored one (a replay). */
export type IdempotentResult<T> = T & { replayed: boolean };

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/**
 * A keyed hash of the request: a plain SHA-256 of a body holding a card number could be brute-forced,
 * an HMAC under the master key cannot. The request itself is never stored.
 */
export function requestFingerprint(masterKey: Buffer, operation: IdempotentOperation, input: unknown): string {
  return createHmac('sha256', masterKey).update(`${operation}\n${JSON.stringify(canonical(input ?? null))}`).digest('hex');
}

export function checkIdempotencyKey(key: string | undefined | null): string | null {
  if (key === undefined || key === null) return null;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError('VALIDATION', `idempotency-key: 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`, {
      issues: [{ path: 'idempotency-key', message: `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters` }],
    });
  }
  return key;
}

/** Keys whose first request is still being answered in this process (work outside the writer). */
const inFlight = new Set<string>();

/**
 * What the write job throws when the request turned out not to be a replay and has not been checked yet: it
 * fails, so that nothing of it is kept (on PostgreSQL the slot it claimed, see IdempotencyStore.lockedAnswer).
 */
class NotChecked extends Error {}

/**
 * Runs `effect` as one write job together with storing its result under the idempotency key, so the
 * effect and its stored result commit or vanish together. Same key + same request → the stored result
 * (replayed; the edge shapes it into the same bytes as the first time); same key + different request
 * → 422; same key while the first is running → 409. Failures are not stored: nothing happened, so a
 * retry may run again.
 *
 * `check` holds the rules that may wait on the network (DNS of a postback or webhook URL) or change over
 * time (expiry dates, configured caps); it runs outside the writer, before the job, and its result is
 * handed to `effect` (it only reads and judges, so running it for what turns out to be a replay changes
 * nothing). A genuine replay answers what was stored without being judged again by today's rules, and
 * only an answer actually found inside the write job counts as one: when the check refuses and the read
 * connection sees a stored answer, the job is tried without the check's result; if that answer has
 * expired meanwhile the check runs again (its refusal stands) and so nothing unchecked is ever stored.
 */
export async function runIdempotent<T extends object, C = undefined>(
  s: Pick<Services, 'db' | 'clock'>,
  scope: IdempotencyScope,
  fingerprint: string,
  effect: (tx: Stores, checked: C) => Promise<T>,
  check?: () => Promise<C>,
): Promise<IdempotentResult<T>> {
  const slot = scope.key ? { accountId: scope.accountId, operation: scope.operation, key: scope.key } : null;
  const flightKey = slot ? `${slot.accountId}\n${slot.operation}\n${slot.key}` : null;
  if (flightKey) {
    if (inFlight.has(flightKey)) {
      throw new DomainError('IDEMPOTENCY_IN_PROGRESS', 'a request with this idempotency-key is still being processed; retry later', { retryAfterSeconds: 1 });
    }
    inFlight.add(flightKey);
  }
  try {
    let checked: { value: C } | null = check ? null : { value: undefined as C };
    if (!checked) {
      // the usual case (no key, or a key never seen): check first, then one write job, and no read before it
      // (on PostgreSQL a look at the slot is a round trip per request; the job looks at the slot anyway).
      // A refused request may still be a replay of an answer stored when the rules allowed it: only then is
      // the slot read first, and the job decides.
      try {
        checked = { value: await check!() };
      } catch (err) {
        if (!(slot && liveAnswer(await s.db.read.idempotency.answerExpiry(slot), s.clock.now()))) throw err;
      }
    }
    for (;;) {
      try {
        return await s.db.write(async (tx): Promise<IdempotentResult<T>> => {
          const at = s.clock.now();
          const claim = { fingerprint, createdAt: at.toISOString(), expiresAt: new Date(at.getTime() + IDEMPOTENCY_TTL_MS).toISOString() };
          if (slot) {
            // instances each answer their own requests: a second request of this key waits for the first
            // one's job to commit and then replays its answer, instead of running the effect again
            const row = await tx.idempotency.lockedAnswer(slot, claim);
            if (row && liveAnswer(row, at)) {
              if (row.fingerprint !== fingerprint) {
                throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'this idempotency-key was used with a different request');
              }
              return { ...(JSON.parse(row.result) as T), replayed: true };
            }
            if (!checked) throw new NotChecked();
            if (row) await tx.idempotency.forget(slot);
          }
          const result = await effect(tx, checked!.value);
          if (slot) await tx.idempotency.storeAnswer({ ...slot, ...claim, result: JSON.stringify(result) });
          return { ...result, replayed: false };
        });
      } catch (err) {
        if (!(err instanceof NotChecked)) throw err;
      }
      // the stored answer the read connection saw had expired by the time the job ran: a new request
      checked = { value: await check!() };
    }
  } finally {
    if (flightKey) inFlight.delete(flightKey);
  }
}

function liveAnswer(row: { expiresAt: string } | undefined, at: Date): boolean {
  return !!row && row.expiresAt > at.toISOString();
}

/**
 * Forgets answers older than 24 h; run by a background job on every instance. One purge at a time is
 * enough: a job that finds another instance's purge under way (a lock named for it, tried without
 * waiting) leaves the work to it and returns 0 instead of queueing on the same rows.
 */
export async function purgeExpiredIdempotencyKeys(s: Pick<Services, 'db'>, now: Date): Promise<number> {
  return s.db.write(async (tx) => {
    return tx.idempotency.purgeExpired(now.toISOString());
  });
}
