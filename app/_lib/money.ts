/** Money on screen is pt-BR reais; the API speaks integer cents. */
const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** 123456 → "R$ 1.234,56" (with a plain space, so copy/paste and tests see what they expect). */
export function formatBRL(cents: number): string {
  return brl.format(cents / 100).replace(/\u00a0/g, ' ');
}

/**
 * "1.234,56" → 123456, exactly: the string is split into reais and centavos and read as integers,
 * never through a float. Accepts an optional "R$", thousands dots, and a comma with up to two
 * decimals ("10", "10,5", "1.234,56"). Returns null for anything else.
 */
export function parseBRL(text: string): number | null {
  const t = text.replace(/\s|\u00a0/g, '').replace(/^R\$/i, '');
  const m = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/.exec(t);
  if (!m) return null;
  const reais = m[1].replace(/\./g, '').replace(/^0+(?=\d)/, '');
  const centavos = (m[2] ?? '').padEnd(2, '0');
  if (reais.length > 13) return null; // beyond any amount the API accepts; keeps the number exact
  const cents = Number(reais) * 100 + Number(centavos);
  return Number.isSafeInteger(cents) ? cents : null;
}

/** 123456 → "1.234,56", for putting a value back into an input. */
export function centsToInput(cents: number): string {
  return formatBRL(cents).replace(/^-?R\$\s?/, '');
}
