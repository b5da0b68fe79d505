import type { DrizzleDb } from '../handle';

/** (being filled: the webhooks queries of server/domain move here) */
export class WebhookStore {
  constructor(private readonly db: DrizzleDb) {}
}
