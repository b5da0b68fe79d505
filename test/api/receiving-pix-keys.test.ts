import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pixKeys } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { backfillReceivingKeys, MAX_KEYS_PER_ACCOUNT } from '../../server/domain/pix-api/keys';
import { merchantPixKey } from '../../server/domain/transactions/pix-charge';
import { toDomainError } from '../../server/errors';
import { readBrCode } from '../support/brcode-reader';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';
import { txBody, VALID_CNPJ, VALID_CPF } from '../support/transactions';

/** The account's receiving Pix keys over tRPC (createCaller), on both engines. */
let s: TestServices;
let clock: ManualClock;
beforeEach(async () => { clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z')); s = await makeTestServices({ clock }); });
afterEach(async () => { await s.cleanup(); });

async function failure(p: Promise<unknown>) {
  const e = await p.then(() => null, (err) => err);
  expect(e, 'expected the call to fail').toBeInstanceOf(TRPCError);
  return toDomainError(e);
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('receiving keys', () => {
  it('an account is created with its EVP: the key its charges have always carried, printed as pix_key', async () => {
    const acc = await makeAccount(s);
    expect(acc.pix_key).toBe(merchantPixKey(acc.account_id));
    const { data } = await callerFor(s, acc.account_id).pixKeys.list();
    expect(data).toEqual([{ id: expect.stringMatching(/^pxk_/), key: acc.pix_key, key_type: 'EVP', created_at: '2026-03-10T12:00:00.000Z' }]);
  });

  it('adds keys of every type in their canonical spelling; an EVP is generated, never taken', async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    expect(await c.pixKeys.add({ key_type: 'CPF', key: VALID_CPF })).toMatchObject({ key: '52998224725', key_type: 'CPF' });
    expect(await c.pixKeys.add({ key_type: 'CNPJ', key: VALID_CNPJ })).toMatchObject({ key: '11222333000181', key_type: 'CNPJ' });
    expect(await c.pixKeys.add({ key_type: 'EMAIL', key: ' Vendas@Padaria.COM.br ' })).toMatchObject({ key: 'vendas@padaria.com.br' });
    expect(await c.pixKeys.add({ key_type: 'PHONE', key: '+55 (11) 91234-5678' })).toMatchObject({ key: '+5511912345678' });
    const evp = await c.pixKeys.add({ key_type: 'EVP' });
    expect(evp.key).toMatch(UUID_V4);
    expect(evp.key).not.toBe(acc.pix_key);
    const listed = (await c.pixKeys.list()).data.map((k) => [k.key_type, k.key]);
    expect(listed).toEqual([['EVP', acc.pix_key], ['CPF', '52998224725'], ['CNPJ', '11222333000181'], ['EMAIL', 'vendas@padaria.com.br'], ['PHONE', '+5511912345678'], ['EVP', evp.key]]);
  });

  it('refuses malformed keys with the rules of their type, naming the field; nothing is stored', async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    const cases: [Parameters<typeof c.pixKeys.add>[0], string, RegExp][] = [
      [{ key_type: 'CPF', key: '529.982.247-26' }, 'key', /check digits/],
      [{ key_type: 'CNPJ', key: '11.111.111/1111-11' }, 'key', /same/],
      [{ key_type: 'EMAIL', key: 'not-an-email' }, 'key', /e-mail/],
      [{ key_type: 'PHONE', key: '11912345678' }, 'key', /\+55/],
      [{ key_type: 'EMAIL' }, 'key', /required/],
      [{ key_type: 'EVP', key: '123e4567-e89b-42d3-a456-426614174000' }, 'key', /generated/],
      [{ key_type: 'IBAN' as never, key: 'x' }, 'key_type', /one of/],
    ];
    for (const [input, path, message] of cases) {
      const e = await failure(c.pixKeys.add(input));
      expect(e.code, JSON.stringify(input)).toBe('VALIDATION');
      expect(e.extra.issues?.[0]?.path).toBe(path);
      expect(e.extra.issues?.[0]?.message).toMatch(message);
    }
    expect((await c.pixKeys.list()).data).toHaveLength(1);
  });

  it('a live key belongs to one account; once removed another account may take it', async () => {
    const a = await makeAccount(s);
    const b = await makeAccount(s);
    const ca = callerFor(s, a.account_id);
    const cb = callerFor(s, b.account_id);
    const added = await ca.pixKeys.add({ key_type: 'EMAIL', key: 'caixa@loja.com.br' });
    expect(await failure(ca.pixKeys.add({ key_type: 'EMAIL', key: 'CAIXA@loja.com.br' }))).toMatchObject({ code: 'CONFLICT', detail: expect.stringMatching(/this account/) });
    expect(await failure(cb.pixKeys.add({ key_type: 'EMAIL', key: 'caixa@loja.com.br' }))).toMatchObject({ code: 'CONFLICT', detail: expect.stringMatching(/another account/) });
    // another account's EVP, too
    expect((await failure(cb.pixKeys.add({ key_type: 'CPF', key: VALID_CPF }).then(() => ca.pixKeys.add({ key_type: 'CPF', key: VALID_CPF })))).code).toBe('CONFLICT');
    await ca.pixKeys.remove({ id: added.id });
    expect(await cb.pixKeys.add({ key_type: 'EMAIL', key: 'caixa@loja.com.br' })).toMatchObject({ key: 'caixa@loja.com.br' });
  });

  it('removes a key; never the last one; another account\'s key is not found', async () => {
    const a = await makeAccount(s);
    const b = await makeAccount(s);
    const ca = callerFor(s, a.account_id);
    const [evp] = (await ca.pixKeys.list()).data;
    expect(await failure(ca.pixKeys.remove({ id: evp.id }))).toMatchObject({ code: 'INVALID_STATE', detail: expect.stringMatching(/last/) });
    const email = await ca.pixKeys.add({ key_type: 'EMAIL', key: 'pix@loja.com.br' });
    expect((await failure(callerFor(s, b.account_id).pixKeys.remove({ id: email.id }))).code).toBe('NOT_FOUND');
    expect(await ca.pixKeys.remove({ id: evp.id })).toEqual({ removed: evp });
    expect((await failure(ca.pixKeys.remove({ id: evp.id }))).code).toBe('NOT_FOUND');
    expect((await ca.pixKeys.list()).data.map((k) => k.key)).toEqual(['pix@loja.com.br']);
    expect((await failure(ca.pixKeys.remove({ id: email.id }))).code).toBe('INVALID_STATE');
  });

  it(`holds at most ${MAX_KEYS_PER_ACCOUNT} keys`, async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    for (let i = 1; i < MAX_KEYS_PER_ACCOUNT; i++) await c.pixKeys.add({ key_type: 'EVP' });
    expect((await failure(c.pixKeys.add({ key_type: 'EVP' }))).code).toBe('INVALID_STATE');
  });

  it('a new Pix charge carries the account\'s receiving key: its EVP, or another key once the EVP is removed', async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    expect(readBrCode((await c.transactions.create(txBody('PIX'))).qrcode!).key).toBe(acc.pix_key);
    const email = await c.pixKeys.add({ key_type: 'EMAIL', key: 'pix@loja.com.br' });
    const evp = await c.pixKeys.add({ key_type: 'EVP' });
    // the oldest EVP first
    expect(readBrCode((await c.transactions.create(txBody('PIX'))).qrcode!).key).toBe(acc.pix_key);
    await c.pixKeys.remove({ id: (await c.pixKeys.list()).data[0].id });
    expect(readBrCode((await c.transactions.create(txBody('PIX'))).qrcode!).key).toBe(evp.key);
    await c.pixKeys.remove({ id: evp.id });
    expect(readBrCode((await c.transactions.create(txBody('PIX'))).qrcode!).key).toBe(email.key);
  });
});

