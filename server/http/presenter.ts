import { DOMAIN_ERRORS, formatIssue, toDomainError, type DomainError } from '../errors';
import { PIX_API_FALLBACK, problemBody, type PixApiRoute } from '../domain/pix-api/problem';
import { log } from '../log';

/**
 * The one presenter: every answer of the REST edge, and the error data of tRPC, is shaped here, so
 * REST and tRPC cannot disagree. Domain code never builds a wire envelope.
 */

/**
 * Which error envelope a REST procedure answers in (docs/decisions.md "Errors"); declared per procedure.
 * `pix-api` is the /v2 surface: the Banco Central's RFC 7807 problems (server/domain/pix-api/problem.ts).
 */
export type Envelope = 'payments' | 'webhooks' | 'pix-api';

/** What the /v2 branch needs besides the error: the route's problem types, the request id, the input sent. */
export interface ErrorContext {
  pixApi?: PixApiRoute;
  requestId?: string;
  input?: unknown;
}

export interface RestAnswer {
  status: number;
  headers: Record<string, string>;
  /** Already serialised JSON; undefined sends no body. */
  body: string | undefined;
}

const REASON: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error',
};

/** The REST error bodies of docs/decisions.md "Errors": one shape for the payments paths, one for the webhook API. */
export function restErrorBody(err: DomainError, envelope: Envelope, now: Date, ctx: ErrorContext = {}): Record<string, unknown> {
  if (envelope === 'pix-api') {
    return { ...problemBody(err, ctx.pixApi ?? PIX_API_FALLBACK, { correlationId: ctx.requestId, input: ctx.input }) };
  }
  const status = err.status;
  const timestamp = now.toISOString();
  const issues = err.extra.issues;
  // a body the contract fixes for one operation (WITHDRAW_FAIL), set by that operation's procedure
  if (err.extra.restBody) return { ...err.extra.restBody, timestamp };
  if (envelope === 'webhooks') {
    return status === 400
      ? { code: status, message: err.detail, errors: (issues ?? [{ path: '', message: err.detail }]).map((i) => ({ path: i.path, message: i.message })), timestamp }
      : { code: status, message: err.detail, timestamp };
  }
  if (status === 400) {
    const list = issues ?? [{ path: '', message: err.detail }];
    return { statusCode: status, error: REASON[status], message: list.map(formatIssue), issues: list, timestamp };
  }
  return { statusCode: status, error: REASON[status] ?? 'Error', message: err.detail, timestamp };
}

/** Headers every error answer carries, on both transports. */
export function errorHeaders(err: DomainError): Record<string, string> {
  return err.extra.retryAfterSeconds ? { 'retry-after': String(err.extra.retryAfterSeconds) } : {};
}

/** A failure of a REST call, in the procedure's envelope. */
export function presentRestError(thrown: unknown, envelope: Envelope, now: Date, ctx: ErrorContext = {}): RestAnswer {
  const err = toDomainError(thrown);
  if (err.code === 'INTERNAL') log.error({ err: thrown }, 'internal error');
  const body = restErrorBody(err, envelope, now, ctx);
  return {
    // the /v2 problem may carry another status than the DomainError's (a refused state is the yaml's 400)
    status: envelope === 'pix-api' ? (body.status as number) : err.status,
    headers: {
      'content-type': envelope === 'pix-api' ? 'application/problem+json' : 'application/json',
      'cache-control': 'no-store',
      ...errorHeaders(err),
    },
    body: JSON.stringify(body),
  };
}

/** A success of a REST call: the procedure's output as JSON with its declared status. */
export function presentRestSuccess(output: unknown, status: number, headers: Headers): RestAnswer {
  const out: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  headers.forEach((v, k) => { out[k] = v; });
  return { status, headers: out, body: output === undefined ? undefined : JSON.stringify(output) };
}

/** The `data` of a tRPC error: the same status, code and issues REST would answer. */
export function presentTrpcErrorData(thrown: unknown, path: string | undefined) {
  const d = toDomainError(thrown);
  return {
    message: d.detail,
    data: {
      code: DOMAIN_ERRORS[d.code].trpc,
      httpStatus: d.status,
      path,
      domainCode: d.code,
      issues: d.extra.issues ?? null,
      retryAfterSeconds: d.extra.retryAfterSeconds ?? null,
    },
  };
}
