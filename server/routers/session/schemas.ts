import { z } from 'zod';
import { DASHBOARD_LOCALES } from '../../../db/schema/accounts';

/** The sign-in form and the procedure validate with this same schema. */
export const signInRequest = z.strictObject({
  email: z.string({ error: 'is required' }).trim().toLowerCase().min(1, 'is required').max(254, 'at most 254 characters').email('must be an email address'),
  password: z.string({ error: 'is required' }).min(1, 'is required').max(200, 'at most 200 characters'),
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
