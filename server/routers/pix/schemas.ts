import { z } from 'zod';
import { PIX_KEY_TYPES } from '../../domain/enums';
import { checkPixKey, pixKeyField, pixKeyTypeField } from '../withdrawals/schemas';

/** The zod contract of GET /pix/keys (docs/decisions.md "Pix key lookup and receipts"). */

export const pixKeyLookupInput = z.strictObject({
  key: pixKeyField.describe('The Pix key to look up (CPF/CNPJ punctuated or not, phone as +55…)'),
  key_type: pixKeyTypeField,
}).superRefine(checkPixKey);

export const pixKeyLookupResponse = z.object({
  key: z.string().describe('The key as the directory stores it (normalised)'),
  key_type: z.enum(PIX_KEY_TYPES),
  holder: z.object({
    name: z.string().describe('Name of the key holder'),
    document_masked: z.string().describe('CPF or CNPJ with only the middle digits shown: ***.982.247-** or **.345.678/0001-**'),
  }),
  bank: z.object({
    name: z.string().describe("Institution of the holder's account"),
    ispb: z.string().describe('8-digit ISPB of that institution'),
  }),
  timestamp: z.string().describe('Time of the lookup (ISO 8601)'),
});

export type PixKeyLookupInput = z.infer<typeof pixKeyLookupInput>;
