import { z } from 'zod';
import { PIX_KEY_TYPES } from '../../../contract/enums';
import type { PixKeyView } from '../../domain/pix-api/keys';
import { describes } from '../common';

export const pixKeyView = describes<PixKeyView>()(z.object({
  id: z.string(),
  key: z.string().describe('The key in its canonical spelling (digits only for CPF/CNPJ, +55… for a phone, lower-case e-mail or UUID)'),
  key_type: z.enum(PIX_KEY_TYPES),
  created_at: z.string(),
}));

export const pixKeyList = z.object({ data: z.array(pixKeyView) });

export const addPixKeyInput = z.strictObject({
  key_type: z.enum(PIX_KEY_TYPES, { error: `must be one of ${PIX_KEY_TYPES.join(', ')}` }),
  key: z.string({ error: 'must be a string' }).max(100, 'at most 100 characters').optional()
    .describe('The CPF, CNPJ, e-mail or phone (+55…); none for an EVP, which is generated'),
});

export const removePixKeyInput = z.strictObject({ id: z.string({ error: 'must be a string' }).min(1).max(64) });
export const removePixKeyResponse = z.object({ removed: pixKeyView });
