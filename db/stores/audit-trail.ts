import type { DrizzleDb } from '../handle';

/** (being filled: the auditTrail queries of server/domain move here) */
export class AuditTrailStore {
  constructor(private readonly db: DrizzleDb) {}
}
