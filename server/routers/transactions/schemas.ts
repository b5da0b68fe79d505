import { z } from 'zod';
import { boundedString, cents, describes, isoTimestamp, listInput, strictBool, strictInt } from '../common';
import { DISPUTE_STATUSES, REFUND_STATUSES, TRANSACTION_METHODS, TRANSACTION_STATUSES } from '../../../contract/enums';
import type { CustomerView, DisputeView, RefundView, TransactionCreated, TransactionItem, TransactionView } from '../../domain/transactions/view';
import type { PaymentDetails, TransactionPage } from '../../domain/transactions/query';
import type { DisputeListItem, TransactionSearchItem } from '../../domain/transactions/search';

// The answers' schemas are checked against the domain's types both ways (`describes<T>()`, common.ts): the
// domain owns its shapes, the schemas describe them to the clients and the OpenAPI document.

export const REFUND_REASON_MAX = 140;
export const transactionMethod = z.enum(TRANSACTION_METHODS);
export const transactionStatus = z.enum(TRANSACTION_STATUSES);

const required = (otherwise: string) => (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : otherwise);
const optionalText = (max: number) => boundedString(max).optional();

// ---------------------------------------------------------------- creation request (POST /transaction)

export const addressInput = z.strictObject({
  street: optionalText(140),
  number: optionalText(20),
  city: optionalText(140),
  state: optionalText(140),
  country: optionalText(140),
  zip: optionalText(20),
});

export const customerInput = z.strictObject({
  name: boundedString(140),
  email: boundedString(254).pipe(z.email('must be an email address')),
  phone: boundedString(25).regex(/^\+?[0-9 ().-]{8,25}$/, 'must be a phone number (digits, optionally +, spaces, dashes, parentheses)').optional(),
  document: boundedString(18).describe('CPF or CNPJ (punctuation allowed; stored without it)'),
  address: addressInput.optional(),
});

export const itemInput = z.strictObject({
  title: boundedString(140),
  unitPrice: strictInt(0, 100_000_000_000).describe('Cents'),
  quantity: strictInt(1, 10_000),
  tangible: strictBool().optional().describe('Default false'),
});

/** Checked in full by the domain (Luhn, brand, expiry, CVV length); here only types and sizes. */
export const cardInput = z.strictObject({
  number: z.string({ error: required('must be a string') }).max(32, 'at most 32 characters'),
  holder_name: z.string({ error: required('must be a string') }).max(200, 'at most 200 characters'),
  expiration_month: z.string({ error: required('must be a string') }).max(2, 'must be two digits').describe('Two-digit month'),
  expiration_year: z.string({ error: required('must be a string') }).max(4, 'must be four digits').describe('Four-digit year'),
  cvv: z.string({ error: required('must be a string') }).max(4, 'must be 3 or 4 digits'),
});

export const createTransactionRequest = z.strictObject({
  amount: cents().describe('Cents; must equal the sum of items unitPrice × quantity'),
  customer: customerInput,
  items: z.array(itemInput, { error: required('must be a list of items') }).min(1, 'must have at least one item').max(100, 'at most 100 items'),
  method: z.enum(TRANSACTION_METHODS, { error: required('must be one of PIX, CARD, INVOICE') }),
  installments: strictInt(1, 12).optional().describe('CARD only; default 1'),
  externalRef: optionalText(255).describe('Unique per account'),
  postback: z.string().trim().min(1, 'must not be empty').max(2048, 'at most 2048 characters').optional().describe('http(s) URL that receives this transaction\'s events'),
  card: cardInput.optional().describe('Required for CARD, refused otherwise; only brand, last 4 digits and holder name are kept'),
});

// ---------------------------------------------------------------- answers

export const customerView = describes<CustomerView>()(z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  document: z.string(),
}));

export const transactionCreated = describes<TransactionCreated>()(z.object({
  id: z.string(),
  status: transactionStatus,
  total: z.number().int().describe('Cents'),
  method: transactionMethod,
  qrcode: z.string().nullable().describe('Pix BR Code ("copia e cola") for PIX; null otherwise'),
  invoice: z.string().nullable().describe('Invoice id for INVOICE; null otherwise'),
  currency: z.literal('BRL'),
  identifier: z.string().describe('Letters and digits; the txid of the Pix BR Code'),
  external_ref: z.string().nullable(),
  customer: customerView,
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
}));

export const transactionItem = describes<TransactionItem>()(z.object({
  unitPrice: z.number().int(),
  quantity: z.number().int(),
  title: z.string(),
  tangible: z.boolean(),
}));

