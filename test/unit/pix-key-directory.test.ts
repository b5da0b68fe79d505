// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { cnpjWithCheckDigits, cpfWithCheckDigits, isValidCnpj, isValidCpf, maskDocument } from '../../contract/pix/documents';
import type { PixKeyType } from '../../contract/pix/keys';
import { participantByIspb, pickReceiverBank } from '../../server/domain/pix/participants';
import { SANDBOX_FAIL_KEY, SANDBOX_PARTIAL_KEY, SANDBOX_UNKNOWN_KEY, sandboxRail } from '../../server/domain/rails/sandbox';
import { sandboxDirectoryEntry } from '../../server/domain/rails/sandbox-directory';

const KEYS: [PixKeyType, string][] = [
  ['EMAIL', 'fulano@example.com'], ['PHONE', '+5511987654321'], ['EVP', '123e4567-e89b-12d3-a456-426614174000'],
  ['CPF', '52998224725'], ['CNPJ', '11222333000181'], ['CNPJ', '12ABC34501DE35'],
];

describe('documents for the directory', () => {
  it('masks a CPF and a CNPJ to their middle digits, as the DICT shows them', () => {
    expect(maskDocument('52998224725')).toBe('***.982.247-**');
    expect(maskDocument('529.982.247-25')).toBe('***.982.247-**');
    expect(maskDocument('12345678000195')).toBe('**.345.678/0001-**');
    expect(maskDocument('12ABC34501DE35')).toBe('**.ABC.345/01DE-**');
    expect(() => maskDocument('123')).toThrow();
  });
  it('appends the check digits the validators expect', () => {
    expect(cpfWithCheckDigits('529982247')).toBe('52998224725');
    expect(cnpjWithCheckDigits('112223330001')).toBe('11222333000181');
    expect(cnpjWithCheckDigits('12ABC34501DE')).toBe('12ABC34501DE35');
  });
});

describe('sandbox key directory', () => {
  it('answers the same key with the same holder and bank, every time', () => {
    for (const [type, key] of KEYS) {
      const a = sandboxDirectoryEntry(type, key);
      expect(a).not.toBeNull();
      expect(sandboxDirectoryEntry(type, key)).toEqual(a);
    }
    // pinned, so a change to the derivation (which would change every sandbox receipt) is noticed
    expect(sandboxDirectoryEntry('EMAIL', 'fulano@example.com')).toEqual({
      key: 'fulano@example.com', keyType: 'EMAIL',
      holder: { name: 'João Henrique Batista Andrade', document: expect.any(String) },
      bank: { name: pickReceiverBank('fulano@example.com').shortName, ispb: pickReceiverBank('fulano@example.com').ispb },
    });
  });

  it('gives a CPF or CNPJ key to that document, and other keys to a valid CPF or CNPJ', () => {
    expect(sandboxDirectoryEntry('CPF', '52998224725')!.holder.document).toBe('52998224725');
    expect(sandboxDirectoryEntry('CNPJ', '12ABC34501DE35')!.holder.document).toBe('12ABC34501DE35');
    const kinds = { CPF: 0, CNPJ: 0 };
    const names = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const e = sandboxDirectoryEntry('EMAIL', `cliente${i}@example.com`)!;
      const doc = e.holder.document;
      if (isValidCpf(doc)) kinds.CPF++;
      else if (isValidCnpj(doc)) kinds.CNPJ++;
      else throw new Error(`not a valid document: ${doc}`);
      expect(e.holder.name).toMatch(/^[A-ZÁÂÉÍÓÚ][\p{L} .&]+$/u);
      expect(participantByIspb(e.bank.ispb)?.shortName).toBe(e.bank.name);
      names.add(e.holder.name);
    }
    // mostly people, some companies, and not a handful of names for everyone
    expect(kinds.CPF).toBeGreaterThan(kinds.CNPJ);
    expect(kinds.CNPJ).toBeGreaterThan(20);
    expect(names.size).toBeGreaterThan(300);
  });

  it('tells apart the same text as keys of different types', () => {
    const a = sandboxDirectoryEntry('CPF', '52998224725')!;
    const b = sandboxDirectoryEntry('PHONE', '+5552998224725')!;
    expect(a.holder.name).not.toBe(b.holder.name);
  });

  it('does not know EMAIL unknown@sandbox.test, and knows the other magic keys', async () => {
    const rail = sandboxRail(0);
    expect(await rail.lookup('EMAIL', SANDBOX_UNKNOWN_KEY)).toBeNull();
    expect(await rail.lookup('EMAIL', SANDBOX_FAIL_KEY)).not.toBeNull();
    expect(await rail.lookup('EMAIL', SANDBOX_PARTIAL_KEY)).not.toBeNull();
  });

  it('fails a payment to an unknown key with a reason, and pays a known one to its holder', async () => {
    const rail = sandboxRail(0);
    const order = { batchId: 'wdb_x', withdrawalId: 'wd_x', accountId: 'acc_x', seq: 0, amount: 100, keyType: 'EMAIL' as const, receiverName: 'Typed Name', receiverDocument: '52998224725' };
    expect(await rail.pay({ ...order, key: SANDBOX_UNKNOWN_KEY }, new Date())).toEqual({
      status: 'ERROR', code: 'KEY_NOT_FOUND', reason: 'The Pix key is not registered in the Pix directory (DICT), so nothing was sent.',
    });
    const paid = await rail.pay({ ...order, key: 'loja@example.com' }, new Date());
    const entry = (await rail.lookup('EMAIL', 'loja@example.com'))!;
    expect(paid).toMatchObject({ status: 'PAID', receiverName: entry.holder.name, receiverBank: entry.bank.name, receiverBankIspb: entry.bank.ispb });
  });
});
