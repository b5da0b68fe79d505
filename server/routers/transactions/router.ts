import { z } from 'zod';
import { createTransaction } from '../../domain/transactions/create';
import { getTransaction, listTransactions, paymentDetails, transactionDisputes } from '../../domain/transactions/query';
import { refundTransaction } from '../../domain/transactions/refunds';
import { listDisputes, searchTransactions } from '../../domain/transactions/search';
import { merchantProcedure, router, markReplayed } from '../../trpc';
import {
  createTransactionRequest, disputeListResponse, disputeView, getTransactionInput, idempotencyHeaders, listTransactionsInput,
  paymentDetails as paymentDetailsOutput, refundTransactionRequest, searchTransactionsInput, transactionCreated, transactionIdInput,
  transactionPage, transactionSearchPage, transactionView,
} from './schemas';

export const transactionsRouter = router({
  create: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments', successStatus: 201,
      openapi: {
        method: 'POST', path: '/transaction', tags: ['transactions'], summary: 'Create a transaction (PIX, CARD or INVOICE)',
        requestHeaders: idempotencyHeaders,
        errorResponses: { 400: 'Invalid input (nothing stored)', 401: 'Missing or invalid access token', 409: 'externalRef already used, or the same idempotency-key is still running', 422: 'idempotency-key reused with a different body', 429: 'Rate limited' },
      },
    })
    .input(createTransactionRequest)
    .output(transactionCreated)
    .mutation(async ({ ctx, input }) => {
      const { transaction, replayed } = await createTransaction(ctx.services, ctx.auth.accountId, input, { idempotencyKey: ctx.headers['idempotency-key'] });
      markReplayed(ctx, replayed);
      return transaction;
    }),

  get: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'GET', path: '/transaction', tags: ['transactions'], summary: 'Query a transaction by id, identifier, endtoend or external_ref',
        description: 'At least one parameter; every one given must match the same transaction. A POST /transaction with no body and these query parameters answers the same.',
        errorResponses: { 400: 'No parameter given', 401: 'Missing or invalid access token', 404: 'No such transaction of this account', 429: 'Rate limited' },
      },
    })
    .input(getTransactionInput)
    .output(transactionView)
    .query(({ ctx, input }) => getTransaction(ctx.services, ctx.auth.accountId, input)),

  refund: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments', successStatus: 201,
      openapi: {
        method: 'POST', path: '/transaction/{id}/refund', tags: ['transactions'], summary: 'Refund an APPROVED transaction, partly or in full',
        description: 'Without `amount`, refunds everything still refundable. Debits the available balance at once; the rail settles the refund like a withdrawal batch (a PIX refund gets a `D…` end-to-end id; a failed refund returns its amount). Answers the transaction in its query shape. Send `idempotency-key` to make retries safe.',
        requestHeaders: idempotencyHeaders,
        errorResponses: {
          400: 'Invalid input (nothing changed)', 401: 'Missing or invalid access token', 404: 'No such transaction of this account',
          409: 'The same idempotency-key is still running',
          422: 'Not APPROVED, an open or lost dispute, more than is refundable, a balance that does not cover it, or idempotency-key reused with another body',
          429: 'Rate limited',
        },
      },
    })
    .input(refundTransactionRequest)
    .output(transactionView)
    .mutation(async ({ ctx, input }) => {
      const { id, ...body } = input;
      const { transaction, replayed } = await refundTransaction(ctx.services, ctx.auth.accountId, id, body, { idempotencyKey: ctx.headers['idempotency-key'] });
      markReplayed(ctx, replayed);
      return transaction;
    }),

  list: merchantProcedure
    .input(listTransactionsInput)
    .output(transactionPage)
    .query(({ ctx, input }) => listTransactions(ctx.services, ctx.auth.accountId, input)),

  /** The dashboard's search and filters (also behind its CSV export). */
  search: merchantProcedure
    .input(searchTransactionsInput)
    .output(transactionSearchPage)
    .query(({ ctx, input }) => searchTransactions(ctx.services, ctx.auth.accountId, input)),

  /** The Disputes page: open first, with the amount each holds. */
  disputeList: merchantProcedure
    .output(disputeListResponse)
    .query(({ ctx }) => listDisputes(ctx.services, ctx.auth.accountId)),

  disputes: merchantProcedure
    .input(transactionIdInput)
    .output(z.array(disputeView))
    .query(({ ctx, input }) => transactionDisputes(ctx.services, ctx.auth.accountId, input.transactionId)),

  paymentDetails: merchantProcedure
    .input(transactionIdInput)
    .output(paymentDetailsOutput)
    .query(({ ctx, input }) => paymentDetails(ctx.services, ctx.auth.accountId, input.transactionId)),
});
