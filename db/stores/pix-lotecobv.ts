// The API Pix's lotes of cobv (lotecobv): the batch and what became of each of its charges.
import { and, asc, count, eq, gte, inArray, lte } from 'drizzle-orm';
import type { CobvBatchItemStatus } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { first, lockNames } from '../query';
import { pixCobvBatches, pixCobvBatchItems } from '../schema';
import { chargeLockNames } from './pix-charges';

/** A lote (pix_cobv_batches): the caller's id, per account. */
export interface PixCobvBatchRow { accountId: string; id: number; descricao: string; createdAt: string; updatedAt: string }

/** One charge of a lote (pix_cobv_batch_items); `problema` the JSON of the refusal when NEGADA. */
export interface PixCobvBatchItemRow { accountId: string; batchId: number; txid: string; status: CobvBatchItemStatus; problema: string | null; createdAt: string }

export class PixLoteCobvStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: the lote's lock (two PUTs of one id: the second sees the first's row) and the
   * locks of every charge it names, with their locations, in one statement and one global order, so
   * two lotes naming the same txids in different orders cannot deadlock.
   */
  async lockLote(accountId: string, id: number, charges: { txid: string; locIds: number[] }[]): Promise<void> {
    await lockNames(this.db, [`pix-lotecobv\n${accountId}\n${id}`, ...charges.flatMap((c) => chargeLockNames(accountId, c.txid, c.locIds))]);
  }

  async lote(accountId: string, id: number): Promise<PixCobvBatchRow | undefined> {
    const row = await first(this.db.select().from(pixCobvBatches).where(and(eq(pixCobvBatches.accountId, accountId), eq(pixCobvBatches.id, id))));
    return row ? { ...row, id: Number(row.id) } : undefined;
  }

  async insertLote(row: PixCobvBatchRow): Promise<void> {
    await this.db.insert(pixCobvBatches).values(row);
  }

  async updateLote(accountId: string, id: number, set: Partial<Pick<PixCobvBatchRow, 'descricao' | 'updatedAt'>>): Promise<void> {
    await this.db.update(pixCobvBatches).set(set).where(and(eq(pixCobvBatches.accountId, accountId), eq(pixCobvBatches.id, id)));
  }

  async insertItems(rows: PixCobvBatchItemRow[]): Promise<void> {
    if (rows.length) await this.db.insert(pixCobvBatchItems).values(rows);
  }

  /** What the last request about one charge of the lote came to. */
  async updateItem(accountId: string, batchId: number, txid: string, set: Pick<PixCobvBatchItemRow, 'status' | 'problema'>): Promise<void> {
    await this.db.update(pixCobvBatchItems).set(set)
      .where(and(eq(pixCobvBatchItems.accountId, accountId), eq(pixCobvBatchItems.batchId, batchId), eq(pixCobvBatchItems.txid, txid)));
  }

  /** The charges of these lotes, by txid within each. */
  async items(accountId: string, batchIds: number[]): Promise<PixCobvBatchItemRow[]> {
    if (batchIds.length === 0) return [];
    const rows = await this.db.select().from(pixCobvBatchItems)
      .where(and(eq(pixCobvBatchItems.accountId, accountId), inArray(pixCobvBatchItems.batchId, [...new Set(batchIds)])))
      .orderBy(asc(pixCobvBatchItems.batchId), asc(pixCobvBatchItems.txid));
    return rows.map((r) => ({ ...r, batchId: Number(r.batchId) }));
  }

  /** One page of the account's lotes created in [inicio, fim], oldest first, and how many match in all. */
  async listLotes(accountId: string, inicio: string, fim: string, page: { offset: number; limit: number }): Promise<{ rows: PixCobvBatchRow[]; total: number }> {
    const cond = and(eq(pixCobvBatches.accountId, accountId), gte(pixCobvBatches.createdAt, inicio), lte(pixCobvBatches.createdAt, fim));
    const [{ n }] = await this.db.select({ n: count() }).from(pixCobvBatches).where(cond);
    const rows = await this.db.select().from(pixCobvBatches).where(cond).orderBy(asc(pixCobvBatches.createdAt), asc(pixCobvBatches.id)).limit(page.limit).offset(page.offset);
    return { rows: rows.map((r) => ({ ...r, id: Number(r.id) })), total: Number(n) };
  }
}
