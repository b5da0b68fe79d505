import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations, openConnection } from '../../db/client';
import { MigrationError, shippedMigrations } from '../../db/migration-history';
import { migratePostgres, PG_MIGRATIONS } from '../../db/pg/migrate';
import {
  appliedMigrations, migrateAsRelease, openRaw, schemaObjects, seedRelease010, snapshot, type DatabaseTarget, type RawDatabase, type SeededRelease,
} from '../support/release-database';
import { systemShardOf } from '../../server/domain/ledger';
import { txBody } from '../support/transactions';
import { api, logsCaughtUp, postgresDatabaseFor, removeDir, runTsx, SERVER_TEST_TIMEOUT_MS, serverEnv, startServer, type Finished } from '../support/server';

/*
 * Releases upgrade in place (CHANGELOG.md): a database made by release 0.1.0 — its frozen migrations
 * (test/fixtures/releases/0.1.0) and a merchant's history written by SQL against its schema, through its
 * triggers — is started by the code at HEAD, which migrates it at start; every row is still there, the
 * ledger audit is clean and the API serves it. And the start-up refuses what it cannot do safely: a
 * database a newer release migrated, a migration that fails (all pending migrations are one transaction:
 * nothing changes). Runs on both engines (vitest.pg.config.ts lists it).
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const ON_POSTGRES = Boolean(process.env.DATABASE_URL?.trim());
const SQLITE_MIGRATIONS = join(ROOT, 'db/migrations');
const HEAD_MIGRATIONS = ON_POSTGRES ? PG_MIGRATIONS : SQLITE_MIGRATIONS;
// the key the seeded secrets are encrypted under, given to the server as an operator would
const SECRETS_KEY = randomBytes(32);
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) removeDir(d); });

/** A new, empty database for a test: a file on SQLite, a database of the run's cluster on PostgreSQL. */
async function newDatabase(): Promise<{ dir: string; databasePath: string; target: DatabaseTarget }> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-upgrade-'));
  dirs.push(dir);
  const databasePath = join(dir, 'payments.db');
  const url = await postgresDatabaseFor(databasePath);
  if (!url) return { dir, databasePath, target: { engine: 'sqlite', path: databasePath } };
  // the run's databases are copies of a migrated template: empty this one, as a new operator's is
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql.unsafe('DROP SCHEMA IF EXISTS drizzle CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await sql.end({ timeout: 5 });
  return { dir, databasePath, target: { engine: 'postgres', url } };
}

/** Runs the server at HEAD over a database that it must refuse; what it printed and its exit code. */
function startRefused(databasePath: string): Promise<Finished> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...serverEnv(databasePath), PORT: '0', HOST: '127.0.0.1', DASHBOARD: 'false', SECRETS_KEY: SECRETS_KEY.toString('base64') };
  if (!ON_POSTGRES) delete env.DATABASE_URL;
  return runTsx('server/main.ts', [], env);
}

function expectOneLine(r: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stdout).toBe(''); // no credentials banner: no account was created
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** A copy of HEAD's migrations with one more appended: `statements`, dated after the last. */
function withAppendedMigration(tag: string, statements: string[]): string {
  const folder = mkdtempSync(join(tmpdir(), 'pix-migrations-'));
  dirs.push(folder);
  cpSync(HEAD_MIGRATIONS, folder, { recursive: true });
  const journalPath = join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] };
  const last = journal.entries[journal.entries.length - 1];
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  writeFileSync(join(folder, `${tag}.sql`), statements.join('\n--> statement-breakpoint\n'));
  return folder;
}

/** Applies a migrations folder the way the start-up does (db/client.ts, db/pg/migrate.ts). */
async function migrateWithCode(t: DatabaseTarget, folder: string): Promise<void> {
  if (t.engine === 'postgres') return migratePostgres(t.url, { migrationsFolder: folder });
  const conn = openConnection(t.path);
  try { applyMigrations(conn, folder); } finally { conn.close(); }
}

