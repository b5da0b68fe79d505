// Brazilian taxpayer documents: CPF (people) and CNPJ (companies), including the alphanumeric CNPJ
// that the Receita Federal issues from July 2026 (IN RFB 2.229/2024).

export type DocumentKind = 'CPF' | 'CNPJ';

/** Drops the punctuation people type (`.`, `-`, `/`, spaces) and upper-cases CNPJ letters. */
export function normalizeDocument(s: string): string {
  return s.replace(/[.\-/\s]/g, '').toUpperCase();
}

// Mod-11 check digit shared by CPF and CNPJ: a remainder of 0 or 1 gives 0.
function checkDigit(values: readonly number[], weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += values[i] * weights[i];
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

const CPF_WEIGHTS_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_WEIGHTS_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];

/** Why `s` is not a CPF, in words (for error messages), or null when it is one. */
export function cpfProblem(s: string): string | null {
  const cpf = normalizeDocument(s);
  if (!/^\d{11}$/.test(cpf)) return 'expected 11 digits';
  // Sequences like 111.111.111-11 pass the arithmetic but are never issued.
  if (/^(\d)\1{10}$/.test(cpf)) return 'all digits are the same';
  const digits = [...cpf].map(Number);
  const first = checkDigit(digits, CPF_WEIGHTS_1);
  const second = checkDigit(digits, CPF_WEIGHTS_2);
  if (digits[9] !== first || digits[10] !== second) return 'check digits do not match';
  return null;
}

const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** Why `s` is not a CNPJ (numeric or alphanumeric), in words, or null when it is one. */
export function cnpjProblem(s: string): string | null {
  const cnpj = normalizeDocument(s);
  if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj)) {
    return 'expected 14 characters: 12 letters or digits, then 2 check digits';
  }
  // 00.000.000/0000-00 and the like pass the arithmetic but are never issued.
  if (/^(.)\1{13}$/.test(cnpj)) return 'all characters are the same';
  // The 2026 rule values each character as its ASCII code minus 48, so digits keep their value
  // and A..Z become 17..42; for an all-digit CNPJ this is the classic algorithm.
  const values = [...cnpj].map((c) => c.charCodeAt(0) - 48);
  const first = checkDigit(values, CNPJ_WEIGHTS_1);
  const second = checkDigit(values, CNPJ_WEIGHTS_2);
  if (values[12] !== first || values[13] !== second) return 'check digits do not match';
  return null;
}

/** The CPF whose first nine digits are `base`: its two check digits appended. */
export function cpfWithCheckDigits(base: string): string {
  if (!/^\d{9}$/.test(base)) throw new Error('a CPF base is 9 digits');
  const digits = [...base].map(Number);
  digits.push(checkDigit(digits, CPF_WEIGHTS_1));
  digits.push(checkDigit(digits, CPF_WEIGHTS_2));
  return digits.join('');
}

/** The CNPJ whose first twelve characters are `base` (digits, or the 2026 letters): check digits appended. */
export function cnpjWithCheckDigits(base: string): string {
  if (!/^[0-9A-Z]{12}$/.test(base)) throw new Error('a CNPJ base is 12 letters or digits');
  const values = [...base].map((c) => c.charCodeAt(0) - 48);
  const first = checkDigit(values, CNPJ_WEIGHTS_1);
  const second = checkDigit([...values, first], CNPJ_WEIGHTS_2);
  return `${base}${first}${second}`;
}

/**
 * A document as the Pix network shows it to a payer before paying: the middle digits only, as the
 * BCB's DICT rules mask them (`***.982.247-**`, `**.345.678/0001-**`). Pass a normalised CPF or CNPJ.
 */
export function maskDocument(document: string): string {
  const d = normalizeDocument(document);
  if (d.length === 11) return `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
  if (d.length === 14) return `**.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-**`;
  throw new Error('maskDocument: not a CPF or CNPJ');
}

export function isValidCpf(s: string): boolean {
  return cpfProblem(s) === null;
}

export function isValidCnpj(s: string): boolean {
  return cnpjProblem(s) === null;
}

/** The kind of a valid document, after normalisation; null when it is neither a valid CPF nor CNPJ. */
export function documentKind(s: string): DocumentKind | null {
  if (isValidCpf(s)) return 'CPF';
  if (isValidCnpj(s)) return 'CNPJ';
  return null;
}
