// What a payload location serves: the location a payer's bank presents (by its token) and the charge bound to it.
import { and, eq, sql } from 'drizzle-orm';
import type { PixChargeKind, PixChargeStatus } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first } from '../query';
import { pixCharges, pixLocations } from '../schema';

/** The charge a location shows, as stored (db/schema/pix-charges.ts; `body` in the agreed JSON). */
export interface PayloadChargeRow {
  txid: string;
  kind: PixChargeKind;
  status: PixChargeStatus;
  revisao: number;
  chave: string;
  amount: number;
  body: string;
  dueDate: string | null;
  createdAt: string;
}

/** A location by its token, and the charge bound to it (null: a location no charge uses now). */
export interface PayloadLocationRow {
  accountId: string;
  tipoCob: PixChargeKind;
  charge: PayloadChargeRow | null;
}

/** The read side of the payload locations: open to anyone holding a token, so one indexed lookup and nothing else. */
export class PixPayloadStore {
  constructor(private readonly db: DrizzleDb) {}

  async byToken(token: string): Promise<PayloadLocationRow | undefined> {
    const row = await first(locationByToken(this.db).execute({ token }));
    if (!row) return undefined;
    const { accountId, tipoCob, txid, ...rest } = row;
    return { accountId, tipoCob, charge: txid === null ? null : { txid, ...rest } as PayloadChargeRow };
  }
}

// every QR code read by a payer's bank asks this: prepared once per connection. The charge is the one whose
// loc_id is this location (a charge unlinked from it, or another account's, never shows through it).
const locationByToken = perConnection((d) => d.select({
  accountId: pixLocations.accountId,
  tipoCob: pixLocations.tipoCob,
  txid: pixCharges.txid,
  kind: pixCharges.kind,
  status: pixCharges.status,
  revisao: pixCharges.revisao,
  chave: pixCharges.chave,
  amount: pixCharges.amount,
  body: pixCharges.body,
  dueDate: pixCharges.dueDate,
  createdAt: pixCharges.createdAt,
}).from(pixLocations)
  .leftJoin(pixCharges, and(eq(pixCharges.locId, pixLocations.id), eq(pixCharges.accountId, pixLocations.accountId)))
  .where(eq(pixLocations.token, sql.placeholder('token')))
  .limit(1)
  .prepare());