describe('upgrading a database made by release 0.1.0', () => {
  it('starts over it: every row is there, the audit is clean, the API serves the history and takes new work', async () => {
    const { dir, databasePath, target } = await newDatabase();
    await migrateAsRelease(target, '0.1.0');
    const raw = openRaw(target);
    let seeded: SeededRelease;
    let before: Record<string, unknown[]>;
    try {
      seeded = await seedRelease010(raw, { now: new Date(), secretsKey: SECRETS_KEY });
      expect(await appliedMigrations(raw, target)).toHaveLength(2);
      before = await snapshot(raw, target);
    } finally {
      await raw.close();
    }
    expect(seeded.balance).toEqual({ available: 1_000_000 + 50_000 + 30_000 + 20_000 - 2_000 - 5_000 - 30_000 - 10_000 - 15_000 - 12_000, blocked: 30_000, withdrawalsInFlight: 12_000 });

    const srv = await startServer({ dir, env: { SECRETS_KEY: SECRETS_KEY.toString('base64') } });
    try {
      // migrated at start to HEAD's last migration, and not one row changed
      const after = openRaw(target);
      try {
        expect(await appliedMigrations(after, target)).toEqual(shippedMigrations(HEAD_MIGRATIONS).map((m) => m.when));
        const now = await snapshot(after, target);
        const journal = ON_POSTGRES ? 'drizzle.__drizzle_migrations' : '__drizzle_migrations';
        for (const table of Object.keys(before)) {
          if (table === journal) continue;
          // migration 0005 shards the system books: each book 0.1.0 made is shard 0 (a system book's one
          // row keeps its balance and lines there), and nothing else of the row changed
          const rows = table === 'ledger_books'
            ? (now[table] as Record<string, unknown>[]).map(({ shard, ...book }) => { expect(Number(shard)).toBe(0); return book; })
            : now[table];
          expect(rows, table).toEqual(before[table]);
        }
      } finally {
        await after.close();
      }
      expect(srv.output()).not.toMatch(/api_key|dashboard\s/); // the merchant exists: no demo account

      // the access token 0.1.0 issued still works, and the client token still gets a new one
      const old = seeded.account.accessToken;
      expect((await api(srv.url, '/balance', { token: old })).json).toMatchObject({ available: seeded.balance.available, blocked: seeded.balance.blocked });
      const issued = await api(srv.url, '/auth/token', { body: { code: seeded.account.code, token: seeded.account.clientToken } });
      expect(issued.status, issued.text).toBe(200);
      const token = issued.json.access_token as string;

      // each withdrawal in its state with its batches, found by id, by a batch identifier and by reference
      for (const [n, w] of seeded.withdrawals.entries()) {
        for (const query of [`identifier=${w.id}`, `identifier=${w.batches.at(-1)!.id}`, `external_ref=saque-${n + 1}`]) {
          const one = await api(srv.url, `/withdraw?${query}`, { token });
          if (one.status !== 200) await logsCaughtUp(srv);
          expect(one.status, `${one.text}\n${srv.output().slice(-3000)}`).toBe(200);
          const body = JSON.stringify(one.json);
          expect(body).toContain(w.id);
          expect(body).toContain(`"${w.status}"`);
          for (const b of w.batches) expect(body).toContain(b.id);
        }
      }
      // each charge in its state, by id and by its merchant reference
      for (const [n, t] of seeded.transactions.entries()) {
        for (const query of [`id=${t.id}`, `external_ref=ref-${n + 1}`]) {
          const one = await api(srv.url, `/transaction?${query}`, { token });
          expect(one.status, `${one.text}\n${srv.output().slice(-3000)}`).toBe(200);
          const body = JSON.stringify(one.json);
          expect(body).toContain(t.id);
          expect(body).toContain(`"${t.status}"`);
        }
      }
      const invoice = (await api(srv.url, `/transaction?id=${seeded.refunds[0].transactionId}`, { token })).json;
      expect(invoice.refunded_amount).toBe(seeded.refunds.reduce((sum, r) => sum + r.amount, 0));
      expect(invoice.refunds.map((r: { id: string }) => r.id)).toEqual(seeded.refunds.map((r) => r.id));
      // the statement reads the ledger lines 0.1.0 wrote
      const statement = await api(srv.url, '/balance/statement?limit=100', { token });
      expect(statement.status, statement.text).toBe(200);
      // the available book's 13 lines: the top-up, 3 credits, 2 refunds, the hold, 4 withdrawals, 2 returns
      expect(statement.json.data).toHaveLength(13);
      expect(statement.json.data[0].balance_after).toBe(seeded.balance.available);
      // the webhook and its deliveries (its secret decrypts: the webhook can be read and rotated)
      const pair = { 'x-api-key': seeded.account.apiKey, 'x-token': token };
      const hooks = await api(srv.url, '/api/webhooks', { headers: pair });
      expect(JSON.stringify(hooks.json)).toContain(seeded.webhook.id);
      const deliveries = await api(srv.url, `/api/webhooks/${seeded.webhook.id}/deliveries`, { headers: pair });
      expect(deliveries.status, deliveries.text).toBe(200);
      for (const d of seeded.deliveries) expect(JSON.stringify(deliveries.json)).toContain(d.id);
      expect((await api(srv.url, `/api/webhooks/${seeded.webhook.id}/rotate-secret`, { headers: pair, body: {} })).status).toBe(200);

      // the live idempotency key still guards its request: another request under it is refused, not run
      const body = { amount: 2_500, key: 'fornecedor@example.com', key_type: 'EMAIL', details: { name: 'João Araújo', document: '529.982.247-25' } };
      const reused = await api(srv.url, '/withdraw/pix', { token, body, headers: { 'idempotency-key': seeded.idempotency.key } });
      expect(reused.status, reused.text).toBe(422);
      expect(reused.json.message).toBe('this idempotency-key was used with a different request');
      // and new work goes through: a withdrawal moves the balance 0.1.0 left
      const created = await api(srv.url, '/withdraw/pix', { token, body, headers: { 'idempotency-key': 'after-upgrade-1' } });
      expect(created.status, created.text).toBe(201);
      expect((await api(srv.url, '/balance', { token })).json.available).toBe(seeded.balance.available - 2_500);
      // and a charge approved now credits this merchant's own shard of card_in, the old row's balance
      // still counted with it
      const cardIn = async () => {
        const look = openRaw(target);
        try {
          return (await look.rows<{ shard: number; balance: number }>(`SELECT shard, balance FROM ledger_books WHERE account_id IS NULL AND kind = 'card_in' ORDER BY shard`))
            .map((r) => [Number(r.shard), Number(r.balance)]);
        } finally {
          await look.close();
        }
      };
      const oldCardIn = await cardIn();
      expect(oldCardIn).toEqual([[0, -30_000]]);
      const charged = await api(srv.url, '/transaction', { token, body: txBody('CARD') });
      expect(charged.status, charged.text).toBe(201);
      expect(charged.json.status).toBe('APPROVED');
      expect(await cardIn()).toEqual([[0, -30_000], [systemShardOf(seeded.account.id), -2_500]]);
    } finally {
      await srv.stop();
    }

    // the ledger audit of the upgraded database, by the operator's command
    const env: NodeJS.ProcessEnv = { ...process.env, ...serverEnv(databasePath) };
    if (!ON_POSTGRES) delete env.DATABASE_URL;
    const audit = await runTsx('scripts/audit.ts', [], env);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
  }, SERVER_TEST_TIMEOUT_MS);
});

