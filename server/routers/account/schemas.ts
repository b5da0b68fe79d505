import { z } from 'zod';
import { STATEMENT_DEFAULT_LIMIT, STATEMENT_MAX_LIMIT, STATEMENT_RESOURCE_TYPES, STATEMENT_TYPES } from '../../../contract/statement';
import type { ReceiverInput, ReceiverView } from '../../domain/receiver';
import { cents, describes, isoTimestamp } from '../common';

export const balanceResponse = z.object({
  available: z.number().int().describe('Cents available to withdraw'),
  blocked: z.number().int().describe('Cents held by open disputes'),
  currency: z.literal('BRL'),
  timestamp: z.string(),
});

export const topUpRequest = z.strictObject({ amount: cents(100_000_000_000).describe('Cents to add (sandbox only)') });

const DATE_OR_DATETIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const statementDate = z.string().max(40, 'at most 40 characters')
  .refine((v) => DATE_OR_DATETIME.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time with a time zone');

/**
 * A query-string integer: REST sends "50", tRPC callers 50. Only digits are accepted ("1e2", "1.5",
 * "", true are 400 on both paths); the pipe keeps trpc-to-openapi's coercion away from it.
 */
const queryInt = (min: number, max: number) => z.union([
  z.number().int('must be an integer'),
  z.string().regex(/^\d{1,9}$/, 'must be an integer').transform(Number),
], { error: 'must be an integer' }).pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

export const statementQuery = z.strictObject({
  from: statementDate.describe('created_at ≥ from (ISO 8601 date, or date-time with a zone)').optional(),
  to: statementDate.describe('created_at < to; a bare date includes that whole day').optional(),
  cursor: z.string().max(200, 'at most 200 characters').describe('next_cursor of the previous page').optional(),
  limit: queryInt(1, STATEMENT_MAX_LIMIT).describe(`1–${STATEMENT_MAX_LIMIT}, default ${STATEMENT_DEFAULT_LIMIT}`).optional(),
});

export const statementMovement = z.object({
  id: z.string().describe('lnl_…: the ledger line'),
  created_at: isoTimestamp,
  type: z.enum(STATEMENT_TYPES),
  amount: z.number().int().describe('Signed cents: credits positive, debits negative'),
  balance_after: z.number().int().describe('Available balance right after this movement'),
  resource: z.object({ type: z.enum(STATEMENT_RESOURCE_TYPES), id: z.string() }),
  description: z.string(),
});

export const statementResponse = z.object({
  data: z.array(statementMovement).describe('Newest first'),
  next_cursor: z.string().nullable(),
  timestamp: isoTimestamp,
});

/** The account's receiver data as the form sends it; the rules (check digits, UF, CEP) are the domain's, checkReceiver. */
export const receiverRequest = describes<ReceiverInput>()(z.strictObject({
  document: z.string().max(40),
  name: z.string().max(400),
  trade_name: z.string().max(400).nullable().optional(),
  street: z.string().max(400),
  city: z.string().max(400),
  uf: z.string().max(10),
  cep: z.string().max(20),
}));

export const receiverView = describes<ReceiverView>()(z.object({
  document: z.string(), name: z.string(), trade_name: z.string().nullable(), street: z.string(), city: z.string(),
  uf: z.string(), cep: z.string(), updated_at: z.string(),
}));

/** null while the account has none (a cobv is refused until it has). */
export const receiverResponse = receiverView.nullable();
