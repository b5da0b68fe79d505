import { z } from 'zod';
import { cents } from '../common';

export const balanceResponse = z.object({
  available: z.number().int().describe('Cents available to withdraw'),
  blocked: z.number().int().describe('Cents held by open disputes'),
  currency: z.literal('BRL'),
  timestamp: z.string(),
});

export const topUpRequest = z.strictObject({ amount: cents(100_000_000_000).describe('Cents to add (sandbox only)') });