describe('system books sharded (migration 0005)', () => {
  it('keeps each system book\'s row as shard 0 and a twin two raced first uses made as shard 1, balances and lines untouched', async () => {
    const { databasePath, target } = await newDatabase();
    await migrateAsRelease(target, '0.1.0');
    const raw = openRaw(target);
    try {
      const seeded = await seedRelease010(raw, { now: new Date(), secretsKey: SECRETS_KEY });
      // 0.1.0 opened a system book at first use without a unique guard: two jobs could each open one
      const at = new Date().toISOString();
      await raw.run(`INSERT INTO ledger_books (id, account_id, kind, allow_negative, balance, updated_at) VALUES ('lbk_upgradez_twin', NULL, 'sandbox_funding', 1, 0, ?)`, [at]);
      await raw.run(`INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at) VALUES ('lje_upgradez_twin', ?, 'sandbox_topup', NULL, 'sandbox top-up', ?)`, [seeded.account.id, at]);
      const available = (await raw.rows<{ id: string; balance: number }>(`SELECT id, balance FROM ledger_books WHERE account_id = ? AND kind = 'available'`, [seeded.account.id]))[0];
      await raw.run(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ('lje_upgradez_twin', 'lbk_upgradez_twin', -1000, -1000, ?)`, [at]);
      await raw.run(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ('lje_upgradez_twin', ?, 1000, ?, ?)`, [available.id, Number(available.balance) + 1000, at]);
      const books = `SELECT id, shard, balance, last_line_id FROM ledger_books WHERE account_id IS NULL AND kind = 'sandbox_funding' ORDER BY id`;
      const before = await raw.rows<{ id: string; balance: number; last_line_id: number }>(books.replace('shard, ', ''));
      expect(before.map((b) => Number(b.balance))).toEqual([-1_000_000, -1_000]);

      await migrateWithCode(target, HEAD_MIGRATIONS);
      const after = await raw.rows<{ id: string; shard: number; balance: number; last_line_id: number }>(books);
      expect(after.map((b) => [b.id, Number(b.shard), Number(b.balance), Number(b.last_line_id)]))
        .toEqual(before.map((b, i) => [b.id, i, Number(b.balance), Number(b.last_line_id)]));
    } finally {
      await raw.close();
    }
    // the audit of the migrated database: every book its lines, each system book the sum of its shards
    const env: NodeJS.ProcessEnv = { ...process.env, ...serverEnv(databasePath) };
    if (!ON_POSTGRES) delete env.DATABASE_URL;
    const audit = await runTsx('scripts/audit.ts', [], env);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/^ok {4}system_books$/m);
  }, SERVER_TEST_TIMEOUT_MS);
});

