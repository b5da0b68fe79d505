/** What each Pix key type looks like, for the withdrawal form's inputs (the hints are in the catalog; the API checks the rules). */
export const PIX_KEY_INPUTS = {
  CPF: { placeholder: '123.456.789-09', inputMode: 'numeric', type: 'text', autoComplete: 'off' },
  CNPJ: { placeholder: '12.345.678/0001-95', inputMode: 'text', type: 'text', autoComplete: 'off' },
  EMAIL: { placeholder: 'nome@exemplo.com.br', inputMode: 'email', type: 'email', autoComplete: 'off' },
  PHONE: { placeholder: '(11) 98765-4321', inputMode: 'tel', type: 'tel', autoComplete: 'off' },
  EVP: { placeholder: '123e4567-e89b-12d3-a456-426614174000', inputMode: 'text', type: 'text', autoComplete: 'off' },
} as const;

/**
 * A phone key as Brazilians write it — "(11) 98765-4321", "11 98765 4321", "+55 11 98765-4321",
 * "5511987654321" — in the DICT's form "+5511987654321". Only the punctuation and the country code
 * are settled here; a number that is still not a phone after that is sent as typed, so the API's rule
 * names what is wrong.
 */
export function normalizePhoneKey(typed: string): string {
  const trimmed = typed.trim();
  if (!/^\+?[\d\s().-]+$/.test(trimmed)) return trimmed;
  const digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+')) return `+${digits}`;
  if (digits.length === 10 || digits.length === 11) return `+55${digits}`;
  if ((digits.length === 12 || digits.length === 13) && digits.startsWith('55')) return `+${digits}`;
  return trimmed;
}
