// A database of a million charges and withdrawals for the query-plan tests (test/api/*-scale.test.ts),
// seeded by one INSERT … SELECT per table over a temp table of the per-row values, on a connection of its
// own with the journal and syncing off (a throwaway file), before the services open it. What the schema
// computes per row is computed once per distinct value instead: name_words from what its triggers make
// for one probe row per name, and the folded-name columns not at all while loading (they are VIRTUAL).
// The file ends with exactly the migrated schema; the indexes' sorts are most of what is left (SCALE_TIMING=1).
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

/**
 * The SQL twins of the functions above, over a row of seed_rows: `i`, and what several tables share,
 * computed once per row (strftime and printf are most of an insert's time): `n`, i in 20 digits, `at`
 * and `name`.
 */
const SQL = {
  at: `strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE / 1000} + i * 60, 'unixepoch')`,
  id: (prefix: string) => `'${prefix}_' || n`,
  account: `CASE WHEN i % 50 = 49 THEN @other ELSE @account END`,
  name: `CASE WHEN i = ${RARE.row} THEN '${RARE.name}' ELSE json_extract('${JSON.stringify(FIRST_NAMES)}', '$[' || (i % 8) || ']') || ' ' || json_extract('${JSON.stringify(SURNAMES)}', '$[' || ((i / 8) % 8) || ']') END`,
  // printf('%011d', i) is the last 11 of n's 20 digits
  e2e: (psp: string) => `'E${psp}' || substr(CAST(202601010000 + i AS TEXT), 1, 12) || substr(n, 10)`,
};

const timed = (conn: Database.Database, what: string, sql: string, p: Record<string, unknown>) => {
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  if (Object.keys(p).length) conn.prepare(sql).run(p);
  else conn.exec(sql);
  const c = process.cpuUsage(c0);
  if (process.env.SCALE_TIMING) console.log(what, Date.now() - t0, 'ms', Math.round((c.user + c.system) / 1000), 'ms cpu');
};

function seedRows(conn: Database.Database, p: Record<string, unknown>) {
  conn.exec(`CREATE TEMP TABLE seed_rows (i INTEGER PRIMARY KEY, n TEXT NOT NULL, at TEXT NOT NULL, name TEXT NOT NULL)`);
  timed(conn, 'seed_rows', `INSERT INTO seed_rows (i, n, at, name) WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @last)
    SELECT i, printf('%020d', i), ${SQL.at}, ${SQL.name} FROM n`, p);
}

function seedCharges(conn: Database.Database, p: Record<string, unknown>) {
  timed(conn, 'customers', `INSERT INTO customers (id, account_id, name, email, document, created_at)
    SELECT ${SQL.id('cus')}, ${SQL.account}, name, 'cliente' || (i % 5000) || '@example.com',
      CASE WHEN i % 1000 = 7 THEN '${CPF}' ELSE CAST(10000000000 + i AS TEXT) END, at FROM seed_rows`, p);
  timed(conn, 'transactions', `INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, end_to_end, external_ref, created_at, updated_at)
    SELECT ${SQL.id('txn')}, ${SQL.account}, 'txn' || n, CASE i % 3 WHEN 0 THEN 'PIX' WHEN 1 THEN 'CARD' ELSE 'INVOICE' END,
      CASE WHEN i % 10 = 3 THEN 'REFUSED' ELSE 'APPROVED' END, 1000 + i % 5000, ${SQL.id('cus')}, '[]',
      CASE WHEN i % 3 = 0 THEN ${SQL.e2e('12345678')} END, 'pedido-' || i, at, at FROM seed_rows`, p);
}

function seedWithdrawals(conn: Database.Database, p: Record<string, unknown>) {
  timed(conn, 'withdrawals', `INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, external_ref, created_at, updated_at)
    SELECT ${SQL.id('wd')}, ${SQL.account}, CASE WHEN i % 10 = 3 THEN 'ERROR' ELSE 'PAID' END, 100 + i % 1000,
      CASE WHEN i % 2 = 1 THEN 'fulano' || (i % 100) || '@example.com' ELSE '${CNPJ}' END, CASE WHEN i % 2 = 1 THEN 'EMAIL' ELSE 'CNPJ' END,
      name, CASE WHEN i % 1000 = 9 THEN '${CPF}' ELSE '11144477735' END, 'saque-' || i, at, at FROM seed_rows`, p);
  timed(conn, 'withdrawal_batches', `INSERT INTO withdrawal_batches (id, withdrawal_id, account_id, seq, amount, status, due_at, end_to_end, created_at, updated_at)
    SELECT ${SQL.id('wdb')}, ${SQL.id('wd')}, ${SQL.account}, 0, 100 + i % 1000, CASE WHEN i % 10 = 3 THEN 'ERROR' ELSE 'PAID' END,
      at, ${SQL.e2e('00000000')}, at, at FROM seed_rows`, p);
}

