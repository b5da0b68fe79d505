// The dashboard session's names on the wire: the server sets and checks them, the pages read them.

export const SESSION_COOKIE = 'pp_session';
export const CSRF_COOKIE = 'pp_csrf';
export const LOCALE_COOKIE = 'pp_locale';
export const CSRF_HEADER = 'x-csrf-token';
