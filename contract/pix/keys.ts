// Pix keys as the DICT (the BCB's key directory) stores them: one canonical spelling per key, so
// the same key typed two ways is the same key.
import { cnpjProblem, cpfProblem, normalizeDocument } from './documents';


export { PIX_KEY_TYPES, type PixKeyType } from '../enums';
import { PIX_KEY_TYPES, type PixKeyType } from '../enums';

export type PixKeyResult = { ok: true; key: string } | { ok: false; message: string };

// The DICT's limit for e-mail keys.
export const MAX_EMAIL_KEY_LENGTH = 77;

// Local part: the characters RFC 5322 allows unquoted, dot-separated (no leading, trailing or
// doubled dots). Domain: at least two labels of letters, digits and inner hyphens, ending in a
// letters-only top-level domain. Stricter than RFC 5322 on purpose: a typo should fail here, not
// after the money has left.
const EMAIL_PATTERN =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function fail(message: string): PixKeyResult {
  return { ok: false, message: `key: ${message}` };
}

function normalizeCpfKey(key: string): PixKeyResult {
  const problem = cpfProblem(key);
  return problem ? fail(`not a valid CPF (${problem})`) : { ok: true, key: normalizeDocument(key) };
}

function normalizeCnpjKey(key: string): PixKeyResult {
  const problem = cnpjProblem(key);
  return problem ? fail(`not a valid CNPJ (${problem})`) : { ok: true, key: normalizeDocument(key) };
}

function normalizeEmailKey(key: string): PixKeyResult {
  const email = key.trim().toLowerCase();
  if (email.length > MAX_EMAIL_KEY_LENGTH) {
    return fail(`an e-mail key has at most ${MAX_EMAIL_KEY_LENGTH} characters (got ${email.length})`);
  }
  if (!EMAIL_PATTERN.test(email)) return fail('not a valid e-mail address');
  return { ok: true, key: email };
}

function normalizePhoneKey(key: string): PixKeyResult {
  const phone = key.replace(/[\s()-]/g, '');
  if (!phone.startsWith('+55')) return fail('a phone key starts with +55 (Brazil country code)');
  const national = phone.slice(3);
  if (!/^\d+$/.test(national)) {
    return fail('a phone key has only digits after +55 (spaces, dashes and parentheses are allowed)');
  }
  const areaCode = national.slice(0, 2);
  const subscriber = national.slice(2);
  // No Brazilian area code (DDD) contains a 0.
  if (!/^[1-9]{2}$/.test(areaCode)) return fail('not a valid area code (two digits from 11 to 99, no 0)');
  if (subscriber.length === 9) {
    // Every 9-digit number is a mobile, and mobiles gained a leading 9 in 2016.
    if (!subscriber.startsWith('9')) return fail('a 9-digit phone number starts with 9');
  } else if (subscriber.length !== 8) {
    return fail('a phone number has 8 or 9 digits after the area code');
  }
  return { ok: true, key: `+55${areaCode}${subscriber}` };
}

function normalizeEvpKey(key: string): PixKeyResult {
  const evp = key.trim().toLowerCase();
  if (!UUID_PATTERN.test(evp)) return fail('not a valid random key (EVP): expected a UUID');
  return { ok: true, key: evp };
}

/**
 * Checks a key against the rules of its type and returns its canonical spelling; messages start
 * with "key: " and name the rule that failed, ready for a 400 response.
 */
export function normalizePixKey(type: PixKeyType, key: string): PixKeyResult {
  switch (type) {
    case 'CPF':
      return normalizeCpfKey(key);
    case 'CNPJ':
      return normalizeCnpjKey(key);
    case 'EMAIL':
      return normalizeEmailKey(key);
    case 'PHONE':
      return normalizePhoneKey(key);
    case 'EVP':
      return normalizeEvpKey(key);
    default:
      // Reachable only from untyped callers; the schema should have refused the type already.
      return { ok: false, message: `key_type: must be one of ${PIX_KEY_TYPES.join(', ')}` };
  }
}
