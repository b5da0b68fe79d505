import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, type Clock } from '../../server/clock';
import { loadConfig, type Config } from '../../server/config';
import { createContextInner, type Auth } from '../../server/context';
import { createAccount, type CreateAccountInput } from '../../server/domain/accounts';
import { appRouter } from '../../server/routers';
import { createServices, type Services } from '../../server/services';
import { createCallerFactory } from '../../server/trpc';

/** Fresh services over a new database file in a temp dir, migrations applied. */
export function makeTestServices(o: { config?: Partial<Config>; clock?: Clock } = {}): Services & { cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'pix-test-'));
  const config = loadConfig({ databasePath: join(dir, 'test.db'), rateLimitRps: 0, sandboxSettlementDelayMs: 0, ...o.config });
  const services = createServices({ config, clock: o.clock ?? new ManualClock(new Date()) });
  return Object.assign(services, {
    async cleanup() {
      await services.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

export async function makeAccount(s: Services, input: Partial<CreateAccountInput> = {}) {
  return createAccount({ db: s.db, masterKey: s.masterKey, now: () => s.clock.now() }, { name: 'Test Merchant', ...input });
}

const createCaller = createCallerFactory(appRouter);

/** A tRPC caller acting as `accountId` (as the bearer middleware would have resolved it). */
export function callerFor(s: Services, accountId: string | null, kind: Auth['kind'] = 'bearer') {
  return createCaller(createContextInner({ services: s, auth: accountId ? { kind, accountId } : null }));
}

/** Awaits a condition by polling the database through the caller's own reads; never a blind sleep. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, o: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  for (;;) {
    const v = await probe();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${o.what ?? 'condition'}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
