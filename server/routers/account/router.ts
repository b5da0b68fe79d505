import { z } from 'zod';
import { accountBalance, sandboxTopUpAccount } from '../../domain/balance';
import { accountStatement } from '../../domain/statement';
import { accountReceiver, setAccountReceiver } from '../../domain/receiver';
import { dashboardProcedure, merchantProcedure, personProcedure, router } from '../../trpc';
import { balanceResponse, receiverRequest, receiverResponse, receiverView, statementQuery, statementResponse, topUpRequest } from './schemas';

export const accountRouter = router({
  balance: merchantProcedure
    .meta({ auth: 'bearer', envelope: 'payments', openapi: { method: 'GET', path: '/balance', tags: ['account'], summary: 'Available and blocked balance', errorResponses: { 401: 'Missing or invalid access token', 429: 'Rate limited' } } })
    .input(z.strictObject({}).optional())
    .output(balanceResponse)
    .query(({ ctx }) => accountBalance(ctx.services, ctx.auth.accountId)),

  statement: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'GET', path: '/balance/statement', tags: ['account'], summary: 'Statement: the movements of the available balance',
        description: 'Newest first, keyset-paged (pass `next_cursor` back as `cursor`). Each movement carries the balance right after it, so a page reconciles on its own: each `balance_after` equals the one below it plus its `amount`.',
        errorResponses: { 400: 'A bad date, from after to, a bad limit or a cursor this list did not give', 401: 'Missing or invalid access token', 429: 'Rate limited' },
      },
    })
    .input(statementQuery)
    .output(statementResponse)
    .query(({ ctx, input }) => accountStatement(ctx.services, ctx.auth.accountId, input)),

  sandboxTopUp: merchantProcedure
    .meta({ auth: 'bearer', envelope: 'payments', successStatus: 201, openapi: { method: 'POST', path: '/sandbox/topup', tags: ['sandbox'], summary: 'Add sandbox money to the balance through the ledger', errorResponses: { 400: 'Invalid input', 401: 'Missing or invalid access token', 404: 'Sandbox is off', 422: 'The balance would cross its ceiling' } } })
    .input(topUpRequest)
    .output(balanceResponse)
    .mutation(({ ctx, input }) => sandboxTopUpAccount(ctx.services, ctx.auth.accountId, input.amount)),

  /** The account as recebedor of its cobv (document, names, address), for the dashboard's settings; null while none. */
  receiver: dashboardProcedure.output(receiverResponse).query(({ ctx }) => accountReceiver(ctx.services, ctx.auth.accountId)),

  /** Registers or replaces the receiver data: a signed-in person, recorded in the audit trail. */
  setReceiver: personProcedure.input(receiverRequest).output(receiverView)
    .mutation(({ ctx, input }) => setAccountReceiver(ctx.services, ctx.actor, input)),
});
