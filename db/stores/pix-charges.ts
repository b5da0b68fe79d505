// The API Pix's charges (cob, cobv), their revisions, locations and lotes of cobv.
import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lte, type SQL } from 'drizzle-orm';
import type { PixChargeKind, PixChargeStatus } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { first, lockNames } from '../query';
import { pixChargeRevisions, pixCharges, pixLocations } from '../schema';

/** A charge as last revised (pix_charges). */
export interface PixChargeRow {
  id: string; accountId: string; txid: string; kind: PixChargeKind; status: PixChargeStatus; revisao: number; chave: string;
  locId: number | null; amount: number; body: string; document: string | null; dueDate: string | null; expiresAt: string | null;
  batchId: number; transactionId: string | null; createdAt: string; updatedAt: string;
}

/** One revision of a charge as it stood; `body` also carries its `chave` and `locId` then (the charge's own columns). */
export interface PixChargeRevisionRow { chargeId: string; revisao: number; status: PixChargeStatus; amount: number; body: string; createdAt: string }

/** A payload location (pix_locations). */
export interface PixLocationRow { id: number; accountId: string; token: string; tipoCob: PixChargeKind; txid: string | null; createdAt: string }

/** The filters of GET /cob, GET /cobv: created in [inicio, fim], and the optional ones. */
export interface ChargeFilter {
  accountId: string; kind: PixChargeKind; inicio: string; fim: string;
  document?: string; locationPresente?: boolean; status?: PixChargeStatus; batchId?: number;
}

export interface LocationFilter { accountId: string; inicio: string; fim: string; txIdPresente?: boolean; tipoCob?: PixChargeKind }

export interface Page { offset: number; limit: number }

/** The names `lockCharge` locks: a lotecobv takes those of all its charges at once (db/stores/pix-lotecobv.ts). */
export function chargeLockNames(accountId: string, txid: string, locIds: number[] = []): string[] {
  return [`pix-charge\n${accountId}\n${txid}`, ...locIds.map((id) => `pix-loc\n${id}`)];
}

/** Charges of the API Pix with their revisions, payload locations and lotecobv (db/schema/pix-charges.ts). */
export class PixChargeStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: holds the locks that make a charge's writes one at a time until the job commits:
   * the account's txid (two PUTs of one txid: the second sees the first's row) and each location named
   * (two charges never bind one location). Taken in one statement, in one global order.
   */
  async lockCharge(accountId: string, txid: string, locIds: number[] = []): Promise<void> {
    await lockNames(this.db, chargeLockNames(accountId, txid, locIds));
  }

  /** Inside a write job: holds the lock of a location (unlinking it, or binding it) until the job commits. */
  async lockLocation(id: number): Promise<void> {
    await lockNames(this.db, [`pix-loc\n${id}`]);
  }

  async chargeByTxid(accountId: string, txid: string): Promise<PixChargeRow | undefined> {
    return first(this.db.select().from(pixCharges).where(and(eq(pixCharges.accountId, accountId), eq(pixCharges.txid, txid))));
  }

  async insertCharge(row: PixChargeRow): Promise<void> {
    await this.db.insert(pixCharges).values(row);
  }

  /** The charge's new state (a revision, a removal, a location unlinked). The database refuses it once the charge is CONCLUIDA. */
  async updateCharge(id: string, set: Partial<Pick<PixChargeRow, 'status' | 'revisao' | 'chave' | 'locId' | 'amount' | 'body' | 'document' | 'dueDate' | 'expiresAt' | 'updatedAt'>>): Promise<void> {
    await this.db.update(pixCharges).set(set).where(eq(pixCharges.id, id));
  }

  async insertRevision(row: PixChargeRevisionRow): Promise<void> {
    await this.db.insert(pixChargeRevisions).values(row);
  }

  async revision(chargeId: string, revisao: number): Promise<PixChargeRevisionRow | undefined> {
    return first(this.db.select().from(pixChargeRevisions).where(and(eq(pixChargeRevisions.chargeId, chargeId), eq(pixChargeRevisions.revisao, revisao))));
  }

  /** One page of the account's charges of a kind, oldest first, and how many match in all. */
  async listCharges(f: ChargeFilter, page: Page): Promise<{ rows: PixChargeRow[]; total: number }> {
    const where: SQL[] = [eq(pixCharges.accountId, f.accountId), eq(pixCharges.kind, f.kind), gte(pixCharges.createdAt, f.inicio), lte(pixCharges.createdAt, f.fim)];
    if (f.document !== undefined) where.push(eq(pixCharges.document, f.document));
    if (f.locationPresente !== undefined) where.push(f.locationPresente ? isNotNull(pixCharges.locId) : isNull(pixCharges.locId));
    if (f.status !== undefined) where.push(eq(pixCharges.status, f.status));
    if (f.batchId !== undefined) where.push(eq(pixCharges.batchId, f.batchId));
    const cond = and(...where);
    const [{ n }] = await this.db.select({ n: count() }).from(pixCharges).where(cond);
    const rows = await this.db.select().from(pixCharges).where(cond).orderBy(asc(pixCharges.createdAt), asc(pixCharges.id)).limit(page.limit).offset(page.offset);
    return { rows, total: Number(n) };
  }

  /** The new location's id. */
  async insertLocation(row: Omit<PixLocationRow, 'id'>): Promise<number> {
    const [{ id }] = await this.db.insert(pixLocations).values(row).returning({ id: pixLocations.id });
    return Number(id);
  }

  /** The account's location `id` (another account's is not found, as an unknown one). */
  async location(accountId: string, id: number): Promise<PixLocationRow | undefined> {
    const row = await first(this.db.select().from(pixLocations).where(and(eq(pixLocations.accountId, accountId), eq(pixLocations.id, id))));
    return row ? { ...row, id: Number(row.id) } : undefined;
  }

  /** Binds (a txid) or unbinds (null) a location. */
  async setLocationTxid(id: number, txid: string | null): Promise<void> {
    await this.db.update(pixLocations).set({ txid }).where(eq(pixLocations.id, id));
  }

  /** One page of the account's locations, oldest first, and how many match in all. */
  async listLocations(f: LocationFilter, page: Page): Promise<{ rows: PixLocationRow[]; total: number }> {
    const where: SQL[] = [eq(pixLocations.accountId, f.accountId), gte(pixLocations.createdAt, f.inicio), lte(pixLocations.createdAt, f.fim)];
    if (f.txIdPresente !== undefined) where.push(f.txIdPresente ? isNotNull(pixLocations.txid) : isNull(pixLocations.txid));
    if (f.tipoCob !== undefined) where.push(eq(pixLocations.tipoCob, f.tipoCob));
    const cond = and(...where);
    const [{ n }] = await this.db.select({ n: count() }).from(pixLocations).where(cond);
    const rows = await this.db.select().from(pixLocations).where(cond).orderBy(asc(pixLocations.createdAt), asc(pixLocations.id)).limit(page.limit).offset(page.offset);
    return { rows: rows.map((r) => ({ ...r, id: Number(r.id) })), total: Number(n) };
  }

  /** The locations with these ids (for a list of charges), by id. */
  async locationsById(accountId: string, ids: number[]): Promise<Map<number, PixLocationRow>> {
    const out = new Map<number, PixLocationRow>();
    if (ids.length === 0) return out;
    const rows = await this.db.select().from(pixLocations).where(and(eq(pixLocations.accountId, accountId), inArray(pixLocations.id, [...new Set(ids)])));
    for (const r of rows) out.set(Number(r.id), { ...r, id: Number(r.id) });
    return out;
  }
}
