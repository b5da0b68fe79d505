import { z } from 'zod';

export const overviewResponse = z.object({
  account_name: z.string(),
  currency: z.literal('BRL'),
  available: z.number().int(),
  blocked: z.number().int(),
  in_flight: z.number().int().describe('Cents of accepted withdrawals not settled yet'),
  money_in: z.number().int().describe('Cents received over the last 30 days'),
  money_out: z.number().int().describe('Cents paid out over the last 30 days'),
  daily: z.array(z.object({ date: z.string(), money_in: z.number().int(), money_out: z.number().int() })),
  recent: z.array(z.object({
    id: z.string(), type: z.string(), resource_id: z.string(), created_at: z.string(),
    amount: z.number().int().nullable(), status: z.string().nullable(),
    transaction_id: z.string().nullable().describe('The charge a dispute event belongs to'),
  })),
  timestamp: z.string(),
});

export const developersResponse = z.object({ account_id: z.string(), account_name: z.string(), code: z.string(), api_key: z.string() });
export const postbackSecretResponse = z.object({ postback_secret: z.string() });
export const rotateTokenResponse = z.object({ code: z.string(), token: z.string() });
