import type { DrizzleDb } from '../handle';

/** (being filled: the deliveries queries of server/domain move here) */
export class DeliveryStore {
  constructor(private readonly db: DrizzleDb) {}
}
