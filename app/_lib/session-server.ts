import { cookies, headers } from 'next/headers';
import { cache } from 'react';
import type { DashboardLocale } from '@/contract/enums';
import { PAGE_REQUEST_HEADER, SESSION_COOKIE } from '@/contract/session';
import { pagesCaller, type PagesCaller } from '@/server/pages-caller';

/**
 * The pages' server-side gate and data: the procedures themselves (session.me, the searches), called
 * in process with this request's session cookie, so the pages follow exactly the rules tRPC does.
 */

/** A caller acting as this request's signed-in person (or as nobody, without the cookie). */
export async function requestCaller(): Promise<PagesCaller> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  // the request's log record, so the procedures note the account on this page request's log line
  const record = (await headers()).get(PAGE_REQUEST_HEADER) ?? undefined;
  return pagesCaller({ ...(token ? { cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}` } : {}), [PAGE_REQUEST_HEADER]: record });
}

/**
 * The signed-in person of this request, or null (no cookie, unknown, revoked or expired session).
 * Once per request: the layout's gate and the language lookup share it.
 */
export const currentSession = cache(async (): Promise<{ email: string; accountId: string; locale: DashboardLocale } | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  try {
    const me = await (await requestCaller()).session.me();
    return { email: me.email, accountId: me.account_id, locale: me.locale };
  } catch (err) {
    if ((err as { code?: string }).code === 'UNAUTHORIZED') return null;
    throw err;
  }
});
