import { z } from 'zod';
import { developerCredentials, overview, postbackSecret, rotateToken } from '../../domain/dashboard';
import { dashboardProcedure, router } from '../../trpc';
import { developersResponse, overviewResponse, postbackSecretResponse, rotateTokenResponse } from './schemas';

/** Reads and actions only a signed-in person has (no REST path, no bearer access). */
export const dashboardRouter = router({
  overview: dashboardProcedure.output(overviewResponse).query(({ ctx }) => overview(ctx.services, ctx.auth.accountId)),
  developers: dashboardProcedure.output(developersResponse).query(({ ctx }) => developerCredentials(ctx.services, ctx.auth.accountId)),
  postbackSecret: dashboardProcedure.output(postbackSecretResponse).query(({ ctx }) => postbackSecret(ctx.services, ctx.auth.accountId)),
  rotateToken: dashboardProcedure.input(z.strictObject({}).optional()).output(rotateTokenResponse)
    .mutation(({ ctx }) => rotateToken(ctx.services, ctx.auth.accountId)),
});
