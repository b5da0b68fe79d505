import { reportOutcome } from '../outcomes';
import type { Stores } from '../../../db';
import { DomainError, validationError, type FieldIssue } from '../../errors';
import type { Services } from '../../services';
import { sandboxCardOutcome, validateCard, cardSummary, type CardInput } from '../cards';
import { recordEvent, type EventType } from '../events';
import { checkIdempotencyKey, requestFingerprint, runIdempotent, type IdempotentCreateOptions, type IdempotentOperation, type IdempotentResult } from '../idempotency';
import { newId } from '../ids';
import { transfer } from '../ledger';
import type { SystemBook } from '../../../contract/ledger';
import { cnpjProblem, cpfProblem, documentKind, normalizeDocument } from '../../../contract/pix/documents';
import { checkWebhookUrl } from '../webhooks/url-guard';
import { dueDateAfter, sandboxInvoiceLine } from './invoice';
import { pixChargeBrCode, transactionIdentifier } from './pix-charge';
import { receivingPixKey } from '../pix-api/keys';
import { customerView, transactionView, type TransactionCreated, type TransactionItem, type TransactionMethod } from './view';

/** The body of POST /transaction after its schema has vetted types and bounds. */
export interface CreateTransactionInput {
  amount: number;
  customer: {
    name: string;
    email: string;
    phone?: string;
    document: string;
    address?: { street?: string; number?: string; city?: string; state?: string; country?: string; zip?: string };
  };
  items: { title: string; unitPrice: number; quantity: number; tangible?: boolean }[];
  method: TransactionMethod;
  installments?: number;
  externalRef?: string;
  postback?: string;
  card?: CardInput;
}

/** The idempotency scope: REST and tRPC create the same resource, so they share keys. */
const OPERATION: IdempotentOperation = 'transaction.create';

/** The rules that span fields (the schema has checked each field alone). Nothing here echoes card data. */
export async function transactionInputProblems(s: Services, input: CreateTransactionInput): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  // BigInt: 100 items of up to 10^11 × 10^4 would pass Number's exact range.
  const sum = input.items.reduce((acc, i) => acc + BigInt(i.unitPrice) * BigInt(i.quantity), 0n);
  if (BigInt(input.amount) !== sum) {
    issues.push({ path: 'amount', message: `must equal the sum of items' unitPrice × quantity (${sum})` });
  }
  if (!documentKind(input.customer.document)) {
    const digits = normalizeDocument(input.customer.document);
    const why = digits.length === 11 ? cpfProblem(digits) : digits.length === 14 ? cnpjProblem(digits) : 'expected a CPF (11 digits) or a CNPJ (14 characters)';
    issues.push({ path: 'customer.document', message: `not a valid CPF or CNPJ: ${why}` });
  }
  if (input.method === 'CARD') {
    if (!input.card) issues.push({ path: 'card', message: 'is required when method is CARD' });
    else issues.push(...validateCard(input.card, s.clock.now()));
  } else {
    if (input.card) issues.push({ path: 'card', message: 'is only accepted when method is CARD' });
    if (input.installments !== undefined) issues.push({ path: 'installments', message: 'is only accepted when method is CARD' });
  }
  if (input.postback !== undefined) {
    const checked = await checkWebhookUrl(input.postback, { allowPrivate: s.config.webhookAllowPrivateUrls });
    if (!checked.ok) issues.push({ path: 'postback', message: checked.reason });
  }
  return issues;
}

/**
 * POST /transaction. Validates everything first (nothing is stored on a 400), then writes the
 * customer, the transaction, its events and, for an approved card, the ledger credit, together with
 * the idempotent answer, as one job of the writer.
 */