export const refundView = describes<RefundView>()(z.object({
  id: z.string().describe('rf_…'),
  amount: z.number().int().describe('Cents'),
  status: z.enum(REFUND_STATUSES).describe('PENDING until the rail settles it; ERROR gave the amount back to the balance'),
  endtoend: z.string().nullable().describe('A paid PIX refund\'s 32-character end-to-end id (D + ISPB + yyyyMMddHHmm + 11); null otherwise'),
  created_at: isoTimestamp,
}));

/** The spec's "Transaction", plus created_at/updated_at, refunded_amount and refunds. */
export const transactionView = describes<TransactionView>()(z.object({
  id: z.string(),
  status: transactionStatus,
  total: z.number().int().describe('Cents'),
  method: transactionMethod,
  currency: z.string(),
  endtoend: z.string().nullable().describe('End-to-end id of the Pix payment; null until a PIX is paid'),
  postback: z.string().nullable(),
  items: z.array(transactionItem),
  customer: customerView,
  external_ref: z.string().nullable(),
  metadata: z.string().nullable(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
  refunded_amount: z.number().int().describe('Cents refunded (refunds in ERROR do not count); 0 when none'),
  refunds: z.array(refundView).describe('Oldest first'),
}));

// ---------------------------------------------------------------- refund (POST /transaction/{id}/refund)

export const refundTransactionRequest = z.strictObject({
  id: z.string().min(1, 'must not be empty').max(64, 'at most 64 characters').describe('Transaction id'),
  amount: cents().optional().describe('Cents; without it, everything still refundable'),
  reason: z.string({ error: required('must be a string') }).trim().max(REFUND_REASON_MAX, `at most ${REFUND_REASON_MAX} characters`).nullish().describe('Why (kept with the refund)'),
});

// ---------------------------------------------------------------- query and list

const lookupValue = (max: number) => z.string().min(1, 'must not be empty').max(max, `at most ${max} characters`).optional();

export const getTransactionInput = z.strictObject({
  id: lookupValue(64),
  identifier: lookupValue(64),
  endtoend: lookupValue(64),
  external_ref: lookupValue(255),
});

export const listTransactionsInput = z.strictObject({
  ...listInput.shape,
  status: transactionStatus.optional(),
  method: transactionMethod.optional(),
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).optional().describe('created_at ≥ from'),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).optional().describe('created_at < to'),
});

export const transactionPage = describes<TransactionPage>()(z.object({
  items: z.array(transactionView),
  next_cursor: z.string().nullable(),
}));

/** The dashboard's search: one text read as id, e2e id, e-mail, CPF/CNPJ, amount, reference or name. */
const searchDay = z.string().max(40).optional().describe('Brasília calendar day YYYY-MM-DD, included');
export const searchTransactionsInput = z.strictObject({
  ...listInput.shape,
  q: z.string().max(200, 'at most 200 characters').optional(),
  status: transactionStatus.optional(),
  method: transactionMethod.optional(),
  from: searchDay,
  to: searchDay,
});

export const transactionSearchPage = z.object({
  items: describes<TransactionSearchItem[]>()(z.array(transactionView.extend({
    dispute: z.enum(DISPUTE_STATUSES).nullable().describe('The open dispute, else the latest one'),
  }))),
  next_cursor: z.string().nullable(),
});

export const disputeListResponse = z.object({
  items: z.array(describes<DisputeListItem>()(z.object({
    id: z.string(), transaction_id: z.string(), status: z.enum(DISPUTE_STATUSES),
    amount: z.number().int(), held: z.number().int().describe('Cents held from the balance now (open disputes)'),
    customer_name: z.string(), method: transactionMethod, created_at: isoTimestamp, updated_at: isoTimestamp,
  }))),
  held: z.number().int().describe('Cents held by all open disputes listed'),
});

export const transactionIdInput = z.strictObject({ transactionId: z.string().min(1).max(64) });

export const disputeView = describes<DisputeView>()(z.object({
  id: z.string(),
  transaction_id: z.string(),
  status: z.enum(['OPEN', 'WON', 'LOST']),
  amount: z.number().int().describe('Cents held, released or charged back'),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
}));

export const paymentDetails = describes<PaymentDetails>()(z.object({
  id: z.string(),
  method: transactionMethod,
  qrcode: z.string().nullable(),
  expires_at: isoTimestamp.nullable(),
  invoice: z.object({ id: z.string(), due_date: z.string(), digitable_line: z.string() }).nullable(),
  card: z.object({ brand: z.string(), last4: z.string(), holder_name: z.string(), installments: z.number().int() }).nullable(),
  refused_reason: z.string().nullable(),
}));

export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().max(255).optional().describe('Same key + same body within 24 h → the stored answer again (idempotent-replayed: true)'),
});
