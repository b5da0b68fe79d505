// The Pix received on the account's keys and their devoluções (GET /v2/pix), and the payment of an API
// Pix charge that makes one (the charge's row lock and its move to CONCLUIDA).
import { and, asc, count, eq, exists, gte, inArray, isNotNull, isNull, lte, notExists, type SQL } from 'drizzle-orm';
import type { DevolucaoNatureza, PixChargeKind, PixChargeStatus, RefundStatus } from '../../contract/enums';
import type { DrizzleDb } from '../handle';
import { first, lockRows, touched } from '../query';
import { pixCharges, pixDevolucoes, pixReceived, refunds, transactions } from '../schema';

/** What paying a charge looks at. */
export interface PayableCharge {
  id: string; kind: PixChargeKind; status: PixChargeStatus; txid: string; chave: string; amount: number;
  /** The charge's JSON (calendario, devedor, valor…: db/schema/pix-charges.ts). */
  body: string;
  expiresAt: string | null;
}

export interface NewPixReceived {
  endToEndId: string; accountId: string; transactionId: string; chargeId: string | null; txid: string | null; chave: string;
  amount: number;
  /** JSON of the components in cents: {original, multa, juros, abatimento, desconto}. */
  componentes: string;
  /** JSON of the payer: {cpf|cnpj, nome}. */
  pagador: string;
  pagadorDocument: string | null; infoPagador: string | null; receivedAt: string;
}

export type PixReceivedRow = NewPixReceived;

/** A devolução with the refund that carries it. */
export interface DevolucaoRow {
  endToEndId: string; id: string; natureza: DevolucaoNatureza;
  descricao: string | null; createdAt: string;
  refundId: string; amount: number; status: RefundStatus; rtrId: string | null; failureReason: string | null; settledAt: string;
}

export interface NewDevolucao {
  endToEndId: string; id: string; accountId: string; refundId: string; natureza: 'ORIGINAL'; descricao: string | null; createdAt: string;
}

/** GET /v2/pix: the account's Pix received in [inicio, fim], filtered, one page. */
export interface PixReceivedQuery {
  accountId: string; inicio: string; fim: string;
  txid?: string; txIdPresente?: boolean; devolucaoPresente?: boolean; document?: string;
  offset: number; limit: number;
}

const devolucaoColumns = {
  endToEndId: pixDevolucoes.endToEndId, id: pixDevolucoes.id, natureza: pixDevolucoes.natureza, descricao: pixDevolucoes.descricao,
  createdAt: pixDevolucoes.createdAt, refundId: pixDevolucoes.refundId, amount: refunds.amount, status: refunds.status,
  rtrId: refunds.endToEnd, failureReason: refunds.failureReason, settledAt: refunds.updatedAt,
};

