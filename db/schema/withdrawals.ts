import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { BATCH_STATUSES, PIX_KEY_TYPES, WITHDRAWAL_STATUSES } from '../../contract/enums';

/** Withdrawals and the batches the rail settles them in. */
export function withdrawalTables<D extends Dialect, C extends Columns>(k: Kit<D, C>, { accounts }: { accounts: { id: unknown } }) {
  const withdrawals = k.table('withdrawals', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    status: k.enumText('status', WITHDRAWAL_STATUSES),
    amount: k.cents('amount'),
    key: k.text('key'),
    keyType: k.enumText('key_type', PIX_KEY_TYPES),
    description: k.textOrNull('description'),
    detailsName: k.text('details_name'),
    detailsDocument: k.text('details_document'),
    postback: k.textOrNull('postback'),
    externalRef: k.textOrNull('external_ref'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
    /** The recipient's name folded for search (accents dropped, lower case); computed by the database, never written. */
    detailsNameSearch: k.folded('details_name_search', 'details_name'),
    /** The folded name's words as a JSON array, for the word search (name_words); computed by the database, never written. */
    detailsNameWords: k.words('details_name_words', 'details_name', 'details_name_search'),
  }, (t) => [
    // the dashboard's search: each an index walk of the account's rows in (created_at, id) order, or for a
    // name prefix an index range of the matches
    k.index('withdrawals_account_amount_created_idx').on(t.accountId, t.amount, t.createdAt, t.id),
    k.index('withdrawals_account_document_created_idx').on(t.accountId, t.detailsDocument, t.createdAt, t.id),
    k.index('withdrawals_account_key_created_idx').on(t.accountId, t.key, t.createdAt, t.id),
    k.uniqueIndex('withdrawals_external_ref_uq').on(t.accountId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
    k.index('withdrawals_account_created_idx').on(t.accountId, t.createdAt, t.id),
    k.index('withdrawals_account_status_created_idx').on(t.accountId, t.status, t.createdAt, t.id),
    k.check('withdrawals_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  ]);

  /** A withdrawal is split into batches of at most PIX_MAX_BATCH_CENTS, each settled on its own. */
  const withdrawalBatches = k.table('withdrawal_batches', {
    id: k.text('id').primaryKey(), // the batch `identifier`
    withdrawalId: k.text('withdrawal_id').references(() => withdrawals.id),
    accountId: k.text('account_id').references(() => accounts.id),
    seq: k.int('seq'),
    amount: k.cents('amount'),
    status: k.enumText('status', BATCH_STATUSES),
    /**
     * When the rail should settle it; the settlement job picks due PENDING rows. Claiming a batch moves it
     * forward by the lease (JOB_LEASE_MS), so other instances skip it while one asks the rail, and it falls
     * due again by itself if that instance dies.
     */
    dueAt: k.instant('due_at'),
    /** The instance (host/pid/random) that last claimed it for the rail: who holds the lease, who settled it. */
    claimedBy: k.textOrNull('claimed_by'),
    endToEnd: k.textOrNull('end_to_end'),
    receiverName: k.textOrNull('receiver_name'),
    receiverBank: k.textOrNull('receiver_bank'),
    receiverBankIspb: k.textOrNull('receiver_bank_ispb'),
    /** Why a failed batch failed: a code for the dashboard's words, and the API's English sentence. */
    failureCode: k.enumTextOrNull('failure_code', ['KEY_NOT_FOUND', 'REJECTED']),
    failureReason: k.textOrNull('failure_reason'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.index('withdrawal_batches_withdrawal_idx').on(t.withdrawalId, t.seq),
    k.index('withdrawal_batches_due_idx').on(t.status, t.dueAt),
    // a receipt found by its end-to-end id (search)
    k.index('withdrawal_batches_end_to_end_idx').on(t.endToEnd),
    k.check('withdrawal_batches_amount_bounds', sql`${t.amount} BETWEEN 1 AND 100000000000`),
  ]);

  return { withdrawals, withdrawalBatches };
}
