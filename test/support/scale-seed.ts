// A database of a million charges and withdrawals for the query-plan tests (test/api/*-scale.test.ts),
// seeded in seconds: one INSERT … SELECT over a recursive CTE per table, in one transaction on a
// connection of its own with the journal and syncing off (a throwaway file), before the services open
// it. The triggers of the schema run as in production (name_words is filled by them).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../server/clock';
import { loadConfig } from '../../server/config';
import { createServices, type Services } from '../../server/services';
import { openConnection } from '../../db/client';
import { makeAccount } from './services';

export const SCALE_ROWS = Number(process.env.SCALE_ROWS ?? 1_000_000);
const BASE = Date.parse('2026-01-01T03:00:00.000Z'); // midnight in Brasília
/** Row i was created i minutes after midnight of 2026-01-01 in Brasília. */
export const at = (i: number) => new Date(BASE + i * 60_000).toISOString();
export const txn = (i: number) => `txn_${String(i).padStart(20, '0')}`;
export const wd = (i: number) => `wd_${String(i).padStart(20, '0')}`;
export const wdb = (i: number) => `wdb_${String(i).padStart(20, '0')}`;
/** Every 50th row belongs to another account, mixed in. */
export const mine = (i: number) => i % 50 !== 49;
export const FIRST_NAMES = ['Maria', 'João', 'Ana', 'Pedro', 'Lúcia', 'José', 'Carla', 'Bruno'];
export const SURNAMES = ['Souza', 'Lima', 'da Silva', 'Alves', 'Araújo', 'Pereira', 'Costa', 'Gonçalves Dias'];
/** One row has a name found nowhere else. */
export const RARE = { row: 777_777 % SCALE_ROWS, name: 'Zélia Gonçalves' };
export const nameOf = (i: number) => (i === RARE.row ? RARE.name : `${FIRST_NAMES[i % 8]} ${SURNAMES[Math.floor(i / 8) % 8]}`);
export const CPF = '52998224725';
export const CNPJ = '11222333000181';
export const chargeE2e = (i: number) => `E12345678${String(202601010000 + i).slice(0, 12)}${String(i).padStart(11, '0')}`;
export const batchE2e = (i: number) => `E00000000${String(202601010000 + i).slice(0, 12)}${String(i).padStart(11, '0')}`;
/** Charges: amount, method and status by row. */
export const chargeAmount = (i: number) => 1000 + (i % 5000);
export const chargeMethod = (i: number) => (['PIX', 'CARD', 'INVOICE'] as const)[i % 3];
export const failed = (i: number) => i % 10 === 3; // REFUSED charges, ERROR withdrawals
export const withdrawalAmount = (i: number) => 100 + (i % 1000);
export const withdrawalKey = (i: number) => (i % 2 ? `fulano${i % 100}@example.com` : CNPJ);

