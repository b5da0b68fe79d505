import type { DrizzleDb } from '../handle';

/** (being filled: the reports queries of server/domain move here) */
export class ReportStore {
  constructor(private readonly db: DrizzleDb) {}
}
