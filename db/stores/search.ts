import type { DrizzleDb } from '../handle';

/** (being filled: the search queries of server/domain move here) */
export class SearchStore {
  constructor(private readonly db: DrizzleDb) {}
}
