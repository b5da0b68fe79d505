import type { Stores } from '../../db';
import type { AuditAction } from '../../contract/enums';
import type { Services } from '../services';
import { decodeCursor, encodeCursor } from './cursor';
import { newId } from './ids';
import { ID_PREFIX } from '../../contract/ids';

/**
 * The account's audit trail: who got at a secret or a new credential, who signed in,
 * changed their password or signed out everywhere; when, and from which client address. Rows are only
 * ever added. A refused attempt (wrong password, limited) records nothing: it changed nothing, and the
 * sign-in limits already count it.
 */

/** A signed-in person acting in the dashboard, and from where (docs/decisions.md "Client addresses"). */
export interface DashboardActor {
  accountId: string;
  userId: string;
  /** The session the person acts through: "every other session" spares it. */
  sessionId: string;
  email: string;
  clientAddress: string;
  userAgent: string | null;
}

/** A User-Agent is the client's to write: kept short enough to list, never trusted. */
export const MAX_USER_AGENT = 300;
export function userAgentOf(header: string | undefined): string | null {
  const ua = header?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return ua ? ua.slice(0, MAX_USER_AGENT) : null;
}

/** Adds one row; runs inside the write job of the change it records. */
export async function recordAudit(tx: Stores, who: Omit<DashboardActor, 'sessionId'>, action: AuditAction, at: Date, subject: string | null = null) {
  await tx.auditTrail.insert({
    id: newId('auditEntry'), accountId: who.accountId, userId: who.userId, actorEmail: who.email, action, subject,
    clientAddress: who.clientAddress, userAgent: who.userAgent, createdAt: at.toISOString(),
  });
}

/** Records a disclosure on its own (a read has no write job of its own): before the secret is answered, so none leaves unrecorded. */
export async function recordDisclosure(s: Services, who: DashboardActor, action: AuditAction, subject: string | null = null) {
  await s.db.write(async (tx) => { await recordAudit(tx, who, action, s.clock.now(), subject); });
}

export interface AuditEntryView {
  id: string;
  action: AuditAction;
  actor_email: string;
  subject: string | null;
  client_address: string;
  user_agent: string | null;
  created_at: string;
}

export const AUDIT_PAGE_DEFAULT = 50;

/** The account's trail, newest first, by keyset on (created_at, id) (audit_trail_account_idx). */
export async function listAuditTrail(s: Services, accountId: string, o: { cursor?: string; limit?: number } = {}) {
  const limit = o.limit ?? AUDIT_PAGE_DEFAULT;
  const after = o.cursor ? decodeCursor(o.cursor, ID_PREFIX.auditEntry) : null;
  const rows = await s.db.read.auditTrail.page(accountId, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((r): AuditEntryView => ({
      id: r.id, action: r.action, actor_email: r.actorEmail, subject: r.subject, client_address: r.clientAddress, user_agent: r.userAgent, created_at: r.createdAt,
    })),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}
