import type { DrizzleDb } from '../handle';

/** (being filled: the refunds queries of server/domain move here) */
export class RefundStore {
  constructor(private readonly db: DrizzleDb) {}
}
