import { describe, expect, it } from 'vitest';
import { checkReceiver, UFS, type ReceiverInput } from '../../server/domain/receiver';
import { DomainError } from '../../server/errors';

/** The account's receiver data (the recebedor of its cobv): what checkReceiver accepts, normalises and refuses. */
const good: ReceiverInput = { document: '11.222.333/0001-81', name: ' Loja  do Demo Ltda ', trade_name: 'Loja do Demo', street: 'Av. Paulista, 1000', city: 'São Paulo', uf: 'sp', cep: '01310-100' };

function issuesOf(input: ReceiverInput): string[] {
  try {
    checkReceiver(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('VALIDATION');
    return ((err as DomainError).extra.issues ?? []).map((i) => i.path);
  }
  throw new Error('accepted');
}

describe('checkReceiver', () => {
  it('normalises a CNPJ, the names, the UF and the CEP', () => {
    expect(checkReceiver(good)).toEqual({
      document: '11222333000181', name: 'Loja do Demo Ltda', tradeName: 'Loja do Demo', street: 'Av. Paulista, 1000', city: 'São Paulo', uf: 'SP', cep: '01310100',
    });
  });

  it('takes a CPF, an alphanumeric CNPJ, and no trade name', () => {
    expect(checkReceiver({ ...good, document: '529.982.247-25', trade_name: null })).toMatchObject({ document: '52998224725', tradeName: null });
    expect(checkReceiver({ ...good, document: '12.ABC.345/01DE-35', trade_name: '  ' })).toMatchObject({ document: '12ABC34501DE35', tradeName: null });
  });

  it('knows the 27 units of the federation', () => {
    expect(UFS).toHaveLength(27);
    expect(new Set(UFS).size).toBe(27);
    for (const uf of UFS) expect(checkReceiver({ ...good, uf }).uf).toBe(uf);
  });

  it.each([
    ['a CPF with wrong check digits', { document: '529.982.247-24' }, ['document']],
    ['a CNPJ with wrong check digits', { document: '11222333000180' }, ['document']],
    ['a CPF of repeated digits', { document: '111.111.111-11' }, ['document']],
    ['a document of 12 digits', { document: '123456789012' }, ['document']],
    ['no document', { document: '' }, ['document']],
    ['an unknown UF', { uf: 'XX' }, ['uf']],
    ['a UF of three letters', { uf: 'SPA' }, ['uf']],
    ['a CEP of 7 digits', { cep: '0131010' }, ['cep']],
    ['a CEP with letters', { cep: '0131010A' }, ['cep']],
    ['no name, street or city', { name: ' ', street: '', city: '' }, ['name', 'street', 'city']],
    ['a name above 200 characters', { name: 'x'.repeat(201) }, ['name']],
    ['everything wrong at once', { document: '1', uf: '', cep: '' }, ['document', 'uf', 'cep']],
  ] as [string, Partial<ReceiverInput>, string[]][])('refuses %s, naming the fields', (_, change, paths) => {
    expect(issuesOf({ ...good, ...change })).toEqual(paths);
  });
});
