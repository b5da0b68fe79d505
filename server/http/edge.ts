import type { ServerResponse } from 'node:http';
import { DomainError } from '../errors';
import { restErrorBody } from './presenter';

/**
 * The edge of the process, before a request reaches the API or Next: odd request targets are refused
 * with a 4xx (never a 5xx, never a redirect somewhere else), and every answer carries the security
 * headers browsers act on.
 */

/**
 * Why the request target is unacceptable, or null. Only origin-form (`/path?query`) is served: the
 * asterisk form (`OPTIONS *`) asks about the server, not a resource; the absolute form
 * (`GET http://evil.example/balance`) names a host that is not ours to judge and could end up in a
 * redirect; `//host/…` is read by browsers as another host.
 */
export function requestTargetProblem(target: string | undefined): string | null {
  if (!target) return 'the request has no target';
  if (target === '*') return 'OPTIONS * is not supported; ask about a path';
  if (!target.startsWith('/')) return 'the request target must be a path (origin-form), not an absolute URL';
  if (target.startsWith('//')) return 'the request target must not start with //';
  const path = target.split('?')[0];
  // malformed percent-escapes or encoded slashes/dots let a path mean two things to two readers
  try {
    const decoded = decodeURIComponent(path);
    if (decoded.includes('\0')) return 'the request path holds a NUL character';
  } catch {
    return 'the request path is not valid percent-encoding';
  }
  return null;
}

/** Answers 400 in the payments envelope and closes the connection (we did not understand the request). */
export function refuseTarget(res: ServerResponse, reason: string, now: Date) {
  const err = new DomainError('VALIDATION', reason, { issues: [{ path: '', message: reason }] });
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('connection', 'close');
  res.end(JSON.stringify(restErrorBody(err, 'payments', now)));
}

/**
 * Pages: Next's App Router bootstraps with inline scripts (no nonce set up here), so scripts and styles
 * allow 'unsafe-inline' from this origin only; dev mode adds eval and the HMR socket. Nothing may frame
 * the dashboard (clickjacking a payout form), and nothing but this origin is contacted.
 */
export function pageContentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? ' ws: wss:' : ''}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** JSON answers are never a document: nothing to load, nothing to frame. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function setSecurityHeaders(res: ServerResponse, kind: 'page' | 'api', dev: boolean) {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('content-security-policy', kind === 'page' ? pageContentSecurityPolicy(dev) : API_POLICY);
}

