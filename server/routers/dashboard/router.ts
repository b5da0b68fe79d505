import { developerCredentials, overview, pixApiCredentials, postbackSecret, rotatePixSecret, rotateToken } from '../../domain/dashboard';
import { listAuditTrail } from '../../domain/audit-trail';
import { dashboardProcedure, personProcedure, router } from '../../trpc';
import {
  auditTrailRequest, auditTrailResponse, developersResponse, overviewResponse, passwordConfirmation, pixApiCredentialsResponse, postbackSecretResponse,
  rotatePixSecretResponse, rotateTokenResponse,
} from './schemas';

/** Reads and actions only a signed-in person has (no REST path, no bearer access). */
export const dashboardRouter = router({
  overview: dashboardProcedure.output(overviewResponse).query(({ ctx }) => overview(ctx.services, ctx.auth.accountId)),
  // code and api_key are public halves (docs/decisions.md "Accounts and credentials"): no password to read them
  developers: dashboardProcedure.output(developersResponse).query(({ ctx }) => developerCredentials(ctx.services, ctx.auth.accountId)),
  /** A mutation, not a query: the password must not travel in a URL, and the reveal is recorded. */
  postbackSecret: personProcedure.input(passwordConfirmation).output(postbackSecretResponse)
    .mutation(({ ctx, input }) => postbackSecret(ctx.services, ctx.actor, input.password)),
  rotateToken: personProcedure.input(passwordConfirmation).output(rotateTokenResponse)
    .mutation(({ ctx, input }) => rotateToken(ctx.services, ctx.actor, input.password)),
  /** The API Pix client's public id and scopes. */
  pixApiCredentials: dashboardProcedure.output(pixApiCredentialsResponse).query(({ ctx }) => pixApiCredentials(ctx.services, ctx.auth.accountId)),
  /** A new API Pix client secret, shown once; after the password, recorded. */
  rotatePixSecret: personProcedure.input(passwordConfirmation).output(rotatePixSecretResponse)
    .mutation(({ ctx, input }) => rotatePixSecret(ctx.services, ctx.actor, input.password)),
  /** The account's audit trail, newest first. */
  auditTrail: dashboardProcedure.input(auditTrailRequest).output(auditTrailResponse)
    .query(({ ctx, input }) => listAuditTrail(ctx.services, ctx.auth.accountId, { cursor: input?.cursor, limit: input?.limit })),
});
