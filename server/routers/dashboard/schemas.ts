import { AUDIT_ACTIONS } from '../../../contract/enums';
import { AUDIT_PAGE_DEFAULT, type AuditEntryView } from '../../domain/audit-trail';
import { presentedPassword } from '../../domain/sign-in-rules';
import { describes, strictInt } from '../common';
import { z } from 'zod';

const periodMoney = z.object({
  sales: z.number().int().describe('Approved charges, cents'),
  sales_count: z.number().int(),
  top_ups: z.number().int().describe('Sandbox top-ups, cents (not sales)'),
  payouts: z.number().int().describe('Paid withdrawals, cents'),
  chargebacks: z.number().int().describe('Lost disputes, cents'),
});

export const overviewResponse = z.object({
  account_name: z.string(),
  currency: z.literal('BRL'),
  available: z.number().int(),
  blocked: z.number().int(),
  in_flight: z.number().int().describe('Cents of accepted withdrawals not settled yet'),
  money_in: z.number().int().describe('Cents received over the last 30 days'),
  money_out: z.number().int().describe('Cents paid out over the last 30 days'),
  periods: z.object(Object.fromEntries(['today', 'yesterday', 'month'].map((k) => [k, periodMoney])) as Record<'today' | 'yesterday' | 'month', typeof periodMoney>)
    .describe('Brasília days: today, yesterday and the month so far'),
  daily: z.array(z.object({
    date: z.string(), money_in: z.number().int(), money_out: z.number().int(),
    sales: z.number().int(), top_ups: z.number().int(), payouts: z.number().int(),
  })),
  recent: z.array(z.object({
    id: z.string(), type: z.string(), resource_id: z.string(), created_at: z.string(),
    amount: z.number().int().nullable(), status: z.string().nullable(),
    transaction_id: z.string().nullable().describe('The charge a dispute event belongs to'),
    method: z.string().nullable(),
    counterparty: z.string().nullable().describe("The charge's customer or the withdrawal's recipient"),
  })),
  timestamp: z.string(),
});

export const developersResponse = z.object({ account_id: z.string(), account_name: z.string(), code: z.string(), api_key: z.string() });
export const postbackSecretResponse = z.object({ postback_secret: z.string() });
export const rotateTokenResponse = z.object({ code: z.string(), token: z.string() });
export const pixApiCredentialsResponse = z.object({
  client: z.object({ client_id: z.string(), scopes: z.array(z.string()), secret_set_at: z.string() }).nullable()
    .describe('null for an account created before API Pix credentials existed, until its first rotation'),
});
export const rotatePixSecretResponse = z.object({ client_id: z.string(), client_secret: z.string() });

/** What a procedure that answers a secret or a new credential takes: the person's password again. */
export const passwordConfirmation = z.strictObject({
  password: presentedPassword.describe('The signed-in person\'s dashboard password'),
});

export const AUDIT_MAX_LIMIT = 200;
export const auditTrailRequest = z.strictObject({
  cursor: z.string().max(200, 'at most 200 characters').describe('next_cursor of the previous page').optional(),
  limit: strictInt(1, AUDIT_MAX_LIMIT).describe(`1–${AUDIT_MAX_LIMIT}, default ${AUDIT_PAGE_DEFAULT}`).optional(),
}).optional();

export const auditEntry = describes<AuditEntryView>()(z.object({
  id: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  actor_email: z.string(),
  subject: z.string().nullable().describe('What it was done to, when not the account (a webhook)'),
  client_address: z.string(),
  user_agent: z.string().nullable(),
  created_at: z.string(),
}));

export const auditTrailResponse = z.object({ data: z.array(auditEntry), next_cursor: z.string().nullable() });
