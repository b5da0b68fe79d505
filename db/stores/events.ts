import type { DrizzleDb } from '../handle';

/** (being filled: the events queries of server/domain move here) */
export class EventStore {
  constructor(private readonly db: DrizzleDb) {}
}
