import { z } from 'zod';
import { createWithdrawal, type WithdrawalCreated } from '../../domain/withdrawals/create';
import { DomainError } from '../../errors';
import { findWithdrawal, listWithdrawals } from '../../domain/withdrawals/query';
import { searchWithdrawals } from '../../domain/withdrawals/search';
import { merchantProcedure, router, markReplayed } from '../../trpc';
import { searchWithdrawalsInput, withdrawalCreationResponse, withdrawalListInput, withdrawalListResponse, withdrawalQuery, withdrawalRequest, withdrawalResponse, type WithdrawalCreationResponse } from './schemas';

/** The spec's "Withdrawal creation response": every batch PENDING, stamped with the creation time. */
function withdrawRequest({ withdrawal, batches }: WithdrawalCreated): WithdrawalCreationResponse {
  return {
    statusCode: 201,
    message: 'WITHDRAW_REQUEST',
    data: batches.map((b) => ({ amount: b.amount, event: 'WITHDRAWAL', identifier: b.identifier, status: 'PENDING', timestamp: withdrawal.created_at })),
    timestamp: withdrawal.created_at,
  };
}

/** A balance that does not cover the withdrawal answers the body docs/decisions.md "Withdrawals" fixes (WITHDRAW_FAIL, 422). */
function withdrawFail(err: unknown): never {
  if (err instanceof DomainError && err.code === 'INSUFFICIENT_FUNDS') {
    throw new DomainError(err.code, err.detail, {
      restBody: { statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS', detail: err.detail } },
    });
  }
  throw err;
}

export const withdrawalsRouter = router({
  create: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments', successStatus: 201, restErrorBodies: { 422: 'WithdrawFail' },
      openapi: {
        method: 'POST', path: '/withdraw/pix', tags: ['withdrawals'], summary: 'Request a Pix withdrawal',
        description: 'Debits the amount at once and splits it into batches of at most PIX_MAX_BATCH_CENTS. Send `idempotency-key` to make retries safe.',
        requestHeaders: z.object({ 'idempotency-key': z.string().max(255).optional() }),
        errorResponses: { 400: 'Invalid input', 401: 'Missing or invalid access token', 409: 'external_ref already used, or the same idempotency-key is still running', 413: 'Body over 64 KiB', 415: 'Body is not JSON', 422: 'WITHDRAW_FAIL (balance does not cover it) or idempotency-key reused with another body', 429: 'Rate limited' },
      },
    })
    .input(withdrawalRequest)
    .output(withdrawalCreationResponse)
    .mutation(async ({ ctx, input }) => {
      const created = await createWithdrawal(ctx.services, ctx.auth.accountId, input, { idempotencyKey: ctx.headers['idempotency-key'] })
        .catch(withdrawFail);
      markReplayed(ctx, created.replayed);
      return withdrawRequest(created);
    }),

  get: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'GET', path: '/withdraw', tags: ['withdrawals'], summary: 'Query a withdrawal',
        description: 'By `identifier` (withdrawal id or any batch identifier) and/or `external_ref`; when both are given they must name the same withdrawal.',
        errorResponses: { 400: 'Neither identifier nor external_ref', 401: 'Missing or invalid access token', 404: 'No such withdrawal in this account', 429: 'Rate limited' },
      },
    })
    .input(withdrawalQuery)
    .output(withdrawalResponse)
    .query(({ ctx, input }) => findWithdrawal(ctx.services, ctx.auth.accountId, input)),

  /** The dashboard's list (tRPC only): newest first, cursor pagination, filters by status and date. */
  list: merchantProcedure
    .input(withdrawalListInput)
    .output(withdrawalListResponse)
    .query(({ ctx, input }) => listWithdrawals(ctx.services, ctx.auth.accountId, input)),

  /** The dashboard's search and filters (also behind its CSV export). */
  search: merchantProcedure
    .input(searchWithdrawalsInput)
    .output(withdrawalListResponse)
    .query(({ ctx, input }) => searchWithdrawals(ctx.services, ctx.auth.accountId, input)),
});
