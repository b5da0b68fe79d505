import type { PixKeyType } from '../../../contract/pix/keys';
import type { PixPaymentOrder } from '../../../contract/rails';

export type { PixPaymentOrder };

/** What the key directory (DICT) says of a key: its holder and the institution the key points to. */
export interface PixKeyEntry {
  /** The key as the directory stores it (normalised). */
  key: string;
  keyType: PixKeyType;
  holder: {
    name: string;
    /** CPF (a person) or CNPJ (a company), normalised and unmasked: mask it before showing it. */
    document: string;
  };
  bank: { name: string; ispb: string };
}

// Why a batch failed (KEY_NOT_FOUND, REJECTED): a contract enum, since the dashboard names it too.
import type { FailureCode } from '../../../contract/enums';

export type PixPaymentOutcome =
  | {
    status: 'PAID';
    /** 32-character SPI EndToEndId. */
    endToEndId: string;
    receiverName: string;
    receiverBank: string;
    receiverBankIspb: string;
  }
  | { status: 'ERROR'; code: FailureCode; reason: string }
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
  /** The return's `D…` end-to-end id when it was reserved at the request (an API Pix devolução's rtrId): the rail pays under it. */
  endToEnd?: string | null;
}

export type RefundOutcome =
  /** `endToEndId`: a PIX return's 32-character `D…` id; null for CARD and INVOICE. */
  | { status: 'PAID'; endToEndId: string | null }
  | { status: 'ERROR'; reason: string }
  | { status: 'PENDING'; retryAt: Date };

/**
 * A way to send Pix payments out (and to return charges' money). The sandbox implements it; a real PSP
 * adapter implements the same calls. `pay`, `lookup` and `refund` run outside any database write (they
 * are network); `pay` must be safe to call again for the same batch, and reports the receiver as the
 * directory knows it, as a real Pix receipt does.
 */
export interface PixRail {
  readonly name: string;
  /** When a batch requested at `requestedAt` should first be sent. */
  firstAttemptAt(requestedAt: Date): Date;
  pay(order: PixPaymentOrder, now: Date): Promise<PixPaymentOutcome>;
  /** The directory's entry of a normalised key; null when no such key is registered. */
  lookup(keyType: PixKeyType, key: string): Promise<PixKeyEntry | null>;
  /** Returns a charge's money to its payer; network like `pay`, and safe to call again for one refund. */
  refund(order: RefundOrder, now: Date): Promise<RefundOutcome>;
}
