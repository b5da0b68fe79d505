// The dashboard session's names on the wire: the server sets and checks them, the pages read them.

export const SESSION_COOKIE = 'pp_session';
export const CSRF_COOKIE = 'pp_csrf';
export const LOCALE_COOKIE = 'pp_locale';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * Set by server/main.ts on every page request (a client's own value is always replaced): the key under
 * which that request's log record waits, so the procedures a page calls note its account on the
 * request's log line, as they do for API requests. A random key per request, forgotten when it ends.
 */
export const PAGE_REQUEST_HEADER = 'x-pix-page-request';
