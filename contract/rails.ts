import type { PixKeyType } from './enums';

/**
 * What the settlement job hands a Pix rail: one batch of a withdrawal, with what a PSP needs to pay it.
 * The withdrawals store reads it (db/stores/withdrawals.ts, duePaymentOrders) and the rail pays it
 * (server/domain/rails/rail.ts), so it is declared here, where both may import it.
 * `batchId` is stable across retries: a real adapter sends it as the PSP's idempotency key, so a
 * batch re-sent after a crash (between the PSP call and our write) is not paid twice.
 */
export interface PixPaymentOrder {
  batchId: string;
  withdrawalId: string;
  accountId: string;
  /** 0-based position of the batch in its withdrawal. */
  seq: number;
  amount: number;
  key: string;
  keyType: PixKeyType;
  /** What the merchant typed (`details`): a real PSP may check it; receipts never show it. */
  receiverName: string;
  receiverDocument: string;
}
