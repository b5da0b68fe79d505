// @engines none: a unit test with no database (runs once)
import { describe, expect, it } from 'vitest';
import { normalizePixKey } from '../../contract/pix/keys';
import { merchantPixKey, pixChargeBrCode, transactionIdentifier } from '../../server/domain/transactions/pix-charge';
import { parseWithPixUtils, readBrCode } from '../support/brcode-reader';

describe('Pix charge', () => {
  it('derives a stable UUID v4 receiving key per account', () => {
    const a = merchantPixKey('acc_one');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(normalizePixKey('EVP', a)).toEqual({ ok: true, key: a });
    expect(merchantPixKey('acc_one')).toBe(a);
    expect(merchantPixKey('acc_two')).not.toBe(a);
  });

  it('uses the transaction id without its underscore as identifier and txid', () => {
    expect(transactionIdentifier('txn_0123456789abcdefghij')).toBe('txn0123456789abcdefghij');
  });

  it('builds a BR Code an independent reader accepts, long accented names cut', () => {
    const code = pixChargeBrCode({ accountId: 'acc_x', merchantName: 'Padaria São João da Esquina Ltda ME', merchantCity: 'São José dos Campos', amount: 1005, txid: 'txnabc123' });
    const r = readBrCode(code);
    expect(r.crcOk).toBe(true);
    expect(r.gui).toBe('br.gov.bcb.pix');
    expect(r.key).toBe(merchantPixKey('acc_x'));
    expect(r.currency).toBe('986');
    expect(r.amount).toBe('10.05');
    expect(r.name).toBe('Padaria Sao Joao da Esqui');
    expect(r.city).toBe('Sao Jose dos Ca');
    expect(r.txid).toBe('txnabc123');
    expect(r.order).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
    // pix-utils, a parser that is not ours, reads the same charge
    expect(parseWithPixUtils(code)).toMatchObject({
      pixKey: merchantPixKey('acc_x'), transactionAmount: 10.05, merchantName: 'Padaria Sao Joao da Esqui', merchantCity: 'Sao Jose dos Ca', txid: 'txnabc123',
    });
  });

  it('falls back to a printable merchant name', () => {
    const r = readBrCode(pixChargeBrCode({ accountId: 'acc_x', merchantName: '東京', merchantCity: 'SAO PAULO', amount: 1, txid: 'a' }));
    expect(r.name).toBe('MERCHANT');
    expect(r.amount).toBe('0.01');
  });
});
