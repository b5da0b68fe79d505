// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { formatDocument, formatPhone, formatPixKey } from '../../app/_lib/documents';

describe('documents and keys on screen', () => {
  it('punctuates CPF and CNPJ (numeric and alphanumeric) as stored by the API', () => {
    expect(formatDocument('52998224725')).toBe('529.982.247-25');
    expect(formatDocument('11222333000181')).toBe('11.222.333/0001-81');
    expect(formatDocument('12ABC34501DE35')).toBe('12.ABC.345/01DE-35');
  });

  it('leaves anything else as it is', () => {
    for (const v of ['', '5299822472', '529.982.247-25', 'fulano@example.com', '123e4567-e89b-12d3-a456-426614174000']) expect(formatDocument(v)).toBe(v);
    expect(formatPhone('+5511987654321')).toBe('+55 11 98765-4321');
    expect(formatPhone('+551133334444')).toBe('+55 11 3333-4444');
    expect(formatPhone('11987654321')).toBe('11987654321');
  });

  it('formats a Pix key by its type', () => {
    expect(formatPixKey('CPF', '52998224725')).toBe('529.982.247-25');
    expect(formatPixKey('PHONE', '+5511987654321')).toBe('+55 11 98765-4321');
    expect(formatPixKey('EMAIL', 'a@b.co')).toBe('a@b.co');
    expect(formatPixKey('EVP', '52998224725')).toBe('52998224725');
  });
});
