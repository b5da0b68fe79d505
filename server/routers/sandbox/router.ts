import { openDispute, resolveDispute } from '../../domain/transactions/disputes';
import { sandboxPay } from '../../domain/transactions/pay';
import { merchantProcedure, router } from '../../trpc';
import { disputeView, resolveDisputeInput, sandboxTransactionInput, transactionView } from './schemas';

const sandboxErrors = { 401: 'Missing or invalid access token', 404: 'No such resource of this account, or the sandbox is off', 429: 'Rate limited' };

/** Stand-ins for the outside world (payer, cardholder, card network); 404 when SANDBOX=false. */
export const sandboxRouter = router({
  pay: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'POST', path: '/sandbox/transactions/{id}/pay', tags: ['sandbox'], summary: 'Pay a PENDING PIX or INVOICE transaction',
        description: 'PENDING → APPROVED and the amount credited once; a PIX gets its end-to-end id. Paying an APPROVED transaction again answers it unchanged. REFUSED, expired or CARD → 422.',
        errorResponses: { ...sandboxErrors, 422: 'Not payable (INVALID_STATE)' },
      },
    })
    .input(sandboxTransactionInput)
    .output(transactionView)
    .mutation(({ ctx, input }) => sandboxPay(ctx.services, ctx.auth.accountId, input.id)),

  openDispute: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments', successStatus: 201,
      openapi: {
        method: 'POST', path: '/sandbox/transactions/{id}/dispute', tags: ['sandbox'], summary: 'Open a dispute on an APPROVED CARD transaction',
        description: 'Holds the amount: available → blocked. One dispute per transaction.',
        errorResponses: { ...sandboxErrors, 409: 'The transaction already has a dispute', 422: 'Not an APPROVED CARD transaction (INVALID_STATE), or the available balance does not cover it (INSUFFICIENT_FUNDS)' },
      },
    })
    .input(sandboxTransactionInput)
    .output(disputeView)
    .mutation(({ ctx, input }) => openDispute(ctx.services, ctx.auth.accountId, input.id)),

  resolveDispute: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'POST', path: '/sandbox/disputes/{id}/{outcome}', tags: ['sandbox'], summary: 'Win or lose an open dispute',
        description: 'won: blocked → available. lost: the held amount is charged back. The same outcome again answers the dispute unchanged.',
        errorResponses: { ...sandboxErrors, 422: 'The dispute is already closed with the other outcome' },
      },
    })
    .input(resolveDisputeInput)
    .output(disputeView)
    .mutation(({ ctx, input }) => resolveDispute(ctx.services, ctx.auth.accountId, input.id, input.outcome)),
});
