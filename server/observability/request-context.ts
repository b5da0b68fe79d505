import type { IncomingMessage, ServerResponse } from 'node:http';
import { PAGE_REQUEST_HEADER } from '../../contract/session';
import { randomUUID } from 'node:crypto';

/**
 * What the request log line needs to know about a request that only the inner layers learn: the
 * route template the REST or tRPC adapter matched, and the authenticated account. The request
 * wrapper in server/observability/http.ts opens the record on the node request; the adapters find it
 * there (`requestRecordOf`) and hand it on in the procedure's context, where the auth middleware notes
 * the account. It is passed explicitly rather than through AsyncLocalStorage: on Node 20 any
 * AsyncLocalStorage turns on promise hooks for every promise of the process, measured at a quarter
 * of a GET's CPU (229 → 174 µs per GET /withdraw, 644 → 584 µs per POST /withdraw/pix without it).
 */
export interface RequestRecord {
  id: string;
  /** The matched route template (`/withdraw/pix`, `/api/webhooks/{magic_id}`), never the raw URL. */
  route: string | null;
  accountId: string | null;
}

const records = new WeakMap<IncomingMessage, RequestRecord>();

export function openRequest(req: IncomingMessage, record: RequestRecord): void {
  records.set(req, record);
}

/** The record the request wrapper opened for this node request (none outside it, e.g. in tests). */
export function requestRecordOf(req: IncomingMessage): RequestRecord | undefined {
  return records.get(req);
}

/** Called by an adapter once it knows which route serves the request. */
export function noteRoute(record: RequestRecord | null | undefined, template: string): void {
  if (record) record.route = template;
}

/** Called by the auth middleware once the caller's account is known. */
export function noteAccount(record: RequestRecord | null | undefined, accountId: string): void {
  if (record) record.accountId = accountId;
}

const pageRecords = new Map<string, RequestRecord>();

/**
 * Hands a page request's record to the procedures its pages call in process (server/pages-caller.ts):
 * stores it under a fresh random key, sets PAGE_REQUEST_HEADER to that key (replacing whatever the
 * client sent), and forgets it once the answer is done.
 */
export function lendToPages(req: IncomingMessage, res: ServerResponse, record: RequestRecord | undefined): void {
  if (!record) { delete req.headers[PAGE_REQUEST_HEADER]; return; }
  const key = randomUUID();
  req.headers[PAGE_REQUEST_HEADER] = key;
  pageRecords.set(key, record);
  res.on('close', () => { pageRecords.delete(key); });
}

/** The record of the page request whose PAGE_REQUEST_HEADER this is, if it is still being answered. */
export function pageRequestRecord(key: string | undefined): RequestRecord | undefined {
  return key ? pageRecords.get(key) : undefined;
}

const MAX_REQUEST_ID = 128;

/** The caller's `x-request-id` when it is 1–128 visible ASCII characters; otherwise a fresh one. */
export function acceptRequestId(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v !== undefined && v.length > 0 && v.length <= MAX_REQUEST_ID && /^[\x21-\x7e]+$/.test(v)) return v;
  return randomUUID();
}
