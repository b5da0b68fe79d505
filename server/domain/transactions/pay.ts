import { DomainError } from '../../errors';
import type { Services } from '../../services';
import { newEndToEndId } from '../pix/end-to-end';
import { pickReceiverBank } from '../pix/participants';
import { creditTransaction, recordTransactionEvent } from './create';
import { transactionView, type TransactionView } from './view';

export function requireSandbox(s: Services) {
  if (!s.config.sandbox) throw new DomainError('NOT_FOUND', 'the sandbox is off');
}

/**
 * POST /sandbox/transactions/{id}/pay: the customer pays a PENDING PIX or INVOICE transaction →
 * APPROVED (a PIX payment gets its end-to-end id) and the amount is credited, in one job.
 *
 * Paying an APPROVED transaction again answers it unchanged (200, no second credit): a payer's retry
 * after a lost answer must not fail. REFUSED (declined or expired) and CARD transactions → 422
 * INVALID_STATE. The job re-reads the status and the update is conditional on PENDING, so any number
 * of concurrent pays credit once.
 */
export async function sandboxPay(s: Services, accountId: string, transactionId: string): Promise<TransactionView> {
  requireSandbox(s);
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    // PostgreSQL runs jobs concurrently: with the row locked, a concurrent pay sees APPROVED and answers it unchanged
    const t = await tx.transactions.lockForPayment(accountId, transactionId);
    if (!t) throw new DomainError('NOT_FOUND', 'transaction not found');
    if (t.method === 'CARD') throw new DomainError('INVALID_STATE', 'a CARD transaction is settled when it is created; only PIX and INVOICE are paid here');
    if (t.status === 'APPROVED') return (await transactionView(tx, accountId, transactionId))!;
    if (t.status !== 'PENDING') throw new DomainError('INVALID_STATE', `the transaction is ${t.status} and can no longer be paid`);
    if (t.expiresAt !== null && t.expiresAt <= at.toISOString()) {
      throw new DomainError('INVALID_STATE', 'the Pix charge has expired');
    }
    const iso = at.toISOString();
    // The payer's bank stands in for a real one: the same customer always pays from the same bank.
    const endToEnd = t.method === 'PIX' ? newEndToEndId(pickReceiverBank(t.document).ispb, at) : null;
    if (!(await tx.transactions.markPaid(t.id, { endToEnd, updatedAt: iso }))) {
      throw new DomainError('INVALID_STATE', 'the transaction changed while being paid');
    }
    await creditTransaction(tx, { accountId, id: t.id, method: t.method, amount: t.amount, at });
    await recordTransactionEvent(tx, accountId, t.id, 'transaction.approved', at);
    return (await transactionView(tx, accountId, transactionId))!;
  });
}
