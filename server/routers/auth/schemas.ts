import { z } from 'zod';
import { boundedString } from '../common';

export const tokenRequest = z.strictObject({
  code: boundedString(200).describe('Public client code of the account'),
  token: boundedString(200).describe('Client secret token'),
});

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds until the access token expires'),
});

export const revokeResponse = z.object({ revoked: z.boolean() });

export const signInRequest = z.strictObject({
  email: z.string().trim().toLowerCase().email('must be an email address').max(254),
  password: z.string().min(1, 'is required').max(200),
});
