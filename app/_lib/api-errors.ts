import { TRPCClientError } from '@trpc/client';
import type { ZodType } from 'zod';
import type { AppRouter } from '@/server/routers';
import { zodIssues } from '@/server/zod-issues';

export type FieldErrors = Record<string, string>;

export function isApiError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError;
}

/** The tRPC error code of a failed call (UNAUTHORIZED, NOT_FOUND…), if it came from the API. */
export function apiErrorCode(err: unknown): string | null {
  return isApiError(err) ? (err.data?.code ?? null) : null;
}

/**
 * Splits an API error into field messages (from `data.issues`, keyed by dotted path) and one
 * message for the form as a whole.
 */
export function describeApiError(err: unknown): { message: string; fields: FieldErrors } {
  if (!isApiError(err)) return { message: err instanceof Error ? err.message : 'Something went wrong', fields: {} };
  const fields: FieldErrors = {};
  for (const issue of err.data?.issues ?? []) {
    if (issue.path && !fields[issue.path]) fields[issue.path] = issue.message;
  }
  const retry = err.data?.retryAfterSeconds;
  let message = err.message || 'The request failed';
  if (err.data?.code === 'TOO_MANY_REQUESTS' && retry && !/try again/.test(message)) message += ` (try again in ${retry} s)`;
  if (!err.data) message = 'Could not reach the server; check the connection and try again';
  return { message: Object.keys(fields).length ? 'Some fields need attention' : message, fields };
}

/**
 * Validates form input with the API's own zod schema. On failure: messages keyed by dotted path,
 * and nothing is sent.
 */
export function validate<S extends ZodType>(schema: S, input: unknown):
  { ok: true; data: import('zod').output<S> } | { ok: false; fields: FieldErrors } {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, data: r.data };
  const fields: FieldErrors = {};
  for (const issue of zodIssues(r.error)) fields[issue.path] ??= issue.message;
  return { ok: false, fields };
}
