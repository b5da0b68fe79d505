import { TRPCClientError } from '@trpc/client';
import { useTranslations } from 'next-intl';
import type { ZodType } from 'zod';
import type { AppRouter } from '@/server/routers';
import { zodIssues } from '@/server/zod-issues';
import { fieldMessage } from './field-messages';

export type FieldErrors = Record<string, string>;

export function isApiError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError;
}

/** The tRPC error code of a failed call (UNAUTHORIZED, NOT_FOUND…), if it came from the API. */
export function apiErrorCode(err: unknown): string | null {
  return isApiError(err) ? (err.data?.code ?? null) : null;
}

export type DescribeApiError = (err: unknown) => { message: string; fields: FieldErrors };

/**
 * Splits an API error into field messages (from `data.issues`, keyed by dotted path) and one
 * message for the form as a whole, both in the person's language: the form-level message comes
 * from the error's domain code (the API's English detail is for REST callers), field messages
 * through the catalog of known wordings.
 */
export function useDescribeApiError(): DescribeApiError {
  const t = useTranslations('errors');
  const tv = useTranslations('validation');
  return (err) => {
    if (!isApiError(err)) return { message: t('generic'), fields: {} };
    if (!err.data) return { message: t('offline'), fields: {} };
    const fields: FieldErrors = {};
    for (const issue of err.data.issues ?? []) {
      if (issue.path && !fields[issue.path]) fields[issue.path] = fieldMessage(tv, issue.message);
    }
    if (Object.keys(fields).length) return { message: t('fieldsNeedAttention'), fields };
    const retry = err.data.retryAfterSeconds;
    if (err.data.code === 'TOO_MANY_REQUESTS' && retry) return { message: t('tryAgainIn', { seconds: retry }), fields };
    const code = err.data.domainCode;
    const key = `code.${code}` as const;
    return { message: code && t.has(key as 'code.VALIDATION') ? t(key as 'code.VALIDATION') : t('generic'), fields };
  };
}

/**
 * Validates form input with the API's own zod schema. On failure: messages keyed by dotted path
 * (in the person's language), and nothing is sent.
 */
export function useValidate() {
  const tv = useTranslations('validation');
  return <S extends ZodType>(schema: S, input: unknown):
    { ok: true; data: import('zod').output<S> } | { ok: false; fields: FieldErrors } => {
    const r = schema.safeParse(input);
    if (r.success) return { ok: true, data: r.data };
    const fields: FieldErrors = {};
    // the same field problems the API answers, then in the person's language
    for (const issue of zodIssues(r.error)) fields[issue.path] ??= issue.message === 'unknown field' ? tv('unknownField') : fieldMessage(tv, issue.message);
    return { ok: false, fields };
  };
}
