import { z } from 'zod';
import { getAccount } from '../../domain/accounts';
import { signedInUser } from '../../domain/dashboard';
import { parseCookies, SESSION_COOKIE, signInLimited, signOut } from '../../domain/sessions';
import { dashboardProcedure, publicProcedure, router } from '../../trpc';
import { clearedSessionCookies, cookiesAreSecure, sessionCookies } from './cookies';
import { sessionUser, signInRequest, signOutResponse } from './schemas';

export const sessionRouter = router({
  /** Email + password → httpOnly session cookie and a readable CSRF cookie. */
  signIn: publicProcedure
    .input(signInRequest)
    .output(sessionUser)
    .mutation(async ({ ctx, input }) => {
      const s = ctx.services;
      const session = await signInLimited(s, input.email, input.password, ctx.ip);
      const maxAgeSeconds = Math.max(0, Math.floor((session.expiresAt.getTime() - s.clock.now().getTime()) / 1000));
      for (const c of sessionCookies({
        sessionToken: session.sessionToken, csrfToken: session.csrfToken, maxAgeSeconds, secure: cookiesAreSecure(s.config, ctx.https),
      })) ctx.resHeaders.append('set-cookie', c);
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
      for (const c of clearedSessionCookies(cookiesAreSecure(ctx.services.config, ctx.https))) ctx.resHeaders.append('set-cookie', c);
      return { signed_out: true as const };
    }),

  /** Who is signed in. */
  me: dashboardProcedure.output(sessionUser).query(({ ctx }) => signedInUser(ctx.services, ctx.auth)),
});
