// @engines none: a unit test with no database (runs once)
import { describe, it, expect } from 'vitest';
import fixtures from '../fixtures/pix-fixtures.json';
import {
  cardBrand,
  cardSummary,
  luhnValid,
  sandboxCardOutcome,
  validateCard,
  type CardInput,
} from '../../server/domain/cards';

// A Luhn-valid number of `length` digits that starts with `prefix`.
function withCheckDigit(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('unreachable');
}

const now = new Date('2026-03-15T12:00:00Z');

function card(overrides: Partial<CardInput> = {}): CardInput {
  return {
    number: '4111111111111111',
    holder_name: 'MARIA SILVA',
    expiration_month: '12',
    expiration_year: '2030',
    cvv: '123',
    ...overrides,
  };
}

function paths(input: CardInput): string[] {
  return validateCard(input, now).map((p) => p.path);
}

describe('luhnValid', () => {
  it('accepts the fixture cards and refuses the Luhn-invalid one', () => {
    for (const number of fixtures.cards.approve) expect(luhnValid(number)).toBe(true);
    expect(luhnValid(fixtures.cards.decline_generic)).toBe(true);
    expect(luhnValid(fixtures.cards.decline_insufficient_funds)).toBe(true);
    expect(luhnValid(fixtures.cards.luhn_invalid)).toBe(false);
  });
  it('allows spaces and refuses anything else that is not a digit', () => {
    expect(luhnValid('4111 1111 1111 1111')).toBe(true);
    expect(luhnValid('4111-1111-1111-1111')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('0')).toBe(false);
  });
});

