import { z } from 'zod';

export { disputeView, transactionView } from '../transactions/schemas';

export const sandboxTransactionInput = z.strictObject({ id: z.string().min(1).max(64).describe('Transaction id') });

export const resolveDisputeInput = z.strictObject({
  id: z.string().min(1).max(64).describe('Dispute id'),
  outcome: z.enum(['won', 'lost'], { error: 'must be won or lost' }).describe('won releases the hold; lost charges it back'),
});
