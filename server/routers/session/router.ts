import { z } from 'zod';
import { getAccount } from '../../domain/accounts';
import { signedInUser } from '../../domain/dashboard';
import { DomainError } from '../../errors';
import { userAgentOf } from '../../domain/audit-trail';
import { changePassword, listSessions, parseCookies, setUserLocale, signInLimited, signOut, signOutEverywhere } from '../../domain/sessions';
import { SESSION_COOKIE } from '../../../contract/session';
import { dashboardProcedure, personProcedure, publicProcedure, router } from '../../trpc';
import { clearedSessionCookies, cookiesAreSecure, localeCookie, sessionCookies } from './cookies';
import {
  changePasswordRequest, sessionList, sessionsEnded, sessionUser, signInRequest, signOutEverywhereRequest, signOutResponse, userSettings,
} from './schemas';

export const sessionRouter = router({
  /** Email + password → httpOnly session cookie and a readable CSRF cookie. */
  signIn: publicProcedure
    .input(signInRequest)
    .output(sessionUser)
    .mutation(async ({ ctx, input }) => {
      const s = ctx.services;
      const session = await signInLimited(s, input.email, input.password, { clientAddress: ctx.ip, userAgent: userAgentOf(ctx.headers['user-agent']) });
      const maxAgeSeconds = Math.max(0, Math.floor((session.expiresAt.getTime() - s.clock.now().getTime()) / 1000));
      const secure = cookiesAreSecure(s.config, ctx.https);
      for (const c of [
        ...sessionCookies({ sessionToken: session.sessionToken, csrfToken: session.csrfToken, maxAgeSeconds, secure }),
        localeCookie(session.locale, secure),
      ]) ctx.resHeaders.append('set-cookie', c);
      const account = await getAccount(s, session.accountId);
      return { email: session.email, account_id: account.id, account_name: account.name, expires_at: session.expiresAt.toISOString(), locale: session.locale };
    }),

  /** Revokes the session (CSRF-checked like every dashboard mutation) and clears both cookies. */
  signOut: dashboardProcedure
    .input(z.strictObject({}).optional())
    .output(signOutResponse)
    .mutation(async ({ ctx }) => {
      const token = parseCookies(ctx.headers.cookie)[SESSION_COOKIE];
      if (token) await signOut(ctx.services, token, ctx.services.clock.now());
      for (const c of clearedSessionCookies(cookiesAreSecure(ctx.services.config, ctx.https))) ctx.resHeaders.append('set-cookie', c);
      return { signed_out: true as const };
    }),

  /** The signed-in person's settings (their dashboard language); kept on their user, for every session. */
  updateSettings: dashboardProcedure
    .input(userSettings)
    .output(userSettings)
    .mutation(async ({ ctx, input }) => {
      const userId = ctx.auth.userId;
      if (!userId) throw new DomainError('FORBIDDEN', 'settings belong to a signed-in person');
      await setUserLocale(ctx.services, userId, input.locale);
      ctx.resHeaders.append('set-cookie', localeCookie(input.locale, cookiesAreSecure(ctx.services.config, ctx.https)));
      return { locale: input.locale };
    }),

  /** Ends every other session of this person (this one stays), after the password. */
  signOutEverywhere: personProcedure
    .input(signOutEverywhereRequest)
    .output(sessionsEnded)
    .mutation(({ ctx, input }) => signOutEverywhere(ctx.services, ctx.actor, input.password)),

  /** A new password after the current one; every other session of this person ends. */
  changePassword: personProcedure
    .input(changePasswordRequest)
    .output(sessionsEnded)
    .mutation(({ ctx, input }) => changePassword(ctx.services, ctx.actor, input.password, input.new_password)),

  /** This person's live sessions: where each signed in, and when it was last seen. */
  sessions: personProcedure.output(sessionList).query(({ ctx }) => listSessions(ctx.services, ctx.actor)),

  /** Who is signed in. */
  me: dashboardProcedure.output(sessionUser).query(({ ctx }) => signedInUser(ctx.services, ctx.auth)),
});
