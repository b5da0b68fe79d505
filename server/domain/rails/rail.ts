import type { PixKeyType } from '../pix/keys';

/**
 * What the settlement job hands a Pix rail: one batch of a withdrawal, with what a PSP needs to pay it.
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
  receiverName: string;
  receiverDocument: string;
}

export type PixPaymentOutcome =
  | {
    status: 'PAID';
    /** 32-character SPI EndToEndId. */
    endToEndId: string;
    receiverName: string;
    receiverBank: string;
    receiverBankIspb: string;
  }
  | { status: 'ERROR'; reason: string }
  /** The PSP has not decided yet: ask again at `retryAt`. */
  | { status: 'PENDING'; retryAt: Date };

/**
 * What the refund settlement job hands the rail: one refund of a charge, with what a PSP needs to
 * return the money to the payer. `refundId` is stable across retries (the PSP's idempotency key).
 */
export interface RefundOrder {
  refundId: string;
  transactionId: string;
  accountId: string;
  amount: number;
  method: 'PIX' | 'CARD' | 'INVOICE';
  /** The charge's own end-to-end id (PIX), which a Pix return refers to. */
  originalEndToEnd: string | null;
  customerEmail: string;
  customerDocument: string;
}

export type RefundOutcome =
  /** `endToEndId`: a PIX return's 32-character `D…` id; null for CARD and INVOICE. */
  | { status: 'PAID'; endToEndId: string | null }
  | { status: 'ERROR'; reason: string }
  | { status: 'PENDING'; retryAt: Date };

/**
 * A way to send Pix payments out (and to return charges' money). The sandbox implements it; a real PSP adapter implements the same
 * two calls. `pay` runs outside any database write (it is network), and must be safe to call again
 * for the same batch.
 */
export interface PixRail {
  readonly name: string;
  /** When a batch requested at `requestedAt` should first be sent. */
  firstAttemptAt(requestedAt: Date): Date;
  pay(order: PixPaymentOrder, now: Date): Promise<PixPaymentOutcome>;
  /** Returns a charge's money to its payer; network like `pay`, and safe to call again for one refund. */
  refund(order: RefundOrder, now: Date): Promise<RefundOutcome>;
}
