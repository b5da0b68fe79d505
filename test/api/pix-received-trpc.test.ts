import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { railFor } from '../../server/domain/rails';
import { runRefundPass } from '../../server/domain/transactions/refunds';
import { aTxid } from '../support/pix-api-harness';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * The same procedures for TypeScript services (tRPC, createCaller): pay a cob, read the Pix received,
 * return part of it and settle the return with the refund pass; another account sees none of it.
 */
let s: TestServices;
beforeAll(async () => { s = await makeTestServices(); });
afterAll(async () => { await s.cleanup(); });

describe('pixReceived over tRPC', () => {
  it('sandboxPay → get → requestDevolucao → refund pass → DEVOLVIDO; another account gets NOT_FOUND', async () => {
    const acc = await makeAccount(s);
    const other = await makeAccount(s, { name: 'Other Merchant' });
    const caller = callerFor(s, acc.account_id, 'pix-api');
    const txid = aTxid();
    await caller.pixCharges.putCob({ txid, calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave: acc.pix_key });
    const pix = await caller.pixReceived.sandboxPay({ txid });
    expect(pix).toMatchObject({ txid, valor: '10.00', chave: acc.pix_key, devolucoes: [] });
    expect(await caller.pixReceived.get({ e2eid: pix.endToEndId })).toEqual(pix);

    const dev = await caller.pixReceived.requestDevolucao({ e2eid: pix.endToEndId, id: 'trpc1', valor: '4.00' });
    expect(dev).toMatchObject({ id: 'trpc1', valor: '4.00', status: 'EM_PROCESSAMENTO' });
    expect(await runRefundPass(s, railFor(s.config)!)).toBe(1);
    const done = await caller.pixReceived.getDevolucao({ e2eid: pix.endToEndId, id: 'trpc1' });
    expect(done).toMatchObject({ status: 'DEVOLVIDO', rtrId: dev.rtrId });
    expect((await caller.pixReceived.get({ e2eid: pix.endToEndId })).devolucoes).toEqual([done]);

    const foreign = callerFor(s, other.account_id, 'pix-api');
    await expect(foreign.pixReceived.get({ e2eid: pix.endToEndId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(foreign.pixReceived.sandboxPay({ txid })).rejects.toBeInstanceOf(TRPCError);
    await expect(caller.pixReceived.sandboxPay({ txid })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});
