import type { DrizzleDb } from '../handle';

/** (being filled: the accounts queries of server/domain move here) */
export class AccountStore {
  constructor(private readonly db: DrizzleDb) {}
}
