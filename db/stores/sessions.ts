import type { DrizzleDb } from '../handle';

/** (being filled: the sessions queries of server/domain move here) */
export class SessionStore {
  constructor(private readonly db: DrizzleDb) {}
}