/** The SQL twins of the functions above, over the CTE's `i`. */
const SQL = {
  at: `strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE / 1000} + i * 60, 'unixepoch')`,
  id: (prefix: string) => `'${prefix}_' || printf('%020d', i)`,
  account: `CASE WHEN i % 50 = 49 THEN @other ELSE @account END`,
  name: `CASE WHEN i = ${RARE.row} THEN '${RARE.name}' ELSE json_extract('${JSON.stringify(FIRST_NAMES)}', '$[' || (i % 8) || ']') || ' ' || json_extract('${JSON.stringify(SURNAMES)}', '$[' || ((i / 8) % 8) || ']') END`,
  e2e: (psp: string) => `'E${psp}' || substr(CAST(202601010000 + i AS TEXT), 1, 12) || printf('%011d', i)`,
};
const rows = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @last)`;

const timed = (conn: Database.Database, what: string, sql: string, p: Record<string, unknown>) => {
  const t0 = Date.now();
  if (Object.keys(p).length) conn.prepare(sql).run(p);
  else conn.exec(sql);
  if (process.env.SCALE_TIMING) console.log(what, Date.now() - t0, 'ms');
};

function seedCharges(conn: Database.Database, p: Record<string, unknown>) {
  timed(conn, 'customers', `INSERT INTO customers (id, account_id, name, email, document, created_at) ${rows}
    SELECT ${SQL.id('cus')}, ${SQL.account}, ${SQL.name}, 'cliente' || (i % 5000) || '@example.com',
      CASE WHEN i % 1000 = 7 THEN '${CPF}' ELSE CAST(10000000000 + i AS TEXT) END, ${SQL.at} FROM n`, p);
  timed(conn, 'transactions', `INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, end_to_end, external_ref, created_at, updated_at) ${rows}
    SELECT ${SQL.id('txn')}, ${SQL.account}, 'txn' || printf('%020d', i), CASE i % 3 WHEN 0 THEN 'PIX' WHEN 1 THEN 'CARD' ELSE 'INVOICE' END,
      CASE WHEN i % 10 = 3 THEN 'REFUSED' ELSE 'APPROVED' END, 1000 + i % 5000, ${SQL.id('cus')}, '[]',
      CASE WHEN i % 3 = 0 THEN ${SQL.e2e('12345678')} END, 'pedido-' || i, ${SQL.at}, ${SQL.at} FROM n`, p);
}

function seedWithdrawals(conn: Database.Database, p: Record<string, unknown>) {
  timed(conn, 'withdrawals', `INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, external_ref, created_at, updated_at) ${rows}
    SELECT ${SQL.id('wd')}, ${SQL.account}, CASE WHEN i % 10 = 3 THEN 'ERROR' ELSE 'PAID' END, 100 + i % 1000,
      CASE WHEN i % 2 = 1 THEN 'fulano' || (i % 100) || '@example.com' ELSE '${CNPJ}' END, CASE WHEN i % 2 = 1 THEN 'EMAIL' ELSE 'CNPJ' END,
      ${SQL.name}, CASE WHEN i % 1000 = 9 THEN '${CPF}' ELSE '11144477735' END, 'saque-' || i, ${SQL.at}, ${SQL.at} FROM n`, p);
  timed(conn, 'withdrawal_batches', `INSERT INTO withdrawal_batches (id, withdrawal_id, account_id, seq, amount, status, due_at, end_to_end, created_at, updated_at) ${rows}
    SELECT ${SQL.id('wdb')}, ${SQL.id('wd')}, ${SQL.account}, 0, 100 + i % 1000, CASE WHEN i % 10 = 3 THEN 'ERROR' ELSE 'PAID' END,
      ${SQL.at}, ${SQL.e2e('00000000')}, ${SQL.at}, ${SQL.at} FROM n`, p);
}

const CACHE = join(tmpdir(), 'pix-scale-cache');
const MIGRATIONS = new URL('../../db/migrations/', import.meta.url).pathname;

/** The seeded file for these options: from the cache when the migrations and this seed are unchanged. */
async function cachedSeed(o: { rows: number }): Promise<{ dir: string; accountId: string; other: string }> {
  const hash = createHash('sha256').update(JSON.stringify(o)).update(readFileSync(new URL(import.meta.url).pathname));
  for (const f of readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()) hash.update(readFileSync(join(MIGRATIONS, f)));
  const dir = join(CACHE, hash.digest('hex').slice(0, 16));
  mkdirSync(CACHE, { recursive: true });
  // one seeder at a time (test files run in parallel): the others wait for its meta.json, by condition
  const lock = `${dir}.lock`;
  let held = false;
  while (!held && !existsSync(join(dir, 'meta.json'))) {
    // a lock left by a seeder that was killed goes stale after 20 minutes
    if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 20 * 60_000) rmSync(lock, { recursive: true, force: true });
    try { mkdirSync(lock); held = true; } catch { await new Promise((r) => setTimeout(r, 500)); }
  }
  if (held && existsSync(join(dir, 'meta.json'))) rmSync(lock, { recursive: true, force: true });
  else if (held) {
    const building = mkdtempSync(join(CACHE, 'building-'));
    try {
      const meta = await seed(join(building, 'scale.db'), o);
      writeFileSync(join(building, 'meta.json'), JSON.stringify(meta));
      // another test file may have finished the same seed meanwhile: the first rename wins
      try { renameSync(building, dir); } catch { /* already there */ }
      // seeds of older schemas are of no further use
      for (const f of readdirSync(CACHE)) if (!f.startsWith('building-') && !f.endsWith('.lock') && join(CACHE, f) !== dir) rmSync(join(CACHE, f), { recursive: true, force: true });
    } finally {
      rmSync(building, { recursive: true, force: true });
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return { dir, ...(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { accountId: string; other: string }) };
}

async function seed(path: string, o: { rows: number }): Promise<{ accountId: string; other: string }> {
  const config = loadConfig({ databasePath: path, rateLimitRps: 0, sandboxSettlementDelayMs: 0 });
  const first = createServices({ config, clock: new ManualClock(new Date()) });
  const accountId = (await makeAccount(first)).account_id;
  const other = (await makeAccount(first)).account_id;
  await first.db.close();

  const t0 = Date.now();
  const conn = new Database(path);
  // a throwaway file: nothing to recover if this process dies, so no journal and no fsync
  conn.pragma('journal_mode = OFF');
  conn.pragma('synchronous = OFF');
  conn.pragma('cache_size = -262144');
  conn.pragma('temp_store = MEMORY');
  const p = { account: accountId, other, last: o.rows - 1 };
  // Rows go in with only the primary keys (appends, in key order); each index is then built once by
  // sorting, far faster than a million inserts at random places of a dozen B-trees. The index
  // definitions are read back from the database, so what the plans see is the migrations' schema.
  const indexes = conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
    AND tbl_name IN ('customers', 'transactions', 'withdrawals', 'withdrawal_batches', 'name_words')`).all() as { name: string; sql: string }[];
  conn.transaction(() => {
    for (const i of indexes) conn.exec(`DROP INDEX "${i.name}"`);
    seedCharges(conn, p);
    seedWithdrawals(conn, p);
    for (const i of indexes) timed(conn, i.name, i.sql, {});
  })();
  conn.pragma('journal_mode = WAL');
  conn.close();
  if (process.env.SCALE_TIMING) console.log('seed', Date.now() - t0, 'ms');
  return { accountId, other };
}

