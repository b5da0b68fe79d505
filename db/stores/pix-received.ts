// The Pix received on the account's keys and their devoluções (GET /v2/pix).
import type { DrizzleDb } from '../handle';

/** Pix received and their devoluções. */
export class PixReceivedStore {
  constructor(private readonly db: DrizzleDb) {}
}
