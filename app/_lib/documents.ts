/**
 * CPF, CNPJ and phone keys as a Brazilian reads them: the API stores digits only ("52998224725"),
 * the screen shows "529.982.247-25". Anything that is not exactly such a value is shown as stored.
 */
export function formatDocument(value: string): string {
  if (/^\d{11}$/.test(value)) return value.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
  // CNPJ, numeric or the 2026 alphanumeric form (12 alphanumerics + 2 check digits)
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return value.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, '$1.$2.$3/$4-$5');
  return value;
}

export function formatPhone(value: string): string {
  const m = /^\+55(\d{2})(\d{4,5})(\d{4})$/.exec(value);
  return m ? `+55 ${m[1]} ${m[2]}-${m[3]}` : value;
}

/** A Pix key by its type: documents and phones punctuated, e-mails and random keys as they are. */
export function formatPixKey(keyType: string, key: string): string {
  if (keyType === 'CPF' || keyType === 'CNPJ') return formatDocument(key);
  if (keyType === 'PHONE') return formatPhone(key);
  return key;
}

/**
 * A boleto's 47-digit digitable line in the groups printed on the slip and typed at a bank:
 * "23790.12301 60000.000053 25000.456704 9 68760000028990". Anything else is shown as stored.
 */
export function formatDigitableLine(line: string): string {
  const m = /^(\d{5})(\d{5})(\d{5})(\d{6})(\d{5})(\d{6})(\d)(\d{14})$/.exec(line);
  return m ? `${m[1]}.${m[2]} ${m[3]}.${m[4]} ${m[5]}.${m[6]} ${m[7]} ${m[8]}` : line;
}
