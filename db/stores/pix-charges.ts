// The API Pix's charges (cob, cobv), their revisions, locations and lotes of cobv.
import type { DrizzleDb } from '../handle';

/** Charges of the API Pix with their revisions, payload locations and lotecobv (db/schema/pix-charges.ts). */
export class PixChargeStore {
  constructor(private readonly db: DrizzleDb) {}
}
