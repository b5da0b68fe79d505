import type { DrizzleDb } from '../handle';

/** (being filled: the transactions queries of server/domain move here) */
export class TransactionStore {
  constructor(private readonly db: DrizzleDb) {}
}