/** Pix received and their devoluções. */
export class PixReceivedStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: the account's charge with this txid, its row lock held until the job commits (on
   * PostgreSQL concurrent payers of one charge wait here, then see it CONCLUIDA); null when none.
   */
  async lockChargeForPayment(accountId: string, txid: string): Promise<PayableCharge | null> {
    const found = await first(this.db.select({ id: pixCharges.id }).from(pixCharges)
      .where(and(eq(pixCharges.accountId, accountId), eq(pixCharges.txid, txid))));
    if (!found) return null;
    await lockRows(this.db, pixCharges, pixCharges.id, [found.id]);
    return (await first(this.db.select({
      id: pixCharges.id, kind: pixCharges.kind, status: pixCharges.status, txid: pixCharges.txid, chave: pixCharges.chave,
      amount: pixCharges.amount, body: pixCharges.body, expiresAt: pixCharges.expiresAt,
    }).from(pixCharges).where(eq(pixCharges.id, found.id)))) ?? null;
  }

  /** ATIVA → CONCLUIDA with the transaction its payment created; false when it was no longer ATIVA. */
  async markChargePaid(chargeId: string, transactionId: string, updatedAt: string): Promise<boolean> {
    return (await touched(this.db.update(pixCharges).set({ status: 'CONCLUIDA', transactionId, updatedAt })
      .where(and(eq(pixCharges.id, chargeId), eq(pixCharges.status, 'ATIVA'))).returning({ id: pixCharges.id }))) === 1;
  }

  async insertReceived(r: NewPixReceived): Promise<void> {
    await this.db.insert(pixReceived).values(r);
  }

  /** The account's Pix received with this end-to-end id. */
  async received(accountId: string, endToEndId: string): Promise<PixReceivedRow | null> {
    return (await first(this.db.select().from(pixReceived)
      .where(and(eq(pixReceived.accountId, accountId), eq(pixReceived.endToEndId, endToEndId))))) ?? null;
  }

  /**
   * Inside a write job: the account's Pix received with its transaction's row lock held (the lock every
   * refund of that transaction takes first), so a devolução's id is looked up after any concurrent one
   * with the same id has committed; null when none.
   */
  async lockReceivedForDevolucao(accountId: string, endToEndId: string): Promise<PixReceivedRow | null> {
    const row = await this.received(accountId, endToEndId);
    if (!row) return null;
    await lockRows(this.db, transactions, transactions.id, [row.transactionId]);
    return row;
  }

  async insertDevolucao(d: NewDevolucao): Promise<void> {
    await this.db.insert(pixDevolucoes).values(d);
  }

  /** The devolução `id` of the account's Pix `endToEndId`. */
  async devolucao(accountId: string, endToEndId: string, id: string): Promise<DevolucaoRow | null> {
    return (await first(this.db.select(devolucaoColumns).from(pixDevolucoes).innerJoin(refunds, eq(refunds.id, pixDevolucoes.refundId))
      .where(and(eq(pixDevolucoes.accountId, accountId), eq(pixDevolucoes.endToEndId, endToEndId), eq(pixDevolucoes.id, id))))) ?? null;
  }

  /** The devolução a refund carries the money of, if it is one (which account and Pix it belongs to). */
  async devolucaoOfRefund(refundId: string): Promise<{ accountId: string; endToEndId: string; chave: string } | null> {
    return (await first(this.db.select({ accountId: pixDevolucoes.accountId, endToEndId: pixDevolucoes.endToEndId, chave: pixReceived.chave })
      .from(pixDevolucoes).innerJoin(pixReceived, eq(pixReceived.endToEndId, pixDevolucoes.endToEndId))
      .where(eq(pixDevolucoes.refundId, refundId)))) ?? null;
  }

  /** The devoluções of these Pix, oldest first. */
  async devolucoesOf(endToEndIds: string[]): Promise<DevolucaoRow[]> {
    if (endToEndIds.length === 0) return [];
    return this.db.select(devolucaoColumns).from(pixDevolucoes).innerJoin(refunds, eq(refunds.id, pixDevolucoes.refundId))
      .where(inArray(pixDevolucoes.endToEndId, endToEndIds))
      .orderBy(asc(pixDevolucoes.createdAt), asc(pixDevolucoes.id));
  }

  /** One page of GET /v2/pix (oldest first) and how many match in all. */
  async list(q: PixReceivedQuery): Promise<{ rows: PixReceivedRow[]; total: number }> {
    const hasDevolucao = this.db.select({ one: pixDevolucoes.id }).from(pixDevolucoes).where(eq(pixDevolucoes.endToEndId, pixReceived.endToEndId));
    const where: (SQL | undefined)[] = [
      eq(pixReceived.accountId, q.accountId), gte(pixReceived.receivedAt, q.inicio), lte(pixReceived.receivedAt, q.fim),
      q.txid !== undefined ? eq(pixReceived.txid, q.txid) : undefined,
      q.txIdPresente === true ? isNotNull(pixReceived.txid) : q.txIdPresente === false ? isNull(pixReceived.txid) : undefined,
      q.devolucaoPresente === true ? exists(hasDevolucao) : q.devolucaoPresente === false ? notExists(hasDevolucao) : undefined,
      q.document !== undefined ? eq(pixReceived.pagadorDocument, q.document) : undefined,
    ];
    const cond = and(...where);
    const rows = await this.db.select().from(pixReceived).where(cond)
      .orderBy(asc(pixReceived.receivedAt), asc(pixReceived.endToEndId)).limit(q.limit).offset(q.offset);
    const total = Number((await first(this.db.select({ n: count() }).from(pixReceived).where(cond)))?.n ?? 0);
    return { rows, total };
  }
}
