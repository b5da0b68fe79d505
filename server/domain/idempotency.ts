import { createHmac } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import { perConnection } from '../../db/prepared';
import type { AppDatabase, DrizzleDb } from '../../db';
import { idempotencyKeys } from '../../db/schema';
import { DomainError } from '../errors';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The operations that take an idempotency-key: named, not URL paths, so REST and tRPC share keys. */
export type IdempotentOperation = 'withdrawal.create' | 'transaction.create' | 'webhook.create';

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

const ph = (name: string) => sql.placeholder(name);
const bySlot = and(eq(idempotencyKeys.accountId, ph('accountId')), eq(idempotencyKeys.operation, ph('operation')),
  eq(idempotencyKeys.key, ph('key')));
const statements = perConnection((d) => ({
  find: d.select().from(idempotencyKeys).where(bySlot).prepare(),
  remove: d.delete(idempotencyKeys).where(bySlot).prepare(),
  insert: d.insert(idempotencyKeys).values({
    accountId: ph('accountId'), operation: ph('operation'), key: ph('key'), fingerprint: ph('fingerprint'),
    result: ph('result'), createdAt: ph('createdAt'), expiresAt: ph('expiresAt'),
  }).prepare(),
}));

/** Keys whose first request is still being answered in this process (work outside the writer). */
const inFlight = new Set<string>();

/**
 * Runs `effect` as one write job together with storing its result under the idempotency key, so the
 * effect and its stored result commit or vanish together. Same key + same request → the stored result
 * (replayed; the edge shapes it into the same bytes as the first time); same key + different request
 * → 422; same key while the first is running → 409. Failures are not stored: nothing happened, so a
 * retry may run again.
 */
export async function runIdempotent<T extends object>(
  db: AppDatabase,
  scope: IdempotencyScope,
  fingerprint: string,
  now: () => Date,
  effect: (tx: DrizzleDb) => Promise<T>,
  prepare?: () => Promise<void>,
): Promise<IdempotentResult<T>> {
  const slot = scope.key ? `${scope.accountId}\n${scope.operation}\n${scope.key}` : null;
  if (slot) {
    if (inFlight.has(slot)) {
      throw new DomainError('IDEMPOTENCY_IN_PROGRESS', 'a request with this idempotency-key is still being processed; retry later', { retryAfterSeconds: 1 });
    }
    inFlight.add(slot);
  }
  try {
    if (prepare) await prepare();
    return await db.write(async (tx) => {
      const at = now();
      const st = statements(tx);
      const slot = scope.key ? { accountId: scope.accountId, operation: scope.operation, key: scope.key } : null;
      if (slot) {
        const row = st.find.get(slot);
        if (row && row.expiresAt > at.toISOString()) {
          if (row.fingerprint !== fingerprint) {
            throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'this idempotency-key was used with a different request');
          }
          return { ...(JSON.parse(row.result) as T), replayed: true };
        }
        if (row) st.remove.run(slot);
      }
      const result = await effect(tx);
      if (slot) {
        st.insert.run({
          ...slot, fingerprint, result: JSON.stringify(result),
          createdAt: at.toISOString(), expiresAt: new Date(at.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        });
      }
      return { ...result, replayed: false };
    });
  } finally {
    if (slot) inFlight.delete(slot);
  }
}

/** Forgets answers older than 24 h; run by a background job. */
export async function purgeExpiredIdempotencyKeys(db: AppDatabase, now: Date): Promise<number> {
  return db.write(async (tx) => (await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now.toISOString())).run()).changes);
}
