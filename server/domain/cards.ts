// Card checks done before a charge, and the sandbox acquirer's answer. The full number and the CVV
// only pass through here: the one thing kept is cardSummary's brand, last 4 digits and holder name.

export type CardBrand = 'VISA' | 'MASTERCARD' | 'AMEX' | 'ELO' | 'HIPERCARD';

export interface CardInput {
  number: string;
  holder_name: string;
  expiration_month: string;
  expiration_year: string;
  cvv: string;
}

export interface CardProblem {
  /** Where in the request body, e.g. "card.number". */
  path: string;
  /** Readable, without the path (the caller puts them together). */
  message: string;
}

export interface CardSummary {
  brand: CardBrand;
  last4: string;
  holder_name: string;
}

export type SandboxCardOutcome = 'APPROVED' | 'REFUSED';

export const MAX_HOLDER_NAME_LENGTH = 140;

// The sandbox acquirer's test numbers that are declined (generic decline, insufficient funds).
const SANDBOX_REFUSED_NUMBERS: ReadonlySet<string> = new Set(['4000000000000002', '4000000000009995']);

const BRAND_NAMES: Record<CardBrand, string> = {
  VISA: 'Visa',
  MASTERCARD: 'Mastercard',
  AMEX: 'American Express',
  ELO: 'Elo',
  HIPERCARD: 'Hipercard',
};

function digitsOf(number: string): string {
  return number.replace(/ /g, '');
}

/** The Luhn (mod 10) check that every card number carries in its last digit. */
export function luhnValid(number: string): boolean {
  const digits = digitsOf(number);
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

type BinRule = { from: number; to: number };

// 6-digit BIN ranges; a shorter prefix is widened to the 6-digit range it covers.
function bins(...specs: Array<string | [string, string]>): BinRule[] {
  return specs.map((spec) => {
    const [from, to] = typeof spec === 'string' ? [spec, spec] : spec;
    return { from: Number(from.padEnd(6, '0')), to: Number(to.padEnd(6, '9')) };
  });
}

const ELO_BINS = bins(
  '401178', '401179', '431274', '438935', '451416', '457393', '4576', '457631', '457632', '504175',
  ['506699', '506778'], ['509000', '509999'], '627780', '636297', '636368',
  ['650031', '650033'], ['650035', '650051'], ['650405', '650439'], ['650485', '650538'],
  ['650541', '650598'], ['650700', '650718'], ['650720', '650727'], ['650901', '650920'],
  ['651652', '651679'], ['655000', '655019'], ['655021', '655058'],
);

const HIPERCARD_BINS = bins(
  '606282', '384100', '384140', '384160', '637095', '637568', '637599', '637609', '637612',
);

function inBins(bin: number, rules: readonly BinRule[]): boolean {
  return rules.some((rule) => bin >= rule.from && bin <= rule.to);
}

// Brand by prefix first, so a number with a known prefix but the wrong length is no brand at all
// rather than some other brand's.
function brandByPrefix(digits: string): CardBrand | null {
  const bin = Number(digits.slice(0, 6));
  // Several Elo BINs start with 4 and would pass for Visa: the Brazilian brands go first.
  if (inBins(bin, ELO_BINS)) return 'ELO';
  if (inBins(bin, HIPERCARD_BINS)) return 'HIPERCARD';
  if (/^3[47]/.test(digits)) return 'AMEX';
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  if (digits.startsWith('4')) return 'VISA';
  return null;
}

const LENGTHS: Record<CardBrand, readonly number[]> = {
  VISA: [13, 16, 19],
  MASTERCARD: [16],
  AMEX: [15],
  ELO: [16],
  HIPERCARD: [13, 16, 19],
};

/** The brand of a card number (spaces allowed), or null when the number is no brand we accept. */
export function cardBrand(number: string): CardBrand | null {
  const digits = digitsOf(number);
  if (!/^\d{12,19}$/.test(digits)) return null;
  const brand = brandByPrefix(digits);
  return brand && LENGTHS[brand].includes(digits.length) ? brand : null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Every problem with a card, in field order; an empty list means the card can be charged. */
export function validateCard(card: CardInput, now: Date): CardProblem[] {
  const problems: CardProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ path: `card.${field}`, message });

  const number = digitsOf(text(card.number));
  let brand: CardBrand | null = null;
  if (number === '') problem('number', 'is required');
  else if (!/^\d+$/.test(number)) problem('number', 'must contain only digits');
  else if (number.length < 12 || number.length > 19) problem('number', 'must have 12 to 19 digits');
  else if (!luhnValid(number)) problem('number', 'is not a valid card number (check digit does not match)');
  else if (!(brand = cardBrand(number))) {
    problem('number', `brand not accepted (accepted: ${Object.values(BRAND_NAMES).join(', ')})`);
  }

  const holder = text(card.holder_name).trim();
  if (holder === '') problem('holder_name', 'is required');
  else if (holder.length > MAX_HOLDER_NAME_LENGTH) {
    problem('holder_name', `must be at most ${MAX_HOLDER_NAME_LENGTH} characters`);
  }

  const month = text(card.expiration_month);
  const year = text(card.expiration_year);
  const monthOk = /^(0[1-9]|1[0-2])$/.test(month);
  const yearOk = /^\d{4}$/.test(year);
  if (!monthOk) problem('expiration_month', 'must be two digits from 01 to 12');
  if (!yearOk) problem('expiration_year', 'must be four digits');
  // A card is good through the last day of its month; months are compared in UTC.
  if (monthOk && yearOk) {
    const expiry = Number(year) * 12 + Number(month);
    const current = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
    if (expiry < current) problem('expiration_year', `card expired at the end of ${month}/${year}`);
  }

  const cvv = text(card.cvv);
  if (brand === 'AMEX') {
    if (!/^\d{4}$/.test(cvv)) problem('cvv', 'must be 4 digits for American Express');
  } else if (brand) {
    if (!/^\d{3}$/.test(cvv)) problem('cvv', 'must be 3 digits');
  } else if (!/^\d{3,4}$/.test(cvv)) {
    // Brand unknown (the number already failed): check what any brand would accept.
    problem('cvv', 'must be 3 or 4 digits');
  }

  return problems;
}

/** The sandbox acquirer: two test numbers are declined, every other valid card is approved. */
export function sandboxCardOutcome(number: string): SandboxCardOutcome {
  return SANDBOX_REFUSED_NUMBERS.has(digitsOf(number)) ? 'REFUSED' : 'APPROVED';
}

/** What is stored of a card. Call after validateCard: a number of no accepted brand throws. */
export function cardSummary(number: string, holder: string): CardSummary {
  const brand = cardBrand(number);
  if (!brand) throw new Error('cardSummary: not a card number of an accepted brand');
  const digits = digitsOf(number);
  return { brand, last4: digits.slice(-4), holder_name: holder.trim() };
}