/**
 * name_words (db/migrations/0001_ledger_triggers.sql) without running its triggers a million times.
 * A row's words depend only on its name, so the triggers themselves are first run once per distinct
 * name, on probe rows, and what they make is kept in temp.seed_words. Then every charge and withdrawal
 * gets its name's words by one INSERT … SELECT that puts each row's own columns where the triggers put
 * them, in the order they make them; this mapping is checked here against what the triggers made for
 * the probes, so a trigger that changes makes the seed fail instead of drift.
 */
const nameWordsOf = (subject: 'transaction' | 'withdrawal', only = '') =>
  `SELECT t.account_id, '${subject}', w.stem, t.created_at, t.id, w.words FROM ${subject === 'transaction'
    ? 'transactions t CROSS JOIN customers c ON c.id = t.customer_id LEFT JOIN seed_words w ON w.subject = \'transaction\' AND w.name = c.name'
    : 'withdrawals t LEFT JOIN seed_words w ON w.subject = \'withdrawal\' AND w.name = t.details_name'} ${only} ORDER BY t.rowid, w.stem`;

type Words = [subject: string, name: string, stem: string, words: string][];
const keepWords = (conn: Database.Database, words: Words) => {
  conn.exec(`CREATE TEMP TABLE seed_words (subject TEXT NOT NULL, name TEXT NOT NULL, stem TEXT NOT NULL, words TEXT NOT NULL,
    PRIMARY KEY (subject, name, stem)) WITHOUT ROWID`);
  const add = conn.prepare(`INSERT INTO seed_words (subject, name, stem, words) VALUES (?, ?, ?, ?)`);
  for (const w of words) add.run(...w);
};

function probeNameWords(conn: Database.Database, p: { account: string; last: number }): Words {
  const names = new Set<string>();
  for (let i = 0; i <= Math.min(p.last, 127); i++) names.add(nameOf(i));
  names.add(nameOf(RARE.row));
  const q = { account: p.account, names: JSON.stringify([...names]) };
  const at = `printf('2025-12-31T%02d:%02d:00.000Z', key / 60, key % 60)`;
  for (const table of ['customers', 'transactions', 'withdrawals', 'name_words']) {
    if (conn.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get()) throw new Error(`the scale seed expects an empty ${table}`);
  }
  conn.prepare(`INSERT INTO customers (id, account_id, name, email, document, created_at)
    SELECT 'cus_probe_' || key, @account, value, 'probe@example.com', '0', ${at} FROM json_each(@names)`).run(q);
  conn.prepare(`INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, created_at, updated_at)
    SELECT 'txn_probe_' || key, @account, 'probe' || key, 'PIX', 'APPROVED', 1000, 'cus_probe_' || key, '[]', ${at}, ${at} FROM json_each(@names)`).run(q);
  conn.prepare(`INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, created_at, updated_at)
    SELECT 'wd_probe_' || key, @account, 'PAID', 100, '${CNPJ}', 'CNPJ', value, '0', ${at}, ${at} FROM json_each(@names)`).run(q);
  const words = conn.prepare(`SELECT nw.subject, coalesce(c.name, w.details_name), nw.stem, nw.words FROM name_words nw
      LEFT JOIN transactions t ON t.id = nw.owner_id AND nw.subject = 'transaction' LEFT JOIN customers c ON c.id = t.customer_id
      LEFT JOIN withdrawals w ON w.id = nw.owner_id AND nw.subject = 'withdrawal'`).raw().all() as Words;
  keepWords(conn, words);
  const made = JSON.stringify(conn.prepare(`SELECT account_id, subject, stem, created_at, owner_id, words FROM name_words ORDER BY rowid`).raw().all());
  const mapped = JSON.stringify([...conn.prepare(nameWordsOf('transaction')).raw().all(), ...conn.prepare(nameWordsOf('withdrawal')).raw().all()]);
  if (made !== mapped) throw new Error(`the name_words triggers no longer make what nameWordsOf does: update ${import.meta.url}`);
  conn.exec(`DELETE FROM name_words; DELETE FROM withdrawals; DELETE FROM transactions; DELETE FROM customers; DROP TABLE temp.seed_words`);
  return words;
}

