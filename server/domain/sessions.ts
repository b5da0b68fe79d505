import type { Stores } from '../../db';
import type { SessionOwner } from '../../db/stores/sessions';
import type { DashboardLocale } from '../../contract/enums';
import { DomainError, validationError } from '../errors';
import type { Services } from '../services';
import { addressKey } from '../rate-limit';
import { recordAudit, type DashboardActor } from './audit-trail';
import { newId } from './ids';
import { hashPassword, hashSecret, randomSecret, safeEqualHex, verifyPassword } from './secrets';

export const SESSION_TTL_MS = 12 * 3600 * 1000;

// A real scrypt hash to compare against when the email is unknown, so both paths cost the same.
let dummyHash: Promise<string> | null = null;

export interface SignedIn { sessionToken: string; csrfToken: string; expiresAt: Date; accountId: string; userId: string; email: string; locale: DashboardLocale }

/** Where a request comes from: its client address (docs/decisions.md "Client addresses") and User-Agent. */
export interface ClientOrigin { clientAddress: string; userAgent: string | null }

/**
 * Checks email + password and opens a session; null on any mismatch (the caller says only "wrong email
 * or password"). The session keeps where it was opened, and the sign-in goes in the audit trail.
 */
export async function signIn(s: Pick<Services, 'db'>, email: string, password: string, now: Date, origin: ClientOrigin): Promise<SignedIn | null> {
  const user = await s.db.read.sessions.userByEmail(email.trim().toLowerCase());
  dummyHash ??= hashPassword('not-a-real-password');
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
  if (!ok || !user) return null;
  const sessionToken = randomSecret('ses_');
  const csrfToken = randomSecret('csrf_', 24);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await s.db.write(async (tx) => {
    await tx.sessions.insertSession({
      id: newId('session'), userId: user.id, accountId: user.accountId, tokenHash: hashSecret(sessionToken), csrfToken,
      createdAt: now.toISOString(), expiresAt: expiresAt.toISOString(),
      clientAddress: origin.clientAddress, userAgent: origin.userAgent, lastSeenAt: now.toISOString(),
    });
    await recordAudit(tx, { accountId: user.accountId, userId: user.id, email: user.email, ...origin }, 'session.sign_in', now);
  });
  return { sessionToken, csrfToken, expiresAt, accountId: user.accountId, userId: user.id, email: user.email, locale: user.locale };
}

/**
 * Sign-in with the brakes on (docs/decisions.md "Sign-in and token limits"). The attempt counts against the
 * client address before the password is checked, so a burst cannot run more checks than the address's
 * window allows. Per email, each failure makes the next check wait longer (one check at a time), but an
 * attempt from an address with nothing against it is never refused for the email's sake: failures from
 * elsewhere cannot lock the right person out.
 */
export async function signInLimited(s: Services, email: string, password: string, origin: ClientOrigin): Promise<SignedIn> {
  const key = email.trim().toLowerCase();
  return passwordAttempt(s, key, origin.clientAddress, () => signIn(s, key, password, s.clock.now(), origin), new DomainError('UNAUTHORIZED', 'wrong email or password'));
}

/**
 * A signed-in person re-enters their password before something sensitive (revealing or rotating a
 * webhook secret). It is a sign-in attempt of that email from that address, under the same limits; a
 * miss answers 403, not 401, because the session itself is still good.
 */
export async function confirmPassword(s: Services, userId: string, password: string, address: string): Promise<void> {
  const user = await s.db.read.sessions.passwordOf(userId);
  if (!user) throw new DomainError('UNAUTHORIZED', 'sign in first');
  await passwordAttempt(s, user.email, address, async () => ((await verifyPassword(password, user.passwordHash)) ? true : null),
    new DomainError('FORBIDDEN', 'wrong password'));
}

/** The one place password attempts are counted and slowed down: `check` answers null on a wrong password. */
async function passwordAttempt<T>(s: Services, email: string, clientAddress: string, check: () => Promise<T | null>, miss: DomainError): Promise<T> {
  // IPv6 clients count per /64, since one can pick any address in it (addressKey, server/rate-limit.ts)
  const address = addressKey(clientAddress);
  const limits = s.limits.signIn;
  const wait = await limits.begin(address, email);
  if (wait !== null) throw tooMany(wait);
  let result: T | null = null;
  try {
    result = await check();
  } finally {
    await limits.settle(address, email, result !== null);
  }
  if (result === null) throw miss;
  return result;
}

function tooMany(wait: number) {
  return new DomainError('RATE_LIMITED', `too many failed sign-ins; try again in ${wait} s`, { retryAfterSeconds: wait });
}

/** The person's language for the dashboard, kept on their user so every device and session shows it. */
export async function setUserLocale(s: Pick<Services, 'db'>, userId: string, locale: DashboardLocale) {
  await s.db.write(async (tx) => {
    await tx.sessions.setLocale(userId, locale);
  });
}

export async function signOut(s: Pick<Services, 'db'>, sessionToken: string, now: Date) {
  await s.db.write(async (tx) => {
    await tx.sessions.revokeByTokenHash(hashSecret(sessionToken), now.toISOString());
  });
}