export async function createTransaction(
  s: Services,
  accountId: string,
  input: CreateTransactionInput,
  opts: IdempotentCreateOptions = {},
): Promise<IdempotentResult<{ transaction: TransactionCreated }>> {
  const key = checkIdempotencyKey(opts.idempotencyKey);
  const fingerprint = requestFingerprint(s.masterKey, OPERATION, input);
  const scope = { accountId, operation: OPERATION, key };
  // Checked only when the request is not a replay: a stored answer stands even if the card has expired
  // or the postback's DNS changed since. The card is reduced to what may be kept before anything else sees it.
  const check = async () => {
    const issues = await transactionInputProblems(s, input);
    if (issues.length) throw validationError(issues);
    return input.method === 'CARD' && input.card
      ? { ...cardSummary(input.card.number, input.card.holder_name), outcome: sandboxCardOutcome(input.card.number) }
      : null;
  };

  return runIdempotent(s, scope, fingerprint, async (tx, card) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    if (input.externalRef !== undefined) {
      // on PostgreSQL another instance may be creating the same reference right now: wait for it, then look
      if (await tx.transactions.lockExternalRef(accountId, input.externalRef)) {
        throw new DomainError('DUPLICATE_EXTERNAL_REF', 'externalRef: another transaction of this account already uses it');
      }
    }
    const merchantName = await tx.accounts.merchantName(accountId);
    if (merchantName === null) throw new DomainError('NOT_FOUND', 'account not found');

    const id = newId('transaction');
    const identifier = transactionIdentifier(id);
    const c = input.customer;
    const customer = customerView({ id: newId('customer'), name: c.name, email: c.email, phone: c.phone ?? null, document: normalizeDocument(c.document) });
    await tx.transactions.insertCustomer({
      id: customer.id, accountId, name: customer.name, email: customer.email, phone: customer.phone, document: customer.document,
      address: c.address ? JSON.stringify(c.address) : null, createdAt: iso,
    });

    const items: TransactionItem[] = input.items.map((i) => ({ unitPrice: i.unitPrice, quantity: i.quantity, title: i.title, tangible: i.tangible ?? false }));
    let qrcode: string | null = null;
    let invoice: { id: string; dueDate: string; line: string } | null = null;
    let expiresAt: string | null = null;
    if (input.method === 'PIX') {
      qrcode = pixChargeBrCode({ accountId, key: await receivingPixKey(tx, accountId), merchantName, merchantCity: s.config.merchantCity, amount: input.amount, txid: identifier });
      expiresAt = new Date(at.getTime() + s.config.pixExpiresSeconds * 1000).toISOString();
    } else if (input.method === 'INVOICE') {
      const invoiceId = newId('invoice');
      const dueDate = dueDateAfter(at);
      invoice = { id: invoiceId, dueDate, line: sandboxInvoiceLine(invoiceId, input.amount, dueDate) };
    }

    await tx.transactions.insertTransaction({
      id, accountId, identifier, method: input.method, status: 'PENDING', amount: input.amount, currency: 'BRL',
      customerId: customer.id, items: JSON.stringify(items), qrcode,
      invoiceId: invoice?.id ?? null, invoiceDueDate: invoice?.dueDate ?? null, invoiceDigitableLine: invoice?.line ?? null,
      cardBrand: card?.brand ?? null, cardLast4: card?.last4 ?? null, cardHolderName: card?.holder_name ?? null,
      installments: card ? (input.installments ?? 1) : null,
      postback: input.postback ?? null, externalRef: input.externalRef ?? null, metadata: null,
      expiresAt, createdAt: iso, updatedAt: iso,
    });
    await recordTransactionEvent(tx, accountId, id, 'transaction.created', at);

    // The sandbox acquirer answers at once: the card charge is settled within this same job.
    let status: 'PENDING' | 'APPROVED' | 'REFUSED' = 'PENDING';
    if (card) {
      status = card.outcome;
      await tx.transactions.setCardOutcome(id, { status, refusedReason: status === 'REFUSED' ? 'card_declined' : null });
      if (status === 'APPROVED') await creditTransaction(tx, { accountId, id, method: 'CARD', amount: input.amount, at });
      await recordTransactionEvent(tx, accountId, id, status === 'APPROVED' ? 'transaction.approved' : 'transaction.refused', at);
    }

    const transaction: TransactionCreated = {
      id, status, total: input.amount, method: input.method, qrcode, invoice: invoice?.id ?? null, currency: 'BRL',
      identifier, external_ref: input.externalRef ?? null, customer, created_at: iso, updated_at: iso,
    };
    return { transaction };
  }, check);
}

const CREDIT_BOOK = { PIX: 'pix_in', CARD: 'card_in', INVOICE: 'invoice_in' } as const satisfies Record<TransactionMethod, SystemBook>;

/**
 * The one place an approved transaction becomes balance. Callers run it in the job that moves the
 * transaction to APPROVED (a conditional update on PENDING), which is what makes it happen once.
 */
export function creditTransaction(tx: Stores, t: { accountId: string; id: string; method: TransactionMethod; amount: number; at: Date }) {
  return transfer(tx, {
    accountId: t.accountId, kind: 'transaction_credit', resourceId: t.id, description: `${t.method} transaction approved`,
    from: { system: CREDIT_BOOK[t.method] }, to: { account: t.accountId, book: 'available' }, amount: t.amount, at: t.at,
  });
}

/** Records a transaction.* event whose data is the transaction as GET returns it now (inside the job). */
export async function recordTransactionEvent(
  tx: Stores, accountId: string, id: string,
  type: Extract<EventType, `transaction.${string}`>, at: Date,
) {
  const view = await transactionView(tx, accountId, id);
  if (!view) throw new DomainError('INTERNAL', 'transaction vanished inside its own job');
  if (type !== 'transaction.created') reportOutcome(tx, { resource: 'transaction', status: type === 'transaction.approved' ? 'APPROVED' : 'REFUSED' });
  return recordEvent(tx, { accountId, type, resourceId: id, payload: view, at });
}
