import { z } from 'zod';
import { accountBalance, sandboxTopUpAccount } from '../../domain/balance';
import { merchantProcedure, router } from '../../trpc';
import { balanceResponse, topUpRequest } from './schemas';

export const accountRouter = router({
  balance: merchantProcedure
    .meta({ auth: 'bearer', envelope: 'payments', openapi: { method: 'GET', path: '/balance', tags: ['account'], summary: 'Available and blocked balance', errorResponses: { 401: 'Missing or invalid access token', 429: 'Rate limited' } } })
    .input(z.strictObject({}).optional())
    .output(balanceResponse)
    .query(({ ctx }) => accountBalance(ctx.services, ctx.auth.accountId)),

  sandboxTopUp: merchantProcedure
    .meta({ auth: 'bearer', envelope: 'payments', successStatus: 201, openapi: { method: 'POST', path: '/sandbox/topup', tags: ['sandbox'], summary: 'Add sandbox money to the balance through the ledger', errorResponses: { 400: 'Invalid input', 401: 'Missing or invalid access token', 404: 'Sandbox is off' } } })
    .input(topUpRequest)
    .output(balanceResponse)
    .mutation(({ ctx, input }) => sandboxTopUpAccount(ctx.services, ctx.auth.accountId, input.amount)),
});
