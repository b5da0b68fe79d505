// @engines sqlite: starts PostgreSQL clusters of its own from the SQLite run
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPostgres, chooseEngine, EngineConfigError, ownTables } from '../../db/engine';
import { migratePostgres } from '../../db/pg/migrate';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';
import { accessToken, api, removeDir, runTsx, SERVER_TEST_TIMEOUT_MS, startServer, type Finished } from '../support/server';

/** Where SQLite would be: the process must not create it when DATABASE_URL is set. */
const dir = mkdtempSync(join(tmpdir(), 'pix-engine-'));
const SQLITE_PATH = join(dir, 'must-not-exist.db');
const started = new Set<ChildProcess>();
afterAll(() => {
  // a process that did not stop as it should (the test then fails) is not left running
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `entry` with DATABASE_URL, as the documented npm commands do (tsx), and collects what it printed. */
function run(entry: string, databaseUrl: string): Promise<Finished> {
  return runTsx(entry, [], { ...process.env, DATABASE_URL: databaseUrl, DATABASE_PATH: SQLITE_PATH, PORT: '0', DASHBOARD: 'false' }, (child) => started.add(child));
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function expectOneLine(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(existsSync(SQLITE_PATH)).toBe(false); // no silent fall-back to SQLite
}

describe('DATABASE_URL', () => {
  it('chooses SQLite at DATABASE_PATH when unset or empty, PostgreSQL for a postgres:// URL', () => {
    expect(chooseEngine({ DATABASE_PATH: '/tmp/x.db' })).toEqual({ kind: 'sqlite', path: '/tmp/x.db' });
    expect(chooseEngine({ DATABASE_URL: '  ' })).toEqual({ kind: 'sqlite', path: './data/payments.db' });
    expect(chooseEngine({ DATABASE_URL: 'postgresql://u:p@db.internal/payments' })).toMatchObject({ kind: 'postgres', where: 'db.internal:5432/payments' });
  });

  it('refuses a malformed URL with a sentence that never repeats the password', () => {
    for (const bad of ['postgres//u:pw@host/db', 'mysql://u:topsecret@host/db', 'postgres://u:topsecret@host:99999/db', 'postgres://u:topsecret@host/', 'postgres:///db']) {
      let err: unknown;
      try { chooseEngine({ DATABASE_URL: bad }); } catch (e) { err = e; }
      expect(err, bad).toBeInstanceOf(EngineConfigError);
      expect((err as Error).message).not.toContain('topsecret');
      expect((err as Error).message).toContain('DATABASE_URL');
    }
  });

  describe('against PostgreSQL', () => {
    let server: ThrowawayPostgres;
    let foreignUrl: string;
    let migratedUrl: string;
    beforeAll(async () => {
      server = await startTestPostgres();
      foreignUrl = await server.createDatabase('shop');
      const sql = postgres(foreignUrl, { max: 1, onnotice: () => {} });
      await sql`CREATE TABLE orders (id int primary key)`;
      await sql.end();
      migratedUrl = await server.createDatabase('migrated');
      await migratePostgres(migratedUrl);
    });
    afterAll(async () => { await server?.stop(); });

    it('accepts an empty database and one this service migrated, and no other', async () => {
      expect(await checkPostgres(chooseEngine({ DATABASE_URL: server.url }) as never)).toMatchObject({ empty: true });
      expect(await checkPostgres(chooseEngine({ DATABASE_URL: migratedUrl }) as never)).toMatchObject({ empty: false });
      expect((await ownTables()).size).toBeGreaterThan(15);
      await expect(checkPostgres(chooseEngine({ DATABASE_URL: foreignUrl }) as never)).rejects.toThrow(/tables this service did not create \(orders\)/);
    });

    it('says why it cannot connect: wrong password, missing database, nothing listening', async () => {
      const u = new URL(server.url);
      u.password = 'wrong-password';
      await expect(checkPostgres(chooseEngine({ DATABASE_URL: u.toString() }) as never)).rejects.toThrow(/refused the user name or password/);
      u.password = new URL(server.url).password;
      u.pathname = '/nosuchdb';
      await expect(checkPostgres(chooseEngine({ DATABASE_URL: u.toString() }) as never)).rejects.toThrow(/database does not exist/);
      const port = await closedPort();
      const err = await checkPostgres(chooseEngine({ DATABASE_URL: `postgres://u:topsecret@127.0.0.1:${port}/db` }) as never).catch((e) => e);
      expect(err).toBeInstanceOf(EngineConfigError);
      expect(err.message).toMatch(/nothing listens there/);
      expect(err.message).not.toContain('topsecret');
    });

    it('stops the server at start with one line and exit code 2: malformed, unreachable, foreign tables', async () => {
      const port = await closedPort();
      const [malformed, unreachable, foreign] = await Promise.all([
        run('server/main.ts', 'postgres//u:pw@host/db'),
        run('server/main.ts', `postgres://u:topsecret@127.0.0.1:${port}/payments`),
        run('server/main.ts', foreignUrl),
      ]);
      expectOneLine(malformed, /^DATABASE_URL must look like postgres:\/\//);
      expectOneLine(unreachable, new RegExp(`^cannot use the PostgreSQL database at 127.0.0.1:${port}/payments \\(DATABASE_URL\\): nothing listens there$`));
      expect(unreachable.stderr).not.toContain('topsecret');
      expectOneLine(foreign, /holds tables this service did not create \(orders\)/);
    }, SERVER_TEST_TIMEOUT_MS);

    it('serves from PostgreSQL: an empty database is migrated at start, the API and /readyz answer, nothing goes to SQLite', async () => {
      const url = await server.createDatabase('served');
      const srv = await startServer({ env: { DATABASE_URL: url, DATABASE_PATH: SQLITE_PATH } });
      try {
        const token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
        const before = (await api(srv.url, '/balance', { token })).json.available as number;
        const top = await api(srv.url, '/sandbox/topup', { token, body: { amount: 12_345 } });
        expect(top.status).toBe(201);
        expect((await api(srv.url, '/balance', { token })).json.available).toBe(before + 12_345);
        const ready = await fetch(`${srv.url}/readyz`);
        expect(ready.status, await ready.clone().text()).toBe(200);
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          expect((await sql`SELECT sum(balance)::int AS total FROM ledger_books`)[0].total).toBe(0);
        } finally {
          await sql.end();
        }
        expect(existsSync(SQLITE_PATH)).toBe(false);
      } finally {
        await srv.stop();
        removeDir(srv.dir);
      }
    }, SERVER_TEST_TIMEOUT_MS);

    it('refuses the commands that only exist for SQLite\'s file (backup, restore) with one line', async () => {
      const backup = await run('scripts/backup.ts', migratedUrl);
      expectOneLine(backup, /points at PostgreSQL \(127\.0\.0\.1:\d+\/migrated\): this command works on SQLite's database file only/);
    }, SERVER_TEST_TIMEOUT_MS);
  });
});