/** The server refuses to start over this database with one line, and the database is left exactly as it was. */
async function expectRefusedUnchanged(raw: RawDatabase, target: DatabaseTarget, databasePath: string, line: RegExp) {
  const before = { rows: await snapshot(raw, target), schema: await schemaObjects(raw, target) };
  await raw.close();
  expectOneLine(await startRefused(databasePath), line);
  const after = openRaw(target);
  try {
    expect({ rows: await snapshot(after, target), schema: await schemaObjects(after, target) }).toEqual(before);
  } finally {
    await after.close();
  }
}

describe('start-up safety', () => {
  it('refuses a database migrated by a newer release with one line, and changes nothing', async () => {
    const { databasePath, target } = await newDatabase();
    await migrateWithCode(target, HEAD_MIGRATIONS);
    const raw = openRaw(target);
    const last = shippedMigrations(HEAD_MIGRATIONS).at(-1)!;
    // what a newer release leaves: a migration this code does not know, and the table it created
    if (target.engine === 'sqlite') {
      await raw.run(`CREATE TABLE payouts (id text PRIMARY KEY NOT NULL) STRICT`);
      await raw.run(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)`, ['newer', last.when + 86_400_000]);
    } else {
      await raw.run(`CREATE TABLE payouts (id text PRIMARY KEY NOT NULL)`);
      await raw.run(`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (?, ?)`, ['newer', last.when + 86_400_000]);
    }
    await expectRefusedUnchanged(raw, target, databasePath, /the database was migrated by a newer release \(migration dated \S+ is unknown to this code, whose last is \d+_\w+\); run that release or restore a backup$/);
  }, SERVER_TEST_TIMEOUT_MS);

  it('a migration that fails at start stops the process with one line and leaves the 0.1.0 database as it was', async () => {
    const { databasePath, target } = await newDatabase();
    await migrateAsRelease(target, '0.1.0');
    const raw = openRaw(target);
    await seedRelease010(raw, { now: new Date(), secretsKey: SECRETS_KEY });
    // an index an operator added by hand under the name HEAD's 0002 creates: that migration fails
    await raw.run(`CREATE INDEX deliveries_account_due_idx ON webhooks (url)`);
    await expectRefusedUnchanged(raw, target, databasePath, /migrating the database failed, nothing was changed \(pending: 0002_schema(, \d{4}_\w+)*\): .*deliveries_account_due_idx.* already exists/);
  }, SERVER_TEST_TIMEOUT_MS);

  it('all pending migrations are one transaction: one failing midway takes back those before it', async () => {
    const { target } = await newDatabase();
    await migrateAsRelease(target, '0.1.0');
    const raw = openRaw(target);
    await seedRelease010(raw, { now: new Date(), secretsKey: SECRETS_KEY });
    const before = { rows: await snapshot(raw, target), schema: await schemaObjects(raw, target) };
    // after HEAD's own pending migrations, one whose first statement works and second fails
    const broken = withAppendedMigration('0099_broken', [
      'CREATE TABLE upgrade_probe (id text PRIMARY KEY NOT NULL)',
      `INSERT INTO upgrade_probe (id) SELECT id FROM no_such_table`,
    ]);
    const err = await migrateWithCode(target, broken).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    const pending = shippedMigrations(HEAD_MIGRATIONS).slice(2).map((m) => m.tag).concat('0099_broken').join(', ');
    expect((err as Error).message).toMatch(new RegExp(`^migrating the database failed, nothing was changed \\(pending: ${pending}\\): .*no_such_table`));
    expect((err as Error).message).not.toContain('\n');
    try {
      expect({ rows: await snapshot(raw, target), schema: await schemaObjects(raw, target) }).toEqual(before);
      // and the database is not stuck half-way: HEAD's migrations then apply
      await migrateWithCode(target, HEAD_MIGRATIONS);
      expect(await appliedMigrations(raw, target)).toEqual(shippedMigrations(HEAD_MIGRATIONS).map((m) => m.when));
    } finally {
      await raw.close();
    }
  }, SERVER_TEST_TIMEOUT_MS);
});
