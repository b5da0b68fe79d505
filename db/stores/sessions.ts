import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';
import type { DashboardLocale } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { first, touched } from '../query';
import { dashboardSessions, dashboardUsers } from '../schema';

/** A person who signs in to the dashboard. */
export interface DashboardUserRow {
  id: string;
  accountId: string;
  email: string;
  /** scrypt$N$r$p$salt$hash */
  passwordHash: string;
  locale: DashboardLocale;
  createdAt: string;
}

/** A new dashboard session (the cookie's token is never stored, only its hash). */
export interface NewSessionRow {
  id: string;
  userId: string;
  accountId: string;
  tokenHash: string;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
  clientAddress: string;
  userAgent: string | null;
  lastSeenAt: string;
}

/** A live session as a request presents it, with its person. */
export interface LiveSessionRow {
  sessionId: string;
  lastSeenAt: string | null;
  accountId: string;
  userId: string;
  csrfToken: string;
  tokenHash: string;
  email: string;
  locale: DashboardLocale;
}

/** One line of a person's session list. */
export interface ListedSessionRow {
  id: string;
  clientAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
}

/** Whose sessions "every other session" means: one person's, or a whole account's. */
export type SessionOwner = { userId: string } | { accountId: string };

/** Dashboard users and their sessions. */
export class SessionStore {
  constructor(private readonly db: DrizzleDb) {}

  async userByEmail(email: string): Promise<DashboardUserRow | undefined> {
    return first(this.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, email)));
  }

  /** The signed-in dashboard user's email and locale, if the user belongs to the account. */
  dashboardUser(accountId: string, userId: string): Promise<{ email: string; locale: DashboardLocale } | undefined> {
    return first(this.db.select({ email: dashboardUsers.email, locale: dashboardUsers.locale }).from(dashboardUsers)
      .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.accountId, accountId))));
  }

  /** The email and password hash of a user, for a password check. */
  async passwordOf(userId: string): Promise<{ email: string; passwordHash: string } | undefined> {
    return first(this.db.select({ email: dashboardUsers.email, passwordHash: dashboardUsers.passwordHash })
      .from(dashboardUsers).where(eq(dashboardUsers.id, userId)));
  }

  /** Whether a dashboard user has this email already. */
  async emailTaken(email: string): Promise<boolean> {
    return !!(await first(this.db.select({ id: dashboardUsers.id }).from(dashboardUsers).where(eq(dashboardUsers.email, email))));
  }

  async insertUser(row: { id: string; accountId: string; email: string; passwordHash: string; createdAt: string }): Promise<void> {
    await this.db.insert(dashboardUsers).values(row);
  }

  async setLocale(userId: string, locale: DashboardLocale): Promise<void> {
    await this.db.update(dashboardUsers).set({ locale }).where(eq(dashboardUsers.id, userId));
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.db.update(dashboardUsers).set({ passwordHash }).where(eq(dashboardUsers.id, userId));
  }

  async insertSession(row: NewSessionRow): Promise<void> {
    await this.db.insert(dashboardSessions).values(row);
  }

  /** The unrevoked session with this token hash, unexpired at `now`, joined to its person. */
  async liveSession(tokenHash: string, now: string): Promise<LiveSessionRow | undefined> {
    return first(this.db.select({
      sessionId: dashboardSessions.id, lastSeenAt: dashboardSessions.lastSeenAt, accountId: dashboardSessions.accountId, userId: dashboardSessions.userId, csrfToken: dashboardSessions.csrfToken,
      tokenHash: dashboardSessions.tokenHash, email: dashboardUsers.email, locale: dashboardUsers.locale,
    }).from(dashboardSessions).innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId))
      .where(and(eq(dashboardSessions.tokenHash, tokenHash), isNull(dashboardSessions.revokedAt), gt(dashboardSessions.expiresAt, now))));
  }

  /** Revokes the session with this token hash (signing out). */
  async revokeByTokenHash(tokenHash: string, at: string): Promise<void> {
    await this.db.update(dashboardSessions).set({ revokedAt: at }).where(eq(dashboardSessions.tokenHash, tokenHash));
  }

  async noteSeen(sessionId: string, at: string): Promise<void> {
    await this.db.update(dashboardSessions).set({ lastSeenAt: at }).where(eq(dashboardSessions.id, sessionId));
  }

  /** Revokes every session of `owner` live at `at` except `keepSessionId`; how many it ended. */
  async endOthers(owner: SessionOwner, keepSessionId: string, at: string): Promise<number> {
    const scope = 'userId' in owner ? eq(dashboardSessions.userId, owner.userId) : eq(dashboardSessions.accountId, owner.accountId);
    return touched(this.db.update(dashboardSessions).set({ revokedAt: at })
      .where(and(scope, ne(dashboardSessions.id, keepSessionId), isNull(dashboardSessions.revokedAt), gt(dashboardSessions.expiresAt, at)))
      .returning({ id: dashboardSessions.id }));
  }

  /** A person's sessions live at `now`, newest first, at most `limit`. */
  async liveSessionsOf(userId: string, now: string, limit: number): Promise<ListedSessionRow[]> {
    return this.db.select({
      id: dashboardSessions.id, clientAddress: dashboardSessions.clientAddress, userAgent: dashboardSessions.userAgent,
      createdAt: dashboardSessions.createdAt, lastSeenAt: dashboardSessions.lastSeenAt, expiresAt: dashboardSessions.expiresAt,
    }).from(dashboardSessions)
      .where(and(eq(dashboardSessions.userId, userId), isNull(dashboardSessions.revokedAt), gt(dashboardSessions.expiresAt, now)))
      .orderBy(desc(dashboardSessions.createdAt), desc(dashboardSessions.id)).limit(limit);
  }
}
