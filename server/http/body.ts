import type { IncomingMessage } from 'node:http';
import { DomainError } from '../errors';

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_JSON_DEPTH = 32;

/** The client went away before sending the whole body: nothing to answer, nobody to answer to. */
export class ClientAbortError extends Error {
  constructor() { super('the client closed the connection before sending the whole body'); this.name = 'ClientAbortError'; }
}

/** Reads at most 64 KiB; a larger body is refused as soon as it crosses the limit. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      reject(new DomainError('PAYLOAD_TOO_LARGE', 'request body is larger than 64 KiB'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        reject(new DomainError('PAYLOAD_TOO_LARGE', 'request body is larger than 64 KiB'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => { if (!done) { done = true; resolve(Buffer.concat(chunks)); } });
    // a disconnect mid-body surfaces as 'aborted'/'error' (ECONNRESET) or a bare 'close'
    const aborted = () => { if (!done) { done = true; reject(new ClientAbortError()); } };
    req.on('aborted', aborted);
    req.on('close', () => { if (!req.complete) aborted(); });
    req.on('error', (e) => { if (!done) { done = true; reject(req.destroyed || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? new ClientAbortError() : e); } });
  });
}

function depth(v: unknown, d = 0): number {
  if (d > MAX_JSON_DEPTH) return d;
  if (v && typeof v === 'object') {
    let max = d + 1;
    for (const x of Object.values(v as object)) max = Math.max(max, depth(x, d + 1));
    return max;
  }
  return d;
}

export function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  const base = ct.split(';')[0].trim().toLowerCase();
  return base === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(base);
}

/** Parses a JSON object body, refusing malformed JSON, non-objects and nesting deeper than 32. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new DomainError('MALFORMED_JSON', 'request body is not valid JSON', { issues: [{ path: '', message: 'request body is not valid JSON' }] });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new DomainError('VALIDATION', 'request body must be a JSON object', { issues: [{ path: '', message: 'request body must be a JSON object' }] });
  }
  if (depth(value) > MAX_JSON_DEPTH) {
    throw new DomainError('VALIDATION', `request body is nested deeper than ${MAX_JSON_DEPTH} levels`, { issues: [{ path: '', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }] });
  }
  return value as Record<string, unknown>;
}
