import { newEndToEndId } from '../pix/end-to-end';
import { pickReceiverBank } from '../pix/participants';
import type { PixPaymentOrder, PixPaymentOutcome, PixRail, RefundOrder, RefundOutcome } from './rail';

/** Magic EMAIL keys of DECISIONS ("Withdrawals"): every batch fails / all but the first fail. */
export const SANDBOX_FAIL_KEY = 'fail@sandbox.test';
export const SANDBOX_PARTIAL_KEY = 'partial@sandbox.test';

/** A charge whose customer has this email gets its refunds refused by the sandbox (the receiver's side). */
export const SANDBOX_REFUND_FAIL_EMAIL = SANDBOX_FAIL_KEY;

/**
 * The sandbox rail: settles a batch `delayMs` after it was requested, paying it to a real bank of the
 * participants directory (the same key always lands at the same bank), unless a magic key says not to.
 */
export function sandboxRail(delayMs: number): PixRail {
  return {
    name: 'sandbox',
    firstAttemptAt: (requestedAt) => new Date(requestedAt.getTime() + delayMs),
    async pay(order: PixPaymentOrder, now: Date): Promise<PixPaymentOutcome> {
      if (order.keyType === 'EMAIL' && order.key === SANDBOX_FAIL_KEY) {
        return { status: 'ERROR', reason: 'sandbox: the receiver refused the payment (magic key fail@sandbox.test)' };
      }
      if (order.keyType === 'EMAIL' && order.key === SANDBOX_PARTIAL_KEY && order.seq > 0) {
        return { status: 'ERROR', reason: 'sandbox: only the first batch is paid (magic key partial@sandbox.test)' };
      }
      const bank = pickReceiverBank(order.key);
      // In SPI the id carries the payer institution's ISPB. The sandbox PSP is fictional and has none,
      // so it settles as if inside the receiver's institution; a real adapter returns its PSP's id.
      return {
        status: 'PAID',
        endToEndId: newEndToEndId(bank.ispb, now),
        receiverName: order.receiverName,
        receiverBank: bank.shortName,
        receiverBankIspb: bank.ispb,
      };
    },
    async refund(order: RefundOrder, now: Date): Promise<RefundOutcome> {
      if (order.customerEmail.toLowerCase() === SANDBOX_REFUND_FAIL_EMAIL) {
        return { status: 'ERROR', reason: 'sandbox: the payer\'s account refused the return (customer email fail@sandbox.test)' };
      }
      if (order.method !== 'PIX') return { status: 'PAID', endToEndId: null };
      // the return goes back to the payer's institution: the ISPB of the charge's own id when there is one
      const ispb = order.originalEndToEnd?.slice(1, 9) ?? pickReceiverBank(order.customerDocument).ispb;
      return { status: 'PAID', endToEndId: newEndToEndId(ispb, now, 'D') };
    },
  };
}
