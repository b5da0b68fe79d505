import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../db/dialect';
import { rawExec } from '../../db/query';
import { api, removeDir, runTsx, serverDatabaseUrl, SERVER_TEST_TIMEOUT_MS, startServer, type Finished, type RunningServer } from '../support/server';
import { accountInServer, readServerDb } from '../support/withdrawals';

/*
 * `npm run audit` against the engine in use (vitest.pg.config.ts runs this file on PostgreSQL, where the
 * command reads DATABASE_URL): it reports each check and exits 0 on a server's live database, and
 * exits 1 naming the first break when a book no longer equals its lines.
 */
let srv: RunningServer;

function audit(): Promise<Finished> {
  const url = serverDatabaseUrl(srv.databasePath);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_PATH: srv.databasePath };
  if (url) env.DATABASE_URL = url; else delete env.DATABASE_URL;
  return runTsx('scripts/audit.ts', [], env);
}

beforeAll(async () => { srv = await startServer(); }, SERVER_TEST_TIMEOUT_MS);
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

describe('npm run audit', () => {
  it('passes on a live database with money moved, then names a forged break', async () => {
    const acc = await accountInServer(srv.url, srv.databasePath, { balance: 50_000 });
    const wd = await api(srv.url, '/withdraw/pix', { token: acc.accessToken, body: { amount: 1234, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: '529.982.247-25' } } });
    expect(wd.status).toBe(201);
    const ok = await audit();
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok {4}entries_balanced$/m);
    expect(ok.stdout).toMatch(/the books balance\n$/);

    // forge a break past the database's own guards (as a superuser could): one book off by a cent
    const view = readServerDb(srv.databasePath);
    try {
      if (onPostgres) {
        await rawExec(view.db, sql`ALTER TABLE ledger_books DISABLE TRIGGER USER`);
        await rawExec(view.db, sql`UPDATE ledger_books SET balance = balance + 1 WHERE account_id = ${acc.account_id} AND kind = 'available'`);
        await rawExec(view.db, sql`ALTER TABLE ledger_books ENABLE TRIGGER USER`);
      } else {
        await srv.stop();
        const Database = (await import('better-sqlite3')).default;
        const conn = new Database(srv.databasePath);
        const triggers = conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger_books'`).all() as { name: string; sql: string }[];
        for (const t of triggers) conn.exec(`DROP TRIGGER ${t.name}`);
        conn.prepare(`UPDATE ledger_books SET balance = balance + 1 WHERE account_id = ? AND kind = 'available'`).run(acc.account_id);
        conn.close();
      }
    } finally {
      view.close();
    }
    const broken = await audit();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^BREAK book_balances: book \S+ \(available\): balance \d+ but its lines sum to \d+$/m);
    expect(broken.stderr).toMatch(/^audit: the books do not balance: book_balances/);
  }, SERVER_TEST_TIMEOUT_MS);
});
