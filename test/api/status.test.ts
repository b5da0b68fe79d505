import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/** status.readiness: the dashboard's view of /readyz, for a signed-in person only. */
let s: TestServices;
beforeEach(async () => { s = await makeTestServices(); });
afterEach(async () => { await s.cleanup(); });

describe('status.readiness', () => {
  it('reports every check ready', async () => {
    const acc = await makeAccount(s, { balance: 10_000 });
    const r = await callerFor(s, acc.account_id, 'session').status.readiness();
    expect(r).toMatchObject({ ready: true, failed: null });
    expect(r.checks.map((c) => [c.name, c.ok])).toEqual([
      ['shutdown', true], ['database', true], ['migrations', true], ['writer', true], ['jobs', true], ['ledger', true],
    ]);
    expect(JSON.stringify(r)).not.toContain(acc.account_id);
  });

  it('names the writer when it no longer takes jobs', async () => {
    const acc = await makeAccount(s);
    await s.db.writer.close();
    const r = await callerFor(s, acc.account_id, 'session').status.readiness();
    expect(r).toMatchObject({ ready: false, failed: 'writer' });
    expect(r.checks.find((c) => c.name === 'writer')?.detail).toBe('the database writer is closed');
    expect(r.checks.some((c) => c.name === 'ledger')).toBe(false); // not run once something under it failed
  });

  it('refuses a caller without a session', async () => {
    await expect(callerFor(s, null).status.readiness()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
