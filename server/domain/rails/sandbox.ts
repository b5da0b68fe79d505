import { newEndToEndId } from '../pix/end-to-end';
import type { PixPaymentOrder, PixPaymentOutcome, PixRail, RefundOrder, RefundOutcome } from './rail';
import { pickReceiverBank } from '../pix/participants';
import { sandboxDirectoryEntry } from './sandbox-directory';
import { sandboxJournal } from './sandbox-journal';

export { SANDBOX_UNKNOWN_KEY } from './sandbox-directory';

/** Magic EMAIL keys of docs/decisions.md "Withdrawals": every batch fails / all but the first fail. */
export const SANDBOX_FAIL_KEY = 'fail@sandbox.test';
export const SANDBOX_PARTIAL_KEY = 'partial@sandbox.test';

/** The English sentences a failed batch keeps as its failure_reason. */
export const SANDBOX_FAILURE_REASONS = {
  unknownKey: 'The Pix key is not registered in the Pix directory (DICT), so nothing was sent.',
  refused: 'The receiving institution refused the payment (sandbox key fail@sandbox.test).',
  partial: 'The receiving institution refused this batch; only the first batch is paid (sandbox key partial@sandbox.test).',
} as const;

/** A charge whose customer has this email gets its refunds refused by the sandbox (the receiver's side). */
export const SANDBOX_REFUND_FAIL_EMAIL = SANDBOX_FAIL_KEY;

/**
 * The sandbox rail: settles a batch `delayMs` after it was requested, paying the holder the sandbox
 * directory gives for the key, at that entry's bank (the same key always lands at the same holder and
 * bank), unless a magic key says not to. A key that is not in the directory fails the batch, as a real
 * PSP refuses to pay a key the DICT does not know. Each payment or refund call takes `latencyMs`, as a
 * PSP's round trip would (a failover drill needs calls in flight to kill an instance in the middle of).
 */
export function sandboxRail(delayMs: number, latencyMs = 0, journalDir: string | null = null): PixRail {
  const roundTrip = () => (latencyMs > 0 ? new Promise<void>((r) => setTimeout(r, latencyMs)) : undefined);
  const journal = journalDir ? sandboxJournal(journalDir) : null;
  return {
    name: 'sandbox',
    firstAttemptAt: (requestedAt) => new Date(requestedAt.getTime() + delayMs),
    async lookup(keyType, key) {
      return sandboxDirectoryEntry(keyType, key);
    },
    async pay(order: PixPaymentOrder, now: Date): Promise<PixPaymentOutcome> {
      await roundTrip();
      if (journal) return journal.once('batch', order.batchId, order.amount, () => payNow(order, now));
      return payNow(order, now);
    },
    async refund(order: RefundOrder, now: Date): Promise<RefundOutcome> {
      await roundTrip();
      if (journal) return journal.once('refund', order.refundId, order.amount, () => refundNow(order, now));
      return refundNow(order, now);
    },
  };
}

function payNow(order: PixPaymentOrder, now: Date): PixPaymentOutcome {
  const entry = sandboxDirectoryEntry(order.keyType, order.key);
  if (!entry) return { status: 'ERROR', code: 'KEY_NOT_FOUND', reason: SANDBOX_FAILURE_REASONS.unknownKey };
  if (order.keyType === 'EMAIL' && order.key === SANDBOX_FAIL_KEY) {
    return { status: 'ERROR', code: 'REJECTED', reason: SANDBOX_FAILURE_REASONS.refused };
  }
  if (order.keyType === 'EMAIL' && order.key === SANDBOX_PARTIAL_KEY && order.seq > 0) {
    return { status: 'ERROR', code: 'REJECTED', reason: SANDBOX_FAILURE_REASONS.partial };
  }
  // In SPI the id carries the payer institution's ISPB. The sandbox PSP is fictional and has none,
  // so it settles as if inside the receiver's institution; a real adapter returns its PSP's id.
  return {
    status: 'PAID',
    endToEndId: newEndToEndId(entry.bank.ispb, now),
    receiverName: entry.holder.name,
    receiverBank: entry.bank.name,
    receiverBankIspb: entry.bank.ispb,
  };
}

function refundNow(order: RefundOrder, now: Date): RefundOutcome {
  if (order.customerEmail.toLowerCase() === SANDBOX_REFUND_FAIL_EMAIL) {
    return { status: 'ERROR', reason: 'sandbox: the payer\'s account refused the return (customer email fail@sandbox.test)' };
  }
  if (order.method !== 'PIX') return { status: 'PAID', endToEndId: null };
  if (order.endToEnd) return { status: 'PAID', endToEndId: order.endToEnd };
  // the return goes back to the payer's institution: the ISPB of the charge's own id when there is one
  const ispb = order.originalEndToEnd?.slice(1, 9) ?? pickReceiverBank(order.customerDocument).ispb;
  return { status: 'PAID', endToEndId: newEndToEndId(ispb, now, 'D') };
}
