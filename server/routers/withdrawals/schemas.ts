import { z } from 'zod';
import { documentKind } from '../../../contract/pix/documents';
import { normalizePixKey } from '../../../contract/pix/keys';
import { FAILURE_CODES } from '../../../contract/enums';
import { DOCUMENT_RULE } from '../../domain/withdrawals/rules';
import type { Receipt, WithdrawalPage, WithdrawalView } from '../../domain/withdrawals/view';
import { boundedString, cents, describes, listInput } from '../common';
import { BATCH_STATUSES, PIX_KEY_TYPES, WITHDRAWAL_STATUSES } from '../../../contract/enums';

/** The zod contract of the withdrawal operations (spec: "Withdrawal request", "Withdrawal", …). */



const requiredOr = (otherwise: string) => ({ error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : otherwise) });

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const httpUrl = z.string(requiredOr('must be a string')).max(2048, 'at most 2048 characters')
  .refine(isHttpUrl, 'must be an http or https URL');

// The rules of each key type live in contract/pix/keys.ts; this schema is the one place they are
// checked (every path, REST, tRPC and the dashboard's form, parses it before the domain runs).
export const pixKeyField = boundedString(255);
export const pixKeyTypeField = z.enum(PIX_KEY_TYPES, requiredOr(`must be one of ${PIX_KEY_TYPES.join(', ')}`)).describe('Pix key type');

/**
 * The key by the rules of its type, for any schema with `key` and `key_type`. The parsed value carries
 * the key in its canonical spelling, so the domain stores and looks up that without checking it again.
 */
export function checkPixKey(v: { key: string; key_type: (typeof PIX_KEY_TYPES)[number] }, ctx: z.RefinementCtx) {
  // runs once the fields themselves are well-formed; `v` is zod's own copy of the input
  const key = normalizePixKey(v.key_type, v.key);
  if (key.ok) v.key = key.key;
  else ctx.addIssue({ code: 'custom', path: ['key'], message: key.message.replace(/^key: /, '') });
}

export const withdrawalRequest = z.strictObject({
  amount: cents().describe('Amount in cents'),
  key: pixKeyField.describe('Pix key that receives the value'),
  key_type: pixKeyTypeField,
  description: z.string(requiredOr('must be a string')).trim().max(140, 'at most 140 characters').nullish().describe('Description of the request'),
  details: z.strictObject({
    name: boundedString(140).describe('Recipient name'),
    document: boundedString(32)
      .refine((d) => documentKind(d) !== null, DOCUMENT_RULE)
      .describe('Recipient CPF or CNPJ (punctuation allowed)'),
  }, requiredOr('must be an object with name and document')).describe('Recipient details'),
  postback: httpUrl.nullish().describe('URL that receives updates about this withdrawal'),
  external_ref: boundedString(255).nullish().describe("Caller's external reference, unique per account"),
}).superRefine(checkPixKey);

export const createdBatch = z.object({
  amount: z.number().int().describe('Batch amount in cents'),
  event: z.literal('WITHDRAWAL'),
  identifier: z.string().describe('Identifier of the withdrawal batch'),
  status: z.literal('PENDING'),
  timestamp: z.string(),
});

export const withdrawalCreationResponse = z.object({
  statusCode: z.literal(201),
  message: z.literal('WITHDRAW_REQUEST'),
  data: z.array(createdBatch).describe('Withdrawal batches created to fulfil the amount'),
  timestamp: z.string().describe('Creation time (ISO 8601)'),
});

export const receipt = describes<Receipt>()(z.object({
  status: z.enum(BATCH_STATUSES),
  endtoend: z.string().nullable().describe('32-character end-to-end id, once paid'),
  identifier: z.string().describe('Batch identifier'),
  amount: z.number().int().describe('Batch amount in cents'),
  receiver_name: z.string().nullable().describe("Holder of the key as the Pix directory reports it (not the typed details.name), once paid"),
  receiver_bank: z.string().nullable().describe("Institution of the receiver's account, once paid"),
  receiver_bank_ispb: z.string().nullable().describe('8-digit ISPB of that institution, once paid'),
  failure_code: z.enum(FAILURE_CODES).nullable().describe('Why the batch failed, as a code (KEY_NOT_FOUND: the key is not in the Pix directory; REJECTED: the receiving institution refused it); null unless ERROR'),
  failure_reason: z.string().nullable().describe('Why the batch failed, as an English sentence; null unless ERROR'),
}));

export const withdrawalResponse = describes<WithdrawalView>()(z.object({
  id: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  amount: z.number().int(),
  operation: z.object({
    amount: z.number().int(),
    key: z.string(),
    key_type: z.enum(PIX_KEY_TYPES),
    description: z.string().nullable(),
    details: z.object({ name: z.string(), document: z.string() }),
    postback: z.string().nullable(),
    external_ref: z.string().nullable(),
  }),
  receipt: z.array(receipt).describe('Every batch, in order'),
  created_at: z.string(),
  updated_at: z.string(),
}));

export const withdrawalQuery = z.strictObject({
  identifier: boundedString(255).optional().describe('The withdrawal id or any of its batch identifiers'),
  external_ref: boundedString(255).optional().describe('The withdrawal external reference'),
});

const DATE_OR_DATETIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const isoDate = z.string().max(40).refine((v) => DATE_OR_DATETIME.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time with a time zone');

export const withdrawalListInput = z.strictObject({
  ...listInput.shape,
  status: z.enum(WITHDRAWAL_STATUSES).optional(),
  from: isoDate.optional().describe('created_at ≥ from'),
  to: isoDate.optional().describe('created_at < to; a bare date includes that whole day'),
});

/** The dashboard's search: one text read as id, batch, e2e id, key, CPF/CNPJ, amount, reference or name. */
export const searchWithdrawalsInput = z.strictObject({
  ...listInput.shape,
  q: z.string().max(200, 'at most 200 characters').optional(),
  status: z.enum(WITHDRAWAL_STATUSES).optional(),
  from: z.string().max(40).optional().describe('Brasília calendar day YYYY-MM-DD, included'),
  to: z.string().max(40).optional().describe('Brasília calendar day YYYY-MM-DD, included'),
});

export const withdrawalListResponse = describes<WithdrawalPage>()(z.object({
  items: z.array(withdrawalResponse),
  next_cursor: z.string().nullable(),
}));

export type WithdrawalRequestInput = z.infer<typeof withdrawalRequest>;
export type WithdrawalCreationResponse = z.infer<typeof withdrawalCreationResponse>;
