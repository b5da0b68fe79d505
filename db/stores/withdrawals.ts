import type { DrizzleDb } from '../handle';

/** (being filled: the withdrawals queries of server/domain move here) */
export class WithdrawalStore {
  constructor(private readonly db: DrizzleDb) {}
}
