import { z } from 'zod';

/**
 * The rules of a dashboard person's email and password, in one place: the sign-in form, the procedures,
 * `npm run account:create` and the password change all check with these schemas, so an account can never
 * be given an email or a password its owner cannot sign in with (one rule for both). Pure zod: the pages
 * load it too.
 */
export const dashboardEmail = z.string({ error: 'is required' }).trim().toLowerCase()
  .min(1, 'is required').max(254, 'at most 254 characters').email('must be an email address');

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/** A password being set (account creation, password change). */
export const newPassword = z.string({ error: 'is required' })
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`);

/** A password being presented (sign-in, or confirming a sensitive action): any length a password can have. */
export const presentedPassword = z.string({ error: 'is required' })
  .min(1, 'is required').max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`);
