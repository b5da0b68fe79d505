import { and, desc, eq, lt, or } from 'drizzle-orm';
import type { AuditAction } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { auditTrail } from '../schema';

/** One row of an account's audit trail. */
export interface AuditRow {
  id: string;
  accountId: string;
  userId: string | null;
  actorEmail: string;
  action: AuditAction;
  subject: string | null;
  clientAddress: string;
  userAgent: string | null;
  createdAt: string;
}

/** The account's audit trail: rows are only ever added. */
export class AuditTrailStore {
  constructor(private readonly db: DrizzleDb) {}

  async insert(row: AuditRow): Promise<void> {
    await this.db.insert(auditTrail).values(row);
  }

  /**
   * Up to `limit` rows of the account's trail, newest first by (created_at, id), older than `before`
   * when given (the keyset of audit_trail_account_idx).
   */
  async page(accountId: string, before: { createdAt: string; id: string } | null, limit: number): Promise<AuditRow[]> {
    return this.db.select().from(auditTrail)
      .where(and(eq(auditTrail.accountId, accountId), before
        ? or(lt(auditTrail.createdAt, before.createdAt), and(eq(auditTrail.createdAt, before.createdAt), lt(auditTrail.id, before.id)))
        : undefined))
      .orderBy(desc(auditTrail.createdAt), desc(auditTrail.id)).limit(limit);
  }
}