function seedNameWords(conn: Database.Database, subject: 'transaction' | 'withdrawal') {
  // a name without probed words would insert a NULL stem, which name_words refuses
  timed(conn, `${subject} name_words`, `INSERT INTO name_words (account_id, subject, stem, created_at, owner_id, words) ${nameWordsOf(subject)}`, {});
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

/** A connection for loading a throwaway file: nothing to recover if this process dies, so no journal and no fsync. */
function openSeeding(path: string) {
  const conn = new Database(path);
  conn.pragma('journal_mode = OFF');
  conn.pragma('synchronous = OFF');
  conn.pragma('locking_mode = EXCLUSIVE');
  conn.pragma('cache_size = -262144');
  conn.pragma('temp_store = MEMORY');
  conn.pragma(`mmap_size = ${8 * 2 ** 30}`);
  return conn;
}

/** The table's CREATE statement without its VIRTUAL generated columns (one a line, as drizzle-kit writes them). */
function withoutVirtualColumns(sql: string) {
  const lines = sql.split('\n');
  const generated = lines.filter((l) => l.includes(' GENERATED ALWAYS AS '));
  if (!generated.length || generated.some((l) => !/ VIRTUAL,?$/.test(l))) throw new Error(`expected VIRTUAL generated columns, one a line: ${sql.slice(0, 60)}`);
  return lines.filter((l) => !generated.includes(l)).join('\n');
}

/**
 * Declares these tables with other CREATE statements that store the same columns (SQLite's own recipe
 * for changes that leave the file's format alone: https://sqlite.org/lang_altertable.html#otheralter),
 * and returns a new connection, which reads the new schema.
 */
function declare(conn: Database.Database, path: string, tables: { name: string; sql: string }[]) {
  conn.unsafeMode(true);
  const version = conn.pragma('schema_version', { simple: true }) as number;
  conn.pragma('writable_schema = ON');
  const set = conn.prepare(`UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?`);
  for (const t of tables) set.run(t.sql, t.name);
  conn.pragma(`schema_version = ${version + 1}`);
  conn.pragma('writable_schema = OFF');
  conn.close();
  return openSeeding(path);
}

async function seed(path: string, o: { rows: number }): Promise<{ accountId: string; other: string }> {
  const config = loadConfig({ databasePath: path, rateLimitRps: 0, sandboxSettlementDelayMs: 0 });
  const first = createServices({ config, clock: new ManualClock(new Date()) });
  const accountId = (await makeAccount(first)).account_id;
  const other = (await makeAccount(first)).account_id;
  await first.db.close();

  const t0 = Date.now();
  const p = { account: accountId, other, last: o.rows - 1 };
  let conn = openSeeding(path);
  const schema = () => JSON.stringify(conn.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`).all());
  const migrated = schema();
  // Rows go in with only the primary keys (appends, in key order); each index is then built once by
  // sorting, far faster than a million inserts at random places of a dozen B-trees. The index
  // definitions are read back from the database, so what the plans see is the migrations' schema.
  const indexes = conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
    AND tbl_name IN ('customers', 'transactions', 'withdrawals', 'withdrawal_batches', 'name_words')`).all() as { name: string; sql: string }[];
  // The name_words triggers are dropped for the load and put back the same way (seedNameWords does their work).
  const triggers = conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'
    AND name IN ('transactions_name_words', 'withdrawals_name_words') ORDER BY rowid`).all() as { name: string; sql: string }[];
  if (triggers.length !== 2) throw new Error(`the name_words triggers changed (${triggers.map((t) => t.name).join(', ')}): update seedNameWords in ${import.meta.url}`);
  const words = conn.transaction(() => {
    for (const i of indexes) conn.exec(`DROP INDEX "${i.name}"`);
    const probed = probeNameWords(conn, p);
    for (const t of triggers) conn.exec(`DROP TRIGGER "${t.name}"`);
    return probed;
  })();
  // An INSERT computes every generated column of its row, the VIRTUAL ones too, though none is stored:
  // the folded names of customers and withdrawals are about half of the rows' time. For the load these
  // two tables are declared without them (the same columns on disk), then declared back as migrated.
  const tables = conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ('customers', 'withdrawals')`).all() as { name: string; sql: string }[];
  conn = declare(conn, path, tables.map((t) => ({ name: t.name, sql: withoutVirtualColumns(t.sql) })));
  conn.transaction(() => {
    keepWords(conn, words);
    seedRows(conn, p);
    seedCharges(conn, p);
    seedNameWords(conn, 'transaction');
    seedWithdrawals(conn, p);
    seedNameWords(conn, 'withdrawal');
    conn.exec('DROP TABLE temp.seed_rows; DROP TABLE temp.seed_words');
  })();
  conn = declare(conn, path, tables);
  conn.pragma('threads = 2'); // a sort may use the other core when it is free
  conn.transaction(() => {
    for (const t of triggers) conn.exec(t.sql);
    for (const i of indexes) timed(conn, i.name, i.sql, {});
  })();
  if (schema() !== migrated) throw new Error('the scale seed changed the migrated schema');
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
 * file (a copy takes seconds; the seed, under two minutes of CPU, most of it sorting the indexes).
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
