import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db';
import { onPostgres } from '../../db/dialect';
import { ManualClock, type Clock } from '../../server/clock';
import { loadConfig, type Config } from '../../server/config';
import { createContextInner, type Auth } from '../../server/context';
import { createAccount, type CreateAccountInput } from '../../server/domain/accounts';
import { appRouter } from '../../server/routers';
import { createServices, type Services } from '../../server/services';
import { createCallerFactory } from '../../server/trpc';
import { postgresDatabaseFor, serverDatabaseUrl } from './server';

/**
 * Fresh services over a new database, migrations applied: a new file in a temp dir on SQLite, a new
 * database of the run's cluster on PostgreSQL (vitest.pg.config.ts), so every call starts empty on both.
 */
export async function makeTestServices(o: { config?: Partial<Config>; clock?: Clock } = {}): Promise<TestServices> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-test-'));
  const config = loadConfig({ databasePath: join(dir, 'test.db'), rateLimitRps: 0, sandboxSettlementDelayMs: 0, ...o.config });
  const url = await postgresDatabaseFor(config.databasePath);
  if (!url && !o.config?.databasePath) copyFileSync(await migratedSqliteFile(), config.databasePath);
  const services = createServices({ config, clock: o.clock ?? new ManualClock(new Date()), db: url ? openDatabase(config.databasePath, { url }) : undefined });
  return Object.assign(services, {
    async cleanup() {
      await services.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

export type TestServices = Services & { cleanup(): Promise<void> };

/**
 * An empty SQLite file with the migrations applied, made once per process; each new SQLite test
 * database starts as a copy of it (PostgreSQL's do the same from a template database:
 * test/support/pg-global.ts). The copy is what migrating a new file writes (drizzle records each
 * migration with its journal date, nothing random or timed), and the services still open it through
 * the same start-up, which finds nothing left to apply. Migrating each file anew cost about 50 ms of
 * CPU per test database (0.3 s on a loaded machine).
 */
let migrated: Promise<string> | undefined;
function migratedSqliteFile(): Promise<string> {
  migrated ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pix-migrated-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'migrated.db');
    await openDatabase(path).close(); // (the last connection's close checkpoints the WAL into the file)
    return path;
  })();
  return migrated;
}

/**
 * Services of this process over a running server's database (its file on SQLite, its own database on
 * PostgreSQL: test/support/server.ts), as a second process beside it would open them; close `db` after.
 */
export function serverServices(databasePath: string, o: { config?: Partial<Config>; clock?: Clock } = {}): Services {
  const url = serverDatabaseUrl(databasePath);
  const config = loadConfig({ databasePath, ...o.config });
  return createServices({ config, clock: o.clock, db: url ? openDatabase(databasePath, { url }) : undefined });
}

/**
 * A second instance beside `a`, for claim tests: on PostgreSQL its own Services over a's database (its
 * own pool, as another process would open it); on SQLite, whose one writer serializes every claim, a's
 * services under another instance name. `close` releases what it opened.
 */
export function secondInstance(a: TestServices, clock: Clock): { b: Services; close(): Promise<void> } {
  if (!onPostgres) return { b: { ...a, instance: 'second-instance', wake: {} }, close: async () => {} };
  const b = serverServices(a.config.databasePath, { config: a.config, clock });
  return { b, close: () => b.db.close() };
}

export async function makeAccount(s: Services, input: Partial<CreateAccountInput> = {}) {
  return createAccount(s, { name: 'Test Merchant', ...input });
}

const createCaller = createCallerFactory(appRouter);

/** A tRPC caller acting as `accountId` (as the bearer middleware would have resolved it). */
export function callerFor(s: Services, accountId: string | null, kind: Auth['kind'] = 'bearer') {
  return createCaller(createContextInner({ services: s, auth: accountId ? { kind, accountId } : null }));
}

export { waitFor } from './wait';
