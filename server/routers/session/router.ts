import { z } from 'zod';
import { getAccount } from '../../domain/accounts';
import { signedInUser } from '../../domain/dashboard';
import { parseCookies, SESSION_COOKIE, signIn, signOut } from '../../domain/sessions';
import { DomainError } from '../../errors';
import { FailureWindow } from '../../rate-limit';
import type { Services } from '../../services';
import { dashboardProcedure, publicProcedure, router } from '../../trpc';
import { clearedSessionCookies, cookiesAreSecure, sessionCookies } from './cookies';
import { sessionUser, signInRequest, signOutResponse } from './schemas';

/** Every failed sign-in costs the caller this much, so guessing is slow even below the lockout. */
export const FAILED_SIGN_IN_DELAY_MS = 250;

// Per IP, next to services.limits.failedSignInByEmail: one address trying many emails is slowed too.
const failedByIp = new WeakMap<Services, FailureWindow>();
function ipWindow(s: Services) {
  let w = failedByIp.get(s);
  if (!w) failedByIp.set(s, (w = new FailureWindow(30, 60_000)));
  return w;
}

export const sessionRouter = router({
  /** Email + password → httpOnly session cookie and a readable CSRF cookie. */
  signIn: publicProcedure
    .input(signInRequest)
    .output(sessionUser)
    .mutation(async ({ ctx, input }) => {
      const s = ctx.services;
      const wait = s.limits.failedSignInByEmail.blocked(input.email) ?? ipWindow(s).blocked(ctx.ip);
      if (wait !== null) throw new DomainError('RATE_LIMITED', `too many failed sign-ins; try again in ${wait} s`, { retryAfterSeconds: wait });
      const session = await signIn(s.db, input.email, input.password, s.clock.now());
      if (!session) {
        s.limits.failedSignInByEmail.fail(input.email);
        ipWindow(s).fail(ctx.ip);
        // nothing was written on this path: the pause holds no writer job
        await new Promise((r) => setTimeout(r, FAILED_SIGN_IN_DELAY_MS));
        throw new DomainError('UNAUTHORIZED', 'wrong email or password');
      }
      s.limits.failedSignInByEmail.reset(input.email);
      const maxAgeSeconds = Math.max(0, Math.floor((session.expiresAt.getTime() - s.clock.now().getTime()) / 1000));
      ctx.response.headers['set-cookie'] = sessionCookies({
        sessionToken: session.sessionToken, csrfToken: session.csrfToken, maxAgeSeconds, secure: cookiesAreSecure(s.config, ctx.headers),
      });
      const account = await getAccount(s.db.read, session.accountId);
      return { email: session.email, account_id: account.id, account_name: account.name, expires_at: session.expiresAt.toISOString() };
    }),

  /** Revokes the session (CSRF-checked like every dashboard mutation) and clears both cookies. */
  signOut: dashboardProcedure
    .input(z.strictObject({}).optional())
    .output(signOutResponse)
    .mutation(async ({ ctx }) => {
      const token = parseCookies(ctx.headers.cookie)[SESSION_COOKIE];
      if (token) await signOut(ctx.services.db, token, ctx.services.clock.now());
      ctx.response.headers['set-cookie'] = clearedSessionCookies(cookiesAreSecure(ctx.services.config, ctx.headers));
      return { signed_out: true as const };
    }),

  /** Who is signed in. */
  me: dashboardProcedure.output(sessionUser).query(({ ctx }) => signedInUser(ctx.services, ctx.auth)),
});