export interface ScaleDatabase {
  s: Services;
  accountId: string;
  other: string;
  /** EXPLAIN QUERY PLAN of the very query the domain runs, on a connection of its own. */
  plan(q: { toSQL(): { sql: string; params: unknown[] } } | null): string;
  cleanup(): Promise<void>;
}

/**
 * A fresh database with the migrations applied, two accounts, `rows` charges (each with its customer)
 * and `rows` withdrawals (each with one batch), then the services over it. The seeded file is
 * kept in the temp dir between runs, keyed by the migrations and this seed, and copied for each test
 * file (a copy takes seconds; the seed, a couple of minutes on a loaded 2-core machine, because every
 * insert computes the folded-name columns and the name_words trigger, as production does).
 */
export async function seedScaleDatabase(rows = SCALE_ROWS): Promise<ScaleDatabase> {
  const seeded = await cachedSeed({ rows });
  const dir = mkdtempSync(join(tmpdir(), 'pix-scale-'));
  for (const f of ['scale.db', 'secrets.key']) if (existsSync(join(seeded.dir, f))) copyFileSync(join(seeded.dir, f), join(dir, f));
  const config = loadConfig({ databasePath: join(dir, 'scale.db'), rateLimitRps: 0, sandboxSettlementDelayMs: 0 });
  const { accountId, other } = seeded;
  const s = createServices({ config, clock: new ManualClock(new Date()) });
  let raw: Database.Database | undefined;
  return {
    s, accountId, other,
    plan(q) {
      if (!q) throw new Error('no query');
      const { sql, params } = q.toSQL();
      raw ??= openConnection(config.databasePath, { readonly: true });
      const steps = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as never[])) as { detail: string }[];
      if (process.env.SHOW_PLANS) console.log(sql, '\n', steps.map((r) => r.detail).join('\n'));
      return steps.map((r) => r.detail).join('\n');
    },
    async cleanup() {
      raw?.close();
      await s.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `entries` balanced ledger entries (2 lines each) moving 1,00 from the system book to the `available`
 * book of `accountId`, straight into SQLite's file while no server has it open: the lines' indexes and
 * the ledger triggers are dropped for the bulk insert and put back from their own definitions, and each
 * line's balance_after and the two books' balances are set as the triggers would have left them, so the
 * audit passes. Returns how many lines the ledger then has.
 */
export function seedLedgerLines(path: string, o: { accountId: string; entries: number }): number {
  const conn = new Database(path);
  try {
    conn.pragma('synchronous = OFF');
    conn.pragma('cache_size = -262144');
    const merchant = (conn.prepare(`SELECT id, balance FROM ledger_books WHERE account_id = ? AND kind = 'available'`).get(o.accountId) as { id: string; balance: number });
    const system = (conn.prepare(`SELECT id, balance FROM ledger_books WHERE account_id IS NULL ORDER BY id LIMIT 1`).get() as { id: string; balance: number });
    const guards = conn.prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN ('ledger_lines', 'ledger_entries', 'ledger_books')
      AND (type = 'trigger' OR (type = 'index' AND tbl_name IN ('ledger_lines', 'ledger_entries')))`).all() as { type: string; name: string; sql: string }[];
    const p = { account: o.accountId, merchant: merchant.id, system: system.id, mb: merchant.balance, sb: system.balance, last: o.entries - 1 };
    const seq = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @last)`;
    // dated in 2025, before anything the application wrote, one second apart
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${Date.parse('2025-01-01T00:00:00.000Z') / 1000} + i, 'unixepoch')`;
    conn.transaction(() => {
      for (const g of guards) conn.exec(`DROP ${g.type.toUpperCase()} "${g.name}"`);
      conn.prepare(`INSERT INTO ledger_entries (id, account_id, kind, created_at) ${seq}
        SELECT 'lje_seed_' || printf('%012d', i), @account, 'sandbox_topup', ${at} FROM n`).run(p);
      conn.prepare(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) ${seq}, line(i, book, amount, balance_after) AS (
          SELECT i, @system, -100, @sb - 100 * (i + 1) FROM n UNION ALL SELECT i, @merchant, 100, @mb + 100 * (i + 1) FROM n)
        SELECT 'lje_seed_' || printf('%012d', i), book, amount, balance_after, ${at} FROM line ORDER BY i, amount`).run(p);
      conn.prepare(`UPDATE ledger_books SET balance = balance + CASE id WHEN @merchant THEN 100 ELSE -100 END * (@last + 1),
        last_line_id = (SELECT max(id) FROM ledger_lines WHERE book_id = ledger_books.id) WHERE id IN (@merchant, @system)`).run(p);
      for (const g of guards) conn.exec(g.sql);
    })();
    conn.pragma('wal_checkpoint(TRUNCATE)');
    return (conn.prepare('SELECT count(*) AS n FROM ledger_lines').get() as { n: number }).n;
  } finally {
    conn.close();
  }
}
