// The API Pix webhooks per key (PUT /v2/webhook/{chave}).
import type { DrizzleDb } from '../handle';

/** Webhooks per Pix key. */
export class PixKeyWebhookStore {
  constructor(private readonly db: DrizzleDb) {}
}
