import { z } from 'zod';
import { issueAccessTokenLimited, revokeAccessToken } from '../../domain/accounts';
import { DomainError } from '../../errors';
import { merchantProcedure, publicProcedure, router } from '../../trpc';
import { revokeResponse, tokenRequest, tokenResponse } from './schemas';

export const authRouter = router({
  token: publicProcedure
    .meta({ auth: 'none', envelope: 'payments', openapi: { method: 'POST', path: '/auth/token', protect: false, tags: ['auth'], summary: 'Exchange the client code and token for an access token', errorResponses: { 400: 'Invalid input', 401: 'Wrong code or token', 429: 'Too many failed attempts' } } })
    .input(tokenRequest)
    .output(tokenResponse)
    .mutation(async ({ ctx, input }) => {
      return issueAccessTokenLimited(ctx.services, input.code, input.token, ctx.ip);
    }),

  revoke: merchantProcedure
    .meta({ auth: 'bearer', envelope: 'payments', openapi: { method: 'POST', path: '/auth/revoke', tags: ['auth'], summary: 'Revoke the access token used to call this endpoint', errorResponses: { 401: 'Missing or invalid access token' } } })
    .input(z.strictObject({}).optional())
    .output(revokeResponse)
    .mutation(async ({ ctx }) => {
      if (!ctx.auth.token) throw new DomainError('VALIDATION', 'only a bearer access token can be revoked');
      return { revoked: await revokeAccessToken(ctx.services, ctx.auth.token) };
    }),
});
