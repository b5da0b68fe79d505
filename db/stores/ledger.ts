import type { DrizzleDb } from '../handle';

/** (being filled: the ledger queries of server/domain move here) */
export class LedgerStore {
  constructor(private readonly db: DrizzleDb) {}
}
