import { initTRPC } from '@trpc/server';
import { noteAccount } from './observability/request-context';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context';
import { DomainError, toTRPCError } from './errors';
import { presentTrpcErrorData, type Envelope } from './http/presenter';
import type { PixApiRoute } from './domain/pix-api/problem';
import { accountForAccessToken, accountForApiKey } from './domain/accounts';
import { pixApiPrincipal, requireScope } from './domain/pix-api/oauth';
import type { PixApiScope } from '../contract/enums';
import { checkCsrf, noteSessionSeen, parseCookies, sessionFor } from './domain/sessions';
import { CSRF_HEADER, SESSION_COOKIE } from '../contract/session';
import { userAgentOf, type DashboardActor } from './domain/audit-trail';

/**
 * Extra meta of a REST procedure: its success status (trpc-to-openapi's document says 200 otherwise),
 * its credentials, and the error envelope it answers in. `envelope` is required of every procedure with
 * `openapi` meta: the REST adapter refuses to start without it.
 */
export type Meta = OpenApiMeta<{
  successStatus?: number; auth?: 'none' | 'bearer' | 'webhook-api' | 'session'; envelope?: Envelope;
  /** A body the contract fixes for one status of this operation (in components.schemas), besides the envelope. */
  restErrorBodies?: Partial<Record<number, 'WithdrawFail'>>;
  /** On the /v2 surface (envelope 'pix-api'): the problem type of a refused request and the resource named in violacoes. */
  pixApi?: PixApiRoute;
}>;

const t = initTRPC.context<Context>().meta<Meta>().create({
  // the presenter of the REST edge shapes tRPC's error data too; never internals (stack, SQL)
  errorFormatter: ({ shape, error }) => ({ ...shape, ...presentTrpcErrorData(error, shape.data.path) }),
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every error leaves a procedure as a TRPCError carrying its DomainError, whatever threw it. */
const errorBoundary = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

export const publicProcedure = t.procedure.use(errorBoundary);

async function rateLimit(ctx: Context, accountId: string) {
  const wait = await ctx.services.limits.perAccount.take(accountId);
  if (wait !== null) throw new DomainError('RATE_LIMITED', 'too many requests for this account', { retryAfterSeconds: wait });
}

async function fromSession(ctx: Context, type: string) {
  const cookie = parseCookies(ctx.headers.cookie)[SESSION_COOKIE];
  if (!cookie) return null;
  const session = await sessionFor(ctx.services, cookie, ctx.services.clock.now());
  if (!session) return null;
  if (type === 'mutation') checkCsrf(session, ctx.headers[CSRF_HEADER]);
  await noteSessionSeen(ctx.services, session);
  return { kind: 'session' as const, accountId: session.accountId, userId: session.userId, sessionId: session.sessionId, email: session.email };
}

/**
 * Who calls a payments path: `Authorization: Bearer <access_token>`, or a dashboard session; null
 * when neither is sent. Exported for routes outside tRPC that act through the procedures (CSV export).
 */
export async function merchantAuth(ctx: Context, type: string): Promise<Context['auth']> {
  let auth = ctx.auth;
  if (!auth) {
    const header = ctx.headers.authorization;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (m) {
      const accountId = await accountForAccessToken(ctx.services, m[1], ctx.services.clock.now());
      if (!accountId) throw new DomainError('UNAUTHORIZED', 'invalid or expired access token');
      auth = { kind: 'bearer', accountId, token: m[1] };
    } else {
      auth = await fromSession(ctx, type);
    }
  }
  return auth;
}

/** Payments paths: `Authorization: Bearer <access_token>`, or a dashboard session. */
export const merchantProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  const auth = await merchantAuth(ctx, type);
  if (!auth) throw new DomainError('UNAUTHORIZED', 'send Authorization: Bearer <access_token>');
  noteAccount(ctx.request, auth.accountId);
  await rateLimit(ctx, auth.accountId);
  return next({ ctx: { ...ctx, auth } });
});

/** The webhook API: `x-api-key` + `x-token` of the same account, or a dashboard session. */
export const webhookApiProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  let auth = ctx.auth;
  if (!auth) {
    const apiKey = ctx.headers['x-api-key'];
    const token = ctx.headers['x-token'];
    if (apiKey && token) {
      const accountId = await accountForApiKey(ctx.services, apiKey, token, ctx.services.clock.now());
      if (!accountId) throw new DomainError('UNAUTHORIZED', 'invalid x-api-key or x-token');
      auth = { kind: 'webhook-api', accountId, token };
    } else {
      auth = await fromSession(ctx, type);
    }
  }
  if (!auth) throw new DomainError('UNAUTHORIZED', 'send x-api-key and x-token');
  noteAccount(ctx.request, auth.accountId);
  await rateLimit(ctx, auth.accountId);
  return next({ ctx: { ...ctx, auth } });
});

/**
 * The Banco Central's API Pix (/v2) and the same operations for TypeScript services and the dashboard:
 * an API Pix token (`Authorization: Bearer`, POST /oauth/token) that carries `scope`, or a dashboard
 * session (a person acts for the account with every scope). A token without the scope is 403
 * AcessoNegado; a missing or unknown token is 401.
 */
export function pixApiProcedure(scope: PixApiScope) {
  return publicProcedure.use(async ({ ctx, type, next }) => {
    let auth = ctx.auth;
    if (!auth) {
      const principal = await pixApiPrincipal(ctx.services, ctx.headers.authorization);
      if (principal) {
        requireScope(principal, scope);
        auth = { kind: 'pix-api', accountId: principal.accountId };
      } else if (ctx.headers.authorization) {
        throw new DomainError('UNAUTHORIZED', 'invalid or expired access token: get one at POST /oauth/token');
      } else {
        auth = await fromSession(ctx, type);
      }
    }
    if (!auth) throw new DomainError('UNAUTHORIZED', 'send Authorization: Bearer <token from POST /oauth/token>');
    noteAccount(ctx.request, auth.accountId);
    await rateLimit(ctx, auth.accountId);
    return next({ ctx: { ...ctx, auth } });
  });
}

/** Dashboard-only procedures: a signed-in person. */
export const dashboardProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  const auth = ctx.auth ?? (await fromSession(ctx, type));
  if (!auth) throw new DomainError('UNAUTHORIZED', 'sign in first');
  noteAccount(ctx.request, auth.accountId);
  return next({ ctx: { ...ctx, auth } });
});

/**
 * A signed-in person through their session (not an account a test or a bearer token stands for): what
 * password confirmations, the audit trail and "every other session" need. `ctx.actor` says who and from where.
 */
export const personProcedure = dashboardProcedure.use(({ ctx, next }) => {
  const { auth } = ctx;
  if (auth.kind !== 'session' || !auth.userId || !auth.sessionId || auth.email === undefined) {
    throw new DomainError('FORBIDDEN', 'only a signed-in person can do this');
  }
  const actor: DashboardActor = {
    accountId: auth.accountId, userId: auth.userId, sessionId: auth.sessionId, email: auth.email,
    clientAddress: ctx.ip, userAgent: userAgentOf(ctx.headers['user-agent']),
  };
  return next({ ctx: { ...ctx, actor } });
});

export type AuthedContext = Context & { auth: NonNullable<Context['auth']> };

/**
 * A replayed idempotent answer goes out with `idempotent-replayed: true` (its status is the
 * operation's success status, as the first time).
 */
export function markReplayed(ctx: Context, replayed: boolean) {
  if (replayed) ctx.resHeaders.set('idempotent-replayed', 'true');
}
