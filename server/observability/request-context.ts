import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * What the request log line needs to know about a request that only the inner layers learn: the
 * route template the REST or tRPC adapter matched, and the authenticated account. The request
 * wrapper in server/main.ts opens the record; the adapters and the auth middleware fill it in through
 * `noteRoute` / `noteAccount` from wherever they run inside that request (AsyncLocalStorage), so no
 * adapter has to thread it through its own types. Write jobs run in the context of the request that
 * queued them (db.write binds them), so an event recorded by a job carries the request id too.
 */
export interface RequestRecord {
  id: string;
  /** The matched route template (`/withdraw/pix`, `/api/webhooks/{magic_id}`), never the raw URL. */
  route: string | null;
  accountId: string | null;
}

const storage = new AsyncLocalStorage<RequestRecord>();

export function runInRequest<T>(record: RequestRecord, fn: () => T): T {
  return storage.run(record, fn);
}

export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | null {
  return storage.getStore()?.id ?? null;
}

/** Called by an adapter once it knows which route serves the request. */
export function noteRoute(template: string): void {
  const r = storage.getStore();
  if (r) r.route = template;
}

/** Called by the auth middleware once the caller's account is known. */
export function noteAccount(accountId: string): void {
  const r = storage.getStore();
  if (r) r.accountId = accountId;
}

const MAX_REQUEST_ID = 128;

/** The caller's `x-request-id` when it is 1–128 visible ASCII characters; otherwise a fresh one. */
export function acceptRequestId(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v !== undefined && v.length > 0 && v.length <= MAX_REQUEST_ID && /^[\x21-\x7e]+$/.test(v)) return v;
  return randomUUID();
}
