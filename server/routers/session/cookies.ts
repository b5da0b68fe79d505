import type { Config } from '../../config';
import { CSRF_COOKIE, LOCALE_COOKIE, SESSION_COOKIE } from '../../../contract/session';

/**
 * Secure whenever the request came over https: judged from our own socket or from X-Forwarded-Proto
 * sent by a trusted proxy only (server/http/client-address.ts), never from a header any client can
 * send. COOKIE_SECURE=true marks it Secure on plain http too (a proxy that does not say). A plain-http
 * run on http://127.0.0.1 still gets a working cookie.
 */
export function cookiesAreSecure(config: Config, https: boolean): boolean {
  return https || config.cookieSecure === true;
}

function cookie(name: string, value: string, o: { maxAgeSeconds: number; httpOnly: boolean; secure: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `Max-Age=${o.maxAgeSeconds}`, 'SameSite=Lax'];
  if (o.httpOnly) parts.push('HttpOnly');
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * The session id is httpOnly (scripts never see it); the CSRF token is readable on purpose: the
 * pages echo it in x-csrf-token, which another site cannot do (double submit).
 */
export function sessionCookies(o: { sessionToken: string; csrfToken: string; maxAgeSeconds: number; secure: boolean }): string[] {
  return [
    cookie(SESSION_COOKIE, o.sessionToken, { maxAgeSeconds: o.maxAgeSeconds, httpOnly: true, secure: o.secure }),
    cookie(CSRF_COOKIE, o.csrfToken, { maxAgeSeconds: o.maxAgeSeconds, httpOnly: false, secure: o.secure }),
  ];
}

export function clearedSessionCookies(secure: boolean): string[] {
  return [
    cookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure }),
    cookie(CSRF_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure }),
  ];
}

/**
 * The language of the last person signed in on this browser, so the sign-in page (no session yet)
 * speaks it too; the setting itself lives on the user.
 */
export function localeCookie(locale: string, secure: boolean): string {
  return cookie(LOCALE_COOKIE, locale, { maxAgeSeconds: 365 * 86_400, httpOnly: true, secure });
}
