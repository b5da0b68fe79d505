import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { events, withdrawalBatches } from '../../db/schema';
import { ManualClock } from '../../server/clock';
import { createContextInner } from '../../server/context';
import { onOutcome, type Outcome } from '../../server/domain/outcomes';
import { appRouter } from '../../server/routers';
import { createCallerFactory } from '../../server/trpc';
import { makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * A write job's context (the request that queued it, its after-commit effects) travels with its
 * transaction handle, not with AsyncLocalStorage: many requests' jobs interleave on one writer (SQLite
 * runs them one after another on one handle; PostgreSQL runs them at once on several), and each
 * event must still name its own request.
 */
let s: TestServices;
let accountId: string;
beforeEach(async () => {
  s = await makeTestServices({ clock: new ManualClock(new Date('2026-03-02T12:00:00.000Z')) });
  accountId = (await makeAccount(s, { balance: 10_000_000 })).account_id;
});
afterEach(async () => { await s.cleanup(); });

const createCaller = createCallerFactory(appRouter);
const withdrawalBody = (i: number) => ({
  amount: 100 + i, key: `pessoa${i}@example.com`, key_type: 'EMAIL' as const, description: null,
  details: { name: 'Maria Silva', document: '52998224725' },
});

describe('write job context', () => {
  it('40 overlapping requests: each withdraw.requested event keeps the id of the request that created it', async () => {
    const made = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const request = { id: `req-${i}`, route: null, accountId: null };
      const ctx = createContextInner({ services: s, auth: { kind: 'bearer', accountId }, transport: 'rest', request });
      const created = await createCaller(ctx).withdrawals.create(withdrawalBody(i));
      const [batch] = await s.db.read.handle.select({ withdrawalId: withdrawalBatches.withdrawalId }).from(withdrawalBatches).where(eq(withdrawalBatches.id, created.data[0].identifier));
      return { requestId: request.id, withdrawalId: batch.withdrawalId };
    }));
    const rows = await s.db.read.handle.select({ resourceId: events.resourceId, requestId: events.requestId }).from(events).where(eq(events.type, 'withdraw.requested'));
    expect(rows).toHaveLength(40);
    const byWithdrawal = new Map(made.map((m) => [m.withdrawalId, m.requestId]));
    for (const r of rows) expect(r.requestId).toBe(byWithdrawal.get(r.resourceId));
  });

  it('a call without a request (in-process caller, background work) records no request id', async () => {
    const ctx = createContextInner({ services: s, auth: { kind: 'bearer', accountId }, transport: 'caller' });
    await createCaller(ctx).withdrawals.create(withdrawalBody(1));
    const [row] = await s.db.read.handle.select({ requestId: events.requestId }).from(events).where(eq(events.type, 'withdraw.requested'));
    expect(row.requestId).toBeNull();
  });

  it('after-commit effects run for the jobs that committed, never for one that threw, and only once each', async () => {
    const ran: string[] = [];
    await Promise.all(['a', 'b', 'c', 'd'].map((name) => s.db.write(async (tx) => {
      tx.afterCommit(() => ran.push(name));
      await Promise.resolve();
      if (name === 'c') throw new Error('c rolls back');
    }).catch(() => ran.push(`${name} failed`))));
    expect(ran.sort()).toEqual(['a', 'b', 'c failed', 'd']);
    // outside any job there is no context: nothing is kept for a later job to run
    const stray = await s.db.write(async (tx) => tx);
    stray.afterCommit(() => ran.push('stray'));
    await s.db.write(async () => undefined);
    expect(ran).not.toContain('stray');
  });

  it('outcomes are announced once the settling job committed', async () => {
    const seen: Outcome[] = [];
    const stop = onOutcome((o) => seen.push(o));
    try {
      await s.db.write(async (tx) => {
        const { reportOutcome } = await import('../../server/domain/outcomes');
        reportOutcome(tx, { resource: 'withdrawal', status: 'PAID' });
        expect(seen).toEqual([]); // not before the commit
      });
      expect(seen).toEqual([{ resource: 'withdrawal', status: 'PAID' }]);
    } finally { stop(); }
  });
});