describe('cardBrand', () => {
  it('knows the fixture cards', () => {
    expect(fixtures.cards.approve.map(cardBrand)).toEqual(['VISA', 'VISA', 'MASTERCARD', 'AMEX']);
  });
  it.each([
    ['4012888888881881', 'VISA'],
    ['4222222222222', 'VISA'],
    ['4111111111111111110', 'VISA'],
    ['2221000000000009', 'MASTERCARD'],
    ['2720990000000007', 'MASTERCARD'],
    ['5105105105105100', 'MASTERCARD'],
    ['371449635398431', 'AMEX'],
    ['6362970000457013', 'ELO'],
    ['6062825624254001', 'HIPERCARD'],
  ])('%s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
  it.each([
    '401178', '401179', '431274', '438935', '451416', '457393', '457600', '457631', '457632', '504175',
    '506699', '506778', '509000', '509999', '627780', '636297', '636368', '650031', '650033', '650035',
    '650051', '650405', '650439', '650485', '650538', '650541', '650598', '650700', '650718', '650720',
    '650727', '650901', '650920', '651652', '651679', '655000', '655019', '655021', '655058',
  ])('BIN %s is Elo (checked before Visa)', (bin) => {
    expect(cardBrand(withCheckDigit(bin))).toBe('ELO');
  });
  it.each(['606282', '384100', '384140', '384160', '637095', '637568', '637599', '637609', '637612'])(
    'BIN %s is Hipercard',
    (bin) => {
      expect(cardBrand(withCheckDigit(bin))).toBe('HIPERCARD');
    },
  );
  it.each(['506698', '506779', '650034', '650052', '650719', '655020', '401177', '457394'])(
    'BIN %s next to an Elo range is not Elo',
    (bin) => {
      expect(cardBrand(withCheckDigit(bin))).not.toBe('ELO');
    },
  );
  it('refuses lengths the brand does not issue, and unknown prefixes', () => {
    expect(cardBrand('37828224631000')).toBeNull(); // Amex with 14 digits
    expect(cardBrand(withCheckDigit('51', 15))).toBeNull();
    expect(cardBrand(withCheckDigit('4', 15))).toBeNull();
    expect(cardBrand(withCheckDigit('636297', 19))).toBeNull();
    expect(cardBrand(withCheckDigit('2220'))).toBeNull();
    expect(cardBrand(withCheckDigit('2721'))).toBeNull();
    expect(cardBrand(withCheckDigit('6011'))).toBeNull(); // Discover: not accepted
    expect(cardBrand('')).toBeNull();
  });
});

describe('validateCard', () => {
  it('finds nothing wrong with the fixture cards', () => {
    for (const number of [...fixtures.cards.approve, fixtures.cards.decline_generic]) {
      const cvv = cardBrand(number) === 'AMEX' ? '1234' : '123';
      expect(validateCard(card({ number, cvv }), now)).toEqual([]);
    }
  });
  it('accepts spaces in the number', () => {
    expect(validateCard(card({ number: '4111 1111 1111 1111' }), now)).toEqual([]);
  });
  it('reports a Luhn failure on card.number', () => {
    expect(validateCard(card({ number: fixtures.cards.luhn_invalid }), now)).toEqual([
      { path: 'card.number', message: 'is not a valid card number (check digit does not match)' },
    ]);
  });
  it('reports non-digits, bad lengths and unaccepted brands', () => {
    expect(validateCard(card({ number: '4111-1111-1111-1111' }), now)[0].message).toBe('must contain only digits');
    expect(validateCard(card({ number: '41111111' }), now)[0].message).toBe('must have 12 to 19 digits');
    expect(validateCard(card({ number: '' }), now)[0].message).toBe('is required');
    expect(validateCard(card({ number: '6011111111111117' }), now)[0].message).toMatch(/^brand not accepted/);
  });
  it('checks month and year formats', () => {
    expect(paths(card({ expiration_month: '1' }))).toEqual(['card.expiration_month']);
    expect(paths(card({ expiration_month: '13' }))).toEqual(['card.expiration_month']);
    expect(paths(card({ expiration_month: '00' }))).toEqual(['card.expiration_month']);
    expect(paths(card({ expiration_year: '30' }))).toEqual(['card.expiration_year']);
  });
  it('treats a card as valid through the end of its month', () => {
    expect(validateCard(card({ expiration_month: '03', expiration_year: '2026' }), now)).toEqual([]);
    expect(
      validateCard(card({ expiration_month: '03', expiration_year: '2026' }), new Date('2026-03-31T23:59:59Z')),
    ).toEqual([]);
    expect(
      validateCard(card({ expiration_month: '03', expiration_year: '2026' }), new Date('2026-04-01T00:00:00Z')),
    ).toEqual([{ path: 'card.expiration_year', message: 'card expired at the end of 03/2026' }]);
    expect(paths(card({ expiration_month: '02', expiration_year: '2026' }))).toEqual(['card.expiration_year']);
    expect(paths(card({ expiration_month: '12', expiration_year: '2025' }))).toEqual(['card.expiration_year']);
  });
  it('wants 3 CVV digits, 4 for Amex', () => {
    expect(paths(card({ cvv: '12' }))).toEqual(['card.cvv']);
    expect(paths(card({ cvv: '1234' }))).toEqual(['card.cvv']);
    expect(paths(card({ cvv: '12a' }))).toEqual(['card.cvv']);
    const amex = fixtures.cards.approve[3];
    expect(validateCard(card({ number: amex, cvv: '123' }), now)).toEqual([
      { path: 'card.cvv', message: 'must be 4 digits for American Express' },
    ]);
    expect(validateCard(card({ number: amex, cvv: '1234' }), now)).toEqual([]);
  });
  it.each([['ELO', '6362970000457013'], ['HIPERCARD', '6062825624254001'], ['MASTERCARD', '5555555555554444']])('wants 3 CVV digits for %s', (_brand, number) => {
    expect(validateCard(card({ number, cvv: '123' }), now)).toEqual([]);
    expect(validateCard(card({ number, cvv: '1234' }), now)).toEqual([{ path: 'card.cvv', message: 'must be 3 digits' }]);
  });
  it('requires a holder name of at most 140 characters', () => {
    expect(paths(card({ holder_name: '   ' }))).toEqual(['card.holder_name']);
    expect(paths(card({ holder_name: 'A'.repeat(140) }))).toEqual([]);
    expect(paths(card({ holder_name: 'A'.repeat(141) }))).toEqual(['card.holder_name']);
  });
  it('lists every problem at once, in field order', () => {
    const problems = validateCard(
      { number: '4242424242424241', holder_name: '', expiration_month: '13', expiration_year: '26', cvv: '' },
      now,
    );
    expect(problems.map((p) => p.path)).toEqual([
      'card.number',
      'card.holder_name',
      'card.expiration_month',
      'card.expiration_year',
      'card.cvv',
    ]);
  });
  it('treats missing fields from an untyped caller as empty', () => {
    expect(validateCard({} as CardInput, now)).toHaveLength(5);
  });
});

describe('sandboxCardOutcome', () => {
  it('refuses the two decline numbers and approves the rest', () => {
    expect(sandboxCardOutcome(fixtures.cards.decline_generic)).toBe('REFUSED');
    expect(sandboxCardOutcome(fixtures.cards.decline_insufficient_funds)).toBe('REFUSED');
    expect(sandboxCardOutcome('4000 0000 0000 0002')).toBe('REFUSED');
    for (const number of fixtures.cards.approve) expect(sandboxCardOutcome(number)).toBe('APPROVED');
  });
});

describe('cardSummary', () => {
  it('keeps only brand, last 4 and holder name', () => {
    expect(cardSummary('5555 5555 5555 4444', ' MARIA SILVA ')).toEqual({
      brand: 'MASTERCARD',
      last4: '4444',
      holder_name: 'MARIA SILVA',
    });
    expect(Object.keys(cardSummary('378282246310005', 'X')).sort()).toEqual(['brand', 'holder_name', 'last4']);
  });
  it('throws for a number of no accepted brand', () => {
    expect(() => cardSummary('6011111111111117', 'X')).toThrow();
  });
});