export interface SessionAuth { sessionId: string; accountId: string; userId: string; email: string; csrfToken: string; locale: DashboardLocale; lastSeenAt: string | null }

export async function sessionFor(s: Pick<Services, 'db'>, sessionToken: string, now: Date): Promise<SessionAuth | null> {
  const reads = s.db.read;
  if (!sessionToken.startsWith('ses_') || sessionToken.length > 200) return null;
  const hash = hashSecret(sessionToken);
  const row = await reads.sessions.liveSession(hash, now.toISOString());
  if (!row || !safeEqualHex(hash, row.tokenHash)) return null;
  return { sessionId: row.sessionId, accountId: row.accountId, userId: row.userId, email: row.email, csrfToken: row.csrfToken, locale: row.locale, lastSeenAt: row.lastSeenAt };
}

/** "Last seen" is this coarse: a session costs one write every few minutes, not one per request. */
export const LAST_SEEN_EVERY_MS = 5 * 60_000;

/** Notes that a session is in use, unless it was noted less than LAST_SEEN_EVERY_MS ago. */
export async function noteSessionSeen(s: Services, session: SessionAuth) {
  const now = s.clock.now();
  if (session.lastSeenAt && now.getTime() - Date.parse(session.lastSeenAt) < LAST_SEEN_EVERY_MS) return;
  await s.db.write(async (tx) => {
    await tx.sessions.noteSeen(session.sessionId, now.toISOString());
  });
}

/** Revokes every live session of `scope` (a person's or an account's) except the one the person acts through; inside a write job. */
export async function endOtherSessions(tx: Stores, scope: SessionOwner, keepSessionId: string, at: Date): Promise<number> {
  return tx.sessions.endOthers(scope, keepSessionId, at.toISOString());
}

/** Sessions of one account (rotating the client token ends them), for endOtherSessions. */
export const sessionsOfAccount = (accountId: string): SessionOwner => ({ accountId });

/**
 * "Sign out everywhere": after the password, every other session of this person ends (the one they act
 * through stays: they are at it). Recorded in the audit trail.
 */
export async function signOutEverywhere(s: Services, who: DashboardActor, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  const ended = await s.db.write(async (tx) => {
    const now = s.clock.now();
    const n = await endOtherSessions(tx, { userId: who.userId }, who.sessionId, now);
    await recordAudit(tx, who, 'session.sign_out_everywhere', now);
    return n;
  });
  return { ended_sessions: ended };
}

/**
 * A new password, after the current one (under the sign-in limits). Every other session of the person
 * ends with the old password; the new one must follow the rules of account:create (server/domain/sign-in-rules.ts,
 * checked by the procedure's schema) and differ from the current one.
 */
export async function changePassword(s: Services, who: DashboardActor, password: string, newPassword: string) {
  // refused before the password is checked: nothing counted, nothing changed
  if (newPassword === password) throw validationError([{ path: 'new_password', message: 'must differ from the current password' }]);
  await confirmPassword(s, who.userId, password, who.clientAddress);
  // scrypt before the write job: the writer never waits on slow work
  const passwordHash = await hashPassword(newPassword);
  const ended = await s.db.write(async (tx) => {
    const now = s.clock.now();
    await tx.sessions.setPasswordHash(who.userId, passwordHash);
    const n = await endOtherSessions(tx, { userId: who.userId }, who.sessionId, now);
    await recordAudit(tx, who, 'password.change', now);
    return n;
  });
  return { ended_sessions: ended };
}

export interface SessionView { current: boolean; client_address: string | null; user_agent: string | null; created_at: string; last_seen_at: string | null; expires_at: string }

/** At most this many sessions are listed (a person rarely has more than a few; sessions last 12 hours). */
export const MAX_LISTED_SESSIONS = 100;

/** The person's live sessions, newest first: where each was opened and when it was last seen. */
export async function listSessions(s: Services, who: Pick<DashboardActor, 'userId' | 'sessionId'>): Promise<{ data: SessionView[] }> {
  const now = s.clock.now().toISOString();
  const rows = await s.db.read.sessions.liveSessionsOf(who.userId, now, MAX_LISTED_SESSIONS);
  return {
    data: rows.map((r) => ({
      current: r.id === who.sessionId, client_address: r.clientAddress, user_agent: r.userAgent,
      created_at: r.createdAt, last_seen_at: r.lastSeenAt, expires_at: r.expiresAt,
    })),
  };
}

/** Mutations made with a session cookie must echo the CSRF token (double submit), so another site cannot forge them. */
export function checkCsrf(session: SessionAuth, presented: string | undefined) {
  if (!presented || !safeEqualHex(presented, session.csrfToken)) {
    throw new DomainError('FORBIDDEN', 'missing or invalid CSRF token');
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k && !(k in out)) {
      try { out[k] = decodeURIComponent(part.slice(i + 1).trim()); } catch { /* ignore a malformed cookie */ }
    }
  }
  return out;
}
