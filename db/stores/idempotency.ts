import type { DrizzleDb } from '../handle';

/** (being filled: the idempotency queries of server/domain move here) */
export class IdempotencyStore {
  constructor(private readonly db: DrizzleDb) {}
}
