import type { useTranslations } from 'next-intl';
import { formatBRL } from './money';

type ValidationT = ReturnType<typeof useTranslations<'validation'>>;

/**
 * The API's field messages are English (REST callers read them); the dashboard shows them in the
 * person's language. Each known message, matched by its wording, maps to a catalog entry; a message
 * not listed here is shown as the API wrote it rather than hidden.
 */
const RULES: [RegExp, (t: ValidationT, m: RegExpExecArray) => string][] = [
  [/^(is required|must not be empty|header is required)$/, (t) => t('required')],
  [/^must be a string$/, (t) => t('mustBeText')],
  [/^(must be an email address|not a valid e-mail address)$/, (t) => t('email')],
  [/^at most (\d+) characters$/, (t, m) => t('maxChars', { max: Number(m[1]) })],
  [/^at least (\d+) characters$/, (t, m) => t('minChars', { min: Number(m[1]) })],
  [/^must differ from the current password$/, (t) => t('samePassword')],
  [/^must be an http or https URL$/, (t) => t('url')],
  [/^(must be a valid CPF .*|not a valid CPF or CNPJ.*)$/, (t) => t('document')],
  [/^(key: )?not a valid CPF/, (t) => t('cpf')],
  [/^(key: )?not a valid CNPJ/, (t) => t('cnpj')],
  [/^(key: )?(must be a phone number|a phone key has only digits)/, (t) => t('phone')],
  [/^(key: )?not a valid area code/, (t) => t('areaCode')],
  [/^(key: )?a phone number has 8 or 9 digits/, (t) => t('phoneLength')],
  [/^(key: )?not a valid random key/, (t) => t('evp')],
  [/^must be an ISO 8601/, (t) => t('date')],
  [/^(must have at least one item|must be a list of items)$/, (t) => t('items')],
  [/^must be (two|four|3 or 4) digits$/, (t, m) => t('digits', { digits: m[1] === 'two' ? '2' : m[1] === 'four' ? '4' : '3–4' })],
  [/^must be 8 digits$/, (t) => t('digits', { digits: '8' })],
  [/^a CPF has 11 digits and a CNPJ 14 characters$/, (t) => t('documentFormat')],
  [/^is required when method is CARD$/, (t) => t('requiredForCard')],
  [/^is only accepted when method is CARD$/, (t) => t('onlyForCard')],
  [/^unknown field$/, (t) => t('unknownField')],
  [/^must be an integer( number of cents)?$/, (t) => t('integer')],
  [/^must be at least 1 cent$/, (t) => t('amountPositive')],
  [/^must be at most (\d+) cents/, (t, m) => t('amountMax', { amount: formatBRL(Number(m[1])) })],
  [/^must equal the sum of items.*\((\d+)\)$/, (t, m) => t('sumMismatch', { amount: formatBRL(Number(m[1])) })],
  [/^already used by another/, (t) => t('alreadyUsed')],
  [/^must list at least one of/, (t) => t('eventsRequired')],
  [/^(key_type: )?must be one of/, (t) => t('oneOf')],
];

export function fieldMessage(t: ValidationT, message: string): string {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(message);
    if (m) return say(t, m);
  }
  return message;
}
