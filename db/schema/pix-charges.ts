import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { COBV_BATCH_ITEM_STATUSES, DEVOLUCAO_NATUREZAS, PIX_CHARGE_KINDS, PIX_CHARGE_STATUSES } from '../../contract/enums';

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * The charge side of the Banco Central's API Pix (/v2): payload locations, charges (`cob`, `cobv`) with
 * their revisions, batches of `cobv`, the Pix received, their devoluções and the webhooks per key.
 * Money still moves only through the ledger: a charge paid becomes an APPROVED PIX transaction (its
 * credit), a devolução is a refund of that transaction (one set of triggers, one rail).
 */
export function pixChargeTables<D extends Dialect, C extends Columns>(
  k: Kit<D, C>,
  { accounts, transactions, refunds }: { accounts: { id: unknown }; transactions: { id: unknown }; refunds: { id: unknown } },
) {
  /**
   * A payload location (`/loc`): the URL a dynamic BR Code carries, `{host}/v2/{token}` (a cob) or
   * `{host}/v2/cobv/{token}` (a cobv). The token is random and is what the payer's bank presents; the
   * serial `id` is what the API names. Bound to at most one charge (`txid`) at a time.
   */
  const pixLocations = k.table('pix_locations', {
    id: k.serial('id'),
    accountId: k.text('account_id').references(() => accounts.id),
    /** The pixUrlAccessToken: 32 lower-case hex characters from a CSPRNG. */
    token: k.text('token'),
    tipoCob: k.enumText('tipo_cob', PIX_CHARGE_KINDS),
    txid: k.textOrNull('txid'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.uniqueIndex('pix_locations_token_uq').on(t.token),
    k.uniqueIndex('pix_locations_txid_uq').on(t.accountId, t.txid).where(sql`${t.txid} IS NOT NULL`),
    k.index('pix_locations_account_created_idx').on(t.accountId, t.createdAt, t.id),
    k.check('pix_locations_tipo_cob_ck', sql`${t.tipoCob} IN (${inList(PIX_CHARGE_KINDS)})`),
  ]);

  /**
   * A charge of the API Pix, as last revised. `body` is its JSON as the API answers it apart from what has
   * its own column (calendario, devedor, recebedor, valor, infoAdicionais, solicitacaoPagador); `amount`
   * is `valor.original` in cents. `expires_at`: a cob's criacao + expiracao; a cobv's end of the last day it
   * can be paid (São Paulo). `transaction_id`: the APPROVED transaction its payment created.
   */
  const pixCharges = k.table('pix_charges', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    txid: k.text('txid'),
    kind: k.enumText('kind', PIX_CHARGE_KINDS),
    status: k.enumText('status', PIX_CHARGE_STATUSES),
    revisao: k.int('revisao'),
    chave: k.text('chave'),
    locId: k.intOrNull('loc_id').references(() => pixLocations.id),
    amount: k.cents('amount'),
    body: k.text('body'),
    /** The devedor's CPF or CNPJ, for the cpf/cnpj filters of the lists. */
    document: k.textOrNull('document'),
    /** A cobv's dataDeVencimento (YYYY-MM-DD, as given: a calendar date, text on both engines). */
    dueDate: k.textOrNull('due_date'),
    expiresAt: k.instantOrNull('expires_at'),
    /** The lotecobv id the charge was created by; 0 for none (a caller's lote id is positive). */
    batchId: k.cents('batch_id').default(0),
    transactionId: k.textOrNull('transaction_id').references(() => transactions.id),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.uniqueIndex('pix_charges_txid_uq').on(t.accountId, t.txid),
    k.uniqueIndex('pix_charges_transaction_uq').on(t.transactionId).where(sql`${t.transactionId} IS NOT NULL`),
    k.index('pix_charges_account_kind_created_idx').on(t.accountId, t.kind, t.createdAt, t.id),
    k.index('pix_charges_account_kind_status_created_idx').on(t.accountId, t.kind, t.status, t.createdAt, t.id),
    k.index('pix_charges_account_document_idx').on(t.accountId, t.document, t.createdAt),
    k.index('pix_charges_batch_idx').on(t.accountId, t.batchId),
    k.check('pix_charges_kind_ck', sql`${t.kind} IN (${inList(PIX_CHARGE_KINDS)})`),
    k.check('pix_charges_status_ck', sql`${t.status} IN (${inList(PIX_CHARGE_STATUSES)})`),
    k.check('pix_charges_revisao_ck', sql`${t.revisao} >= 0`),
    k.check('pix_charges_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  ]);

  /** Every revision of a charge as it stood (`revisao` 0 is the creation): the history a PATCH keeps. */
  const pixChargeRevisions = k.table('pix_charge_revisions', {
    chargeId: k.text('charge_id').references(() => pixCharges.id),
    revisao: k.int('revisao'),
    status: k.enumText('status', PIX_CHARGE_STATUSES),
    amount: k.cents('amount'),
    body: k.text('body'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.primaryKey({ columns: [t.chargeId, t.revisao] }),
  ]);

  /** A `lotecobv`: the caller's id (int64, per account) and its description. */
  const pixCobvBatches = k.table('pix_cobv_batches', {
    accountId: k.text('account_id').references(() => accounts.id),
    id: k.cents('id'),
    descricao: k.text('descricao'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.primaryKey({ columns: [t.accountId, t.id] }),
    k.index('pix_cobv_batches_account_created_idx').on(t.accountId, t.createdAt),
  ]);

  /** One charge of a lote: what became of it, and the problem (JSON, the yaml's `problema`) if refused. */
  const pixCobvBatchItems = k.table('pix_cobv_batch_items', {
    accountId: k.text('account_id').references(() => accounts.id),
    batchId: k.cents('batch_id'),
    txid: k.text('txid'),
    status: k.enumText('status', COBV_BATCH_ITEM_STATUSES),
    problema: k.textOrNull('problema'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.primaryKey({ columns: [t.accountId, t.batchId, t.txid] }),
    k.check('pix_cobv_batch_items_status_ck', sql`${t.status} IN (${inList(COBV_BATCH_ITEM_STATUSES)})`),
  ]);

  /**
   * A Pix received on one of the account's keys (GET /v2/pix): the transaction its credit belongs to, the
   * charge it paid, and what the payer's bank reported: amount, componentesValor (JSON, cents), pagador
   * (JSON) and infoPagador.
   */
  const pixReceived = k.table('pix_received', {
    endToEndId: k.text('end_to_end_id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    transactionId: k.text('transaction_id').references(() => transactions.id),
    chargeId: k.textOrNull('charge_id').references(() => pixCharges.id),
    txid: k.textOrNull('txid'),
    chave: k.text('chave'),
    amount: k.cents('amount'),
    componentes: k.text('componentes'),
    pagador: k.text('pagador'),
    /** The payer's CPF or CNPJ, for the cpf/cnpj filters of GET /v2/pix. */
    pagadorDocument: k.textOrNull('pagador_document'),
    infoPagador: k.textOrNull('info_pagador'),
    receivedAt: k.instant('received_at'),
  }, (t) => [
    k.uniqueIndex('pix_received_transaction_uq').on(t.transactionId),
    k.index('pix_received_account_received_idx').on(t.accountId, t.receivedAt, t.endToEndId),
    k.index('pix_received_account_txid_idx').on(t.accountId, t.txid),
    k.index('pix_received_account_document_idx').on(t.accountId, t.pagadorDocument, t.receivedAt),
    k.check('pix_received_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  ]);

  /**
   * A devolução of a Pix received: the caller's id for it (unique per Pix) and the refund that carries its
   * money (refunds.status gives EM_PROCESSAMENTO / DEVOLVIDO / NAO_REALIZADO, refunds.end_to_end its rtrId).
   */
  const pixDevolucoes = k.table('pix_devolucoes', {
    endToEndId: k.text('end_to_end_id').references(() => pixReceived.endToEndId),
    id: k.text('id'),
    accountId: k.text('account_id').references(() => accounts.id),
    refundId: k.text('refund_id').references(() => refunds.id),
    natureza: k.enumText('natureza', DEVOLUCAO_NATUREZAS),
    descricao: k.textOrNull('descricao'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.primaryKey({ columns: [t.endToEndId, t.id] }),
    k.uniqueIndex('pix_devolucoes_refund_uq').on(t.refundId),
    k.check('pix_devolucoes_natureza_ck', sql`${t.natureza} IN (${inList(DEVOLUCAO_NATUREZAS)})`),
  ]);

  /** The API Pix webhook of a key (`PUT /v2/webhook/{chave}`): one URL per live key. */
  const pixKeyWebhooks = k.table('pix_key_webhooks', {
    chave: k.text('chave').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    url: k.text('url'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.index('pix_key_webhooks_account_idx').on(t.accountId, t.createdAt),
  ]);

  return { pixLocations, pixCharges, pixChargeRevisions, pixCobvBatches, pixCobvBatchItems, pixReceived, pixDevolucoes, pixKeyWebhooks };
}
