import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient } from '@/server/client';
import { api, removeDir, startServer, type RunningServer } from '../support/server';

// The typed client other TypeScript services install (docs/api.md): its retries (stripe-node's
// maxNetworkRetries), its idempotency keys and its re-authentication, against the real server. A fetch
// wrapper plays the unreliable network.

let srv: RunningServer;

beforeAll(async () => { srv = await startServer(); });
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

interface Seen { url: string; method: string; key: string | null; auth: string | null; status: number | 'network' }

/** A fetch that records every attempt and lets `fault` replace an answer (or drop it after the server acted). */
function flakyFetch(fault: (attempt: number, url: string) => 'drop-after' | 'refuse' | { status: number; retryAfter?: string } | null) {
  const seen: Seen[] = [];
  const f: typeof fetch = async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    const entry: Seen = { url, method: init?.method ?? 'GET', key: headers.get('idempotency-key'), auth: headers.get('authorization'), status: 'network' };
    seen.push(entry);
    const n = seen.filter((s) => !s.url.endsWith('/auth/token')).length - 1;
    const what = url.endsWith('/auth/token') ? null : fault(n, url);
    if (what === 'refuse') throw new TypeError('fetch failed (connection refused)');
    const res = await fetch(input, init);
    if (what === 'drop-after') { await res.text(); throw new TypeError('fetch failed (socket hang up)'); } // the server acted, the answer was lost
    if (what && typeof what === 'object') {
      await res.text();
      entry.status = what.status;
      return new Response(JSON.stringify({ error: { message: 'injected', code: -32000, data: { httpStatus: what.status } } }), {
        status: what.status, headers: { 'content-type': 'application/json', ...(what.retryAfter ? { 'retry-after': what.retryAfter } : {}) },
      });
    }
    entry.status = res.status;
    return res;
  };
  return { fetch: f, seen, calls: () => seen.filter((s) => !s.url.endsWith('/auth/token')) };
}

const withdrawal = { amount: 1500, key: 'maria@example.com', key_type: 'EMAIL' as const, details: { name: 'Maria Silva', document: '529.982.247-25' } };
const client = (f: typeof fetch, extra: Partial<Parameters<typeof createPaymentsClient>[0]> = {}) =>
  createPaymentsClient({ url: srv.url, credentials: { code: srv.demo.code, token: srv.demo.token }, fetch: f, retryBaseDelayMs: 10, ...extra });

describe('the typed client retries safely', () => {
  it('a create whose answer was lost is retried with the same idempotency-key: one withdrawal, one debit', async () => {
    const net = flakyFetch((n) => (n === 1 ? 'drop-after' : null));
    const payments = client(net.fetch);
    const before = (await payments.account.balance.query()).available;
    const created = await payments.withdrawals.create.mutate(withdrawal);
    const after = (await payments.account.balance.query()).available;
    expect(before - after).toBe(1500); // debited once, although the server received the create twice
    const creates = net.calls().filter((c) => c.url.includes('withdrawals.create'));
    expect(creates).toHaveLength(2);
    expect(creates[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(creates[1].key).toBe(creates[0].key);
    // the replay answered the same withdrawal
    const id = created.data[0].identifier;
    expect((await api(srv.url, `/withdraw?identifier=${id}`, { headers: { authorization: creates[0].auth! } })).status).toBe(200);
  });

  it('each create gets its own key unless the caller gives one, which it then keeps', async () => {
    const net = flakyFetch(() => null);
    const payments = client(net.fetch);
    await payments.withdrawals.create.mutate(withdrawal);
    await payments.withdrawals.create.mutate(withdrawal);
    await payments.withdrawals.create.mutate(withdrawal, { context: { idempotencyKey: 'order-42' } });
    await payments.withdrawals.create.mutate(withdrawal, { context: { idempotencyKey: 'order-42' } });
    const keys = net.calls().filter((c) => c.url.includes('withdrawals.create')).map((c) => c.key);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys.slice(2)).toEqual(['order-42', 'order-42']);
    // queries and other mutations carry none
    await payments.account.balance.query();
    expect(net.calls().at(-1)!.key).toBeNull();
  });

  it('409/429/503 are retried with backoff, honouring retry-after, at most maxNetworkRetries times', async () => {
    const net = flakyFetch((n) => (n === 0 ? { status: 503 } : n === 1 ? { status: 429, retryAfter: '1' } : n === 2 ? { status: 409, retryAfter: '0' } : null));
    const payments = client(net.fetch, { maxNetworkRetries: 3 });
    const started = Date.now();
    await payments.withdrawals.create.mutate(withdrawal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // waited the retry-after of the 429
    expect(net.calls().map((c) => c.status)).toEqual([503, 429, 409, 200]);
    expect(new Set(net.calls().map((c) => c.key)).size).toBe(1);

    const always = flakyFetch(() => ({ status: 503 }));
    const err = await client(always.fetch, { maxNetworkRetries: 2 }).account.balance.query().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(always.calls()).toHaveLength(3); // the first attempt and 2 retries
    const off = flakyFetch(() => ({ status: 503 }));
    await client(off.fetch, { maxNetworkRetries: 0 }).account.balance.query().catch(() => null);
    expect(off.calls()).toHaveLength(1);
  });

  it('network errors: a query or a keyed create is retried; a mutation without a key is not (it may have run)', async () => {
    const q = flakyFetch((n) => (n === 0 ? 'refuse' : null));
    expect((await client(q.fetch).account.balance.query()).currency).toBe('BRL');
    expect(q.calls()).toHaveLength(2);

    const unkeyed = flakyFetch(() => 'drop-after');
    await expect(client(unkeyed.fetch).account.sandboxTopUp.mutate({ amount: 100 })).rejects.toThrow();
    expect(unkeyed.calls()).toHaveLength(1);
    // a 409 without retry-after (a taken external_ref) is final, not retried
    const conflict = flakyFetch(() => ({ status: 409 }));
    await expect(client(conflict.fetch).withdrawals.create.mutate(withdrawal)).rejects.toThrow();
    expect(conflict.calls()).toHaveLength(1);
  });

  it('an expired or revoked access token: one re-authentication from the client pair, then the call goes through', async () => {
    const net = flakyFetch(() => null);
    const payments = client(net.fetch);
    await payments.account.balance.query();
    const firstToken = net.calls()[0].auth!;
    // the token dies (revoked here; an expired one answers the same 401)
    expect((await api(srv.url, '/auth/revoke', { method: 'POST', headers: { authorization: firstToken } })).status).toBe(200);
    await payments.account.balance.query();
    const tokenRequests = net.seen.filter((s) => s.url.endsWith('/auth/token'));
    expect(tokenRequests).toHaveLength(2);
    expect(net.calls().map((c) => c.status)).toEqual([200, 401, 200]);
    expect(net.calls()[2].auth).not.toBe(firstToken);

    // wrong credentials: one re-authentication attempt fails, and the caller hears why
    const bad = createPaymentsClient({ url: srv.url, credentials: { code: srv.demo.code, token: 'sk_wrong' }, retryBaseDelayMs: 10 });
    await expect(bad.account.balance.query()).rejects.toThrow(/auth\/token answered 401/);
    // a fixed token is not renewed: the 401 reaches the caller
    const fixed = flakyFetch(() => null);
    const err = await createPaymentsClient({ url: srv.url, accessToken: 'at_revoked', fetch: fixed.fetch }).account.balance.query().catch((e: TRPCClientError<never>) => e);
    expect((err as TRPCClientError<never>).data).toMatchObject({ httpStatus: 401 });
    expect(fixed.calls()).toHaveLength(1);
  });
});