describe('the start-up backfill of accounts made before keys were stored', () => {
  it('stores exactly the EVP merchantPixKey derives, once; a key removed later does not come back', async () => {
    const old1 = await makeAccount(s);
    const old2 = await makeAccount(s);
    const recent = await makeAccount(s);
    // as the migration leaves them: accounts without any key row
    await s.db.write(async (tx) => { for (const a of [old1, old2]) await tx.handle.delete(pixKeys).where(eq(pixKeys.accountId, a.account_id)); });
    expect((await callerFor(s, old1.account_id).pixKeys.list()).data).toEqual([]);
    // a charge before the backfill already shows the derived key
    expect(readBrCode((await callerFor(s, old1.account_id).transactions.create(txBody('PIX'))).qrcode!).key).toBe(merchantPixKey(old1.account_id));

    expect(await backfillReceivingKeys(s)).toBe(2);
    for (const a of [old1, old2, recent]) {
      expect((await callerFor(s, a.account_id).pixKeys.list()).data.map((k) => [k.key_type, k.key])).toEqual([['EVP', merchantPixKey(a.account_id)]]);
    }
    expect(await backfillReceivingKeys(s)).toBe(0);

    const c = callerFor(s, old1.account_id);
    await c.pixKeys.add({ key_type: 'EMAIL', key: 'old@loja.com.br' });
    await c.pixKeys.remove({ id: (await c.pixKeys.list()).data[0].id });
    expect(await backfillReceivingKeys(s)).toBe(0);
    expect((await c.pixKeys.list()).data.map((k) => k.key)).toEqual(['old@loja.com.br']);
  });

  it('two instances backfilling at once store each key once', async () => {
    const accounts = await Promise.all(Array.from({ length: 5 }, () => makeAccount(s)));
    await s.db.write(async (tx) => { await tx.handle.delete(pixKeys); });
    const [x, y] = await Promise.all([backfillReceivingKeys(s), backfillReceivingKeys(s)]);
    expect(x + y).toBe(5);
    for (const a of accounts) expect((await callerFor(s, a.account_id).pixKeys.list()).data).toHaveLength(1);
  });
});

describe('concurrency', () => {
  it('two accounts adding the same key at once: one wins, the other is a 409', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([makeAccount(s), makeAccount(s)]);
      const key = `loja${round}@example.com`;
      const results = await Promise.allSettled([a, b, a].map((acc) => callerFor(s, acc.account_id).pixKeys.add({ key_type: 'EMAIL', key })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(toDomainError(r.reason).code).toBe('CONFLICT');
      const holders = await Promise.all([a, b].map(async (acc) => (await callerFor(s, acc.account_id).pixKeys.list()).data.filter((k) => k.key === key).length));
      expect(holders.reduce((x, y) => x + y)).toBe(1);
    }
  });

  it('removing the last two keys at once leaves one', async () => {
    const acc = await makeAccount(s);
    const c = callerFor(s, acc.account_id);
    await c.pixKeys.add({ key_type: 'EVP' });
    const ids = (await c.pixKeys.list()).data.map((k) => k.id);
    const results = await Promise.allSettled(ids.map((id) => c.pixKeys.remove({ id })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await c.pixKeys.list()).data).toHaveLength(1);
  });
});
