/** What each Pix key type looks like, for the withdrawal form's hints (the API checks the rules). */
export const PIX_KEY_HINTS = {
  CPF: { label: 'CPF', placeholder: '123.456.789-09', hint: '11 digits; dots and dash are optional.', inputMode: 'numeric', type: 'text', autoComplete: 'off' },
  CNPJ: { label: 'CNPJ', placeholder: '12.345.678/0001-95', hint: '14 characters (numeric or the new alphanumeric form); punctuation is optional.', inputMode: 'text', type: 'text', autoComplete: 'off' },
  EMAIL: { label: 'Email', placeholder: 'name@example.com', hint: 'Up to 77 characters; stored in lower case.', inputMode: 'email', type: 'email', autoComplete: 'off' },
  PHONE: { label: 'Phone', placeholder: '+5511987654321', hint: '+55, the area code and the number, digits only.', inputMode: 'tel', type: 'tel', autoComplete: 'off' },
  EVP: { label: 'Random key (EVP)', placeholder: '123e4567-e89b-12d3-a456-426614174000', hint: 'The random key (UUID) the receiver got from their bank.', inputMode: 'text', type: 'text', autoComplete: 'off' },
} as const;
