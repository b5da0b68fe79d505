import { z } from 'zod';
import { DASHBOARD_LOCALES } from '../../../contract/enums';
import type { SessionView } from '../../domain/sessions';
import { dashboardEmail, newPassword, presentedPassword } from '../../domain/sign-in-rules';
import { describes } from '../common';

/** The sign-in form and the procedure validate with this same schema. */
export const signInRequest = z.strictObject({
  email: dashboardEmail,
  password: presentedPassword,
});
export type SignInRequest = z.input<typeof signInRequest>;

export const sessionUser = z.object({
  email: z.string(),
  account_id: z.string(),
  account_name: z.string(),
  expires_at: z.string().nullable(),
  /** The dashboard's language for this person. */
  locale: z.enum(DASHBOARD_LOCALES),
});

/** The person's own dashboard settings. */
export const userSettings = z.strictObject({
  locale: z.enum(DASHBOARD_LOCALES, { error: `must be one of ${DASHBOARD_LOCALES.join(', ')}` }),
});

export const signOutResponse = z.object({ signed_out: z.literal(true) });

/** Sign out everywhere: the password again, so a stolen session cannot throw its owner out. */
export const signOutEverywhereRequest = z.strictObject({
  password: presentedPassword.describe('The signed-in person\'s dashboard password'),
});
export const sessionsEnded = z.object({ ended_sessions: z.number().int().describe('How many other sessions ended') });

/** The form and the procedure check the new password with the rule of account:create. */
export const changePasswordRequest = z.strictObject({
  password: presentedPassword.describe('The current password'),
  new_password: newPassword,
});
export type ChangePasswordRequest = z.input<typeof changePasswordRequest>;

export const sessionList = z.object({
  data: z.array(describes<SessionView>()(z.object({
    current: z.boolean().describe('The session this request came with'),
    client_address: z.string().nullable().describe('Where it signed in (null for sessions opened before 0.2)'),
    user_agent: z.string().nullable(),
    created_at: z.string(),
    last_seen_at: z.string().nullable().describe('Refreshed at most every 5 minutes'),
    expires_at: z.string(),
  }))),
});
