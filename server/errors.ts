import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';
import { databaseUnavailable } from '../db/unavailable';
import type { PixApiProblemName } from './domain/pix-api/problem';

/**
 * The one error path. Domain code throws `DomainError(code, detail)`; this file maps it to a tRPC code
 * and to the REST envelopes, so REST and tRPC callers always agree.
 */
export const DOMAIN_ERRORS = {
  VALIDATION: { status: 400, trpc: 'BAD_REQUEST' },
  MALFORMED_JSON: { status: 400, trpc: 'PARSE_ERROR' },
  UNAUTHORIZED: { status: 401, trpc: 'UNAUTHORIZED' },
  FORBIDDEN: { status: 403, trpc: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, trpc: 'NOT_FOUND' },
  METHOD_NOT_ALLOWED: { status: 405, trpc: 'METHOD_NOT_SUPPORTED' },
  CONFLICT: { status: 409, trpc: 'CONFLICT' },
  DUPLICATE_EXTERNAL_REF: { status: 409, trpc: 'CONFLICT' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, trpc: 'CONFLICT' },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE' },
  UNPROCESSABLE: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  INSUFFICIENT_FUNDS: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  INVALID_STATE: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  RATE_LIMITED: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  RAIL_UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
  DATABASE_UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
  // MAX_CONNECTIONS reached: answered at the socket (server/http/connections.ts), before any request
  TOO_MANY_CONNECTIONS: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
  INTERNAL: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type DomainErrorCode = keyof typeof DOMAIN_ERRORS;

import { zodIssues, type FieldIssue } from './zod-issues';

export { zodIssues, type FieldIssue };

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    readonly detail: string,
    readonly extra: {
      issues?: FieldIssue[];
      retryAfterSeconds?: number;
      /** A path-specific REST body the contract fixes (e.g. WITHDRAW_FAIL); `timestamp` is added. */
      restBody?: Record<string, unknown>;
      /** On the /v2 surface: the yaml's error type this failure is (`CobVOperacaoInvalida`…), when the route's default is not it. */
      problem?: PixApiProblemName;
    } = {},
  ) {
    super(detail);
    this.name = 'DomainError';
  }
  get status(): number { return DOMAIN_ERRORS[this.code].status; }
}

/** A 400 built from field problems found by domain rules (not by zod). */
export function validationError(issues: FieldIssue[]): DomainError {
  return new DomainError('VALIDATION', issues.map(formatIssue).join('; '), { issues });
}

export function formatIssue(i: FieldIssue): string {
  return i.path ? `${i.path}: ${i.message}` : i.message;
}

/** Turns anything thrown into the DomainError that describes it to a caller. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  // contention that outlasted the retries, or a database that is gone for now: the caller retries, never a 500
  const wait = databaseUnavailable(err);
  if (wait !== null) return new DomainError('DATABASE_UNAVAILABLE', 'the database is busy or unavailable right now; retry later', { retryAfterSeconds: wait });
  if (err instanceof TRPCError) {
    if (err.cause instanceof DomainError) return err.cause;
    // an answer that fails its own output schema is our fault, whatever zod says about it: never a 4xx
    if (err.code === 'INTERNAL_SERVER_ERROR') return new DomainError('INTERNAL', 'internal error');
    if (err.cause instanceof ZodError) {
      const issues = zodIssues(err.cause);
      return new DomainError('VALIDATION', issues.map(formatIssue).join('; '), { issues });
    }
    switch (err.code) {
      case 'PARSE_ERROR': return new DomainError('MALFORMED_JSON', 'request body is not valid JSON');
      case 'BAD_REQUEST': return new DomainError('VALIDATION', err.message);
      case 'UNAUTHORIZED': return new DomainError('UNAUTHORIZED', err.message);
      case 'NOT_FOUND': return new DomainError('NOT_FOUND', err.message === 'Not found' ? 'no such path' : err.message);
      case 'METHOD_NOT_SUPPORTED': return new DomainError('METHOD_NOT_ALLOWED', err.message);
      case 'PAYLOAD_TOO_LARGE': return new DomainError('PAYLOAD_TOO_LARGE', 'request body is larger than 64 KiB');
      case 'UNSUPPORTED_MEDIA_TYPE': return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'send Content-Type: application/json');
      case 'TOO_MANY_REQUESTS': return new DomainError('RATE_LIMITED', err.message);
      case 'CONFLICT': return new DomainError('CONFLICT', err.message);
      case 'FORBIDDEN': return new DomainError('FORBIDDEN', err.message);
      default: break;
    }
  }
  if (err instanceof ZodError) {
    const issues = zodIssues(err);
    return new DomainError('VALIDATION', issues.map(formatIssue).join('; '), { issues });
  }
  return new DomainError('INTERNAL', 'internal error');
}

export function toTRPCError(err: unknown): TRPCError {
  const d = toDomainError(err);
  // an unexpected error keeps the original as its cause for the server's log; callers see no internals
  if (d.code === 'INTERNAL') return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: d.detail, cause: err instanceof Error ? err : d });
  return new TRPCError({ code: DOMAIN_ERRORS[d.code].trpc, message: d.detail, cause: d });
}
