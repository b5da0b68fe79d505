// @engines none: starts a PostgreSQL cluster of its own (runs once)
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { wordsForSearch } from '../../server/domain/search';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/** PostgreSQL's name_words triggers file the same words as SQLite's (test/unit/search-words.test.ts). */
let pg: ThrowawayPostgres;
let sql: postgres.Sql;
beforeAll(async () => {
  pg = await startTestPostgres({ migrated: true });
  sql = postgres(pg.url, { max: 1, onnotice: () => {} });
}, 120_000);
afterAll(async () => { await sql?.end(); await pg?.stop(); });

it('files each word of a customer or recipient name under its stem, accents and case folded', async () => {
  await sql.unsafe(`SET session_replication_role = replica`); // no foreign keys: only the word triggers matter here
  await sql.unsafe(`ALTER TABLE transactions ENABLE ALWAYS TRIGGER transactions_name_words; ALTER TABLE withdrawals ENABLE ALWAYS TRIGGER withdrawals_name_words`);
  const name = "JOSÉ  Araújo-Gonçalves D'Ávila Josefa";
  await sql`INSERT INTO customers (id, account_id, name, email, document, created_at) VALUES ('cus_1', 'acc_1', ${name}, 'a@b.c', '1', '2026-01-01T00:00:00.000Z')`;
  await sql`INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, created_at, updated_at)
    VALUES ('txn_1', 'acc_1', 'i1', 'PIX', 'PENDING', 100, 'cus_1', '[]', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
  await sql`INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, created_at, updated_at)
    VALUES ('wd_1', 'acc_1', 'PAID', 100, 'k', 'EMAIL', ${name}, '1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
  const expected = new Map<string, Set<string>>();
  for (const w of wordsForSearch(name)) expected.set(w.slice(0, 3), (expected.get(w.slice(0, 3)) ?? new Set()).add(w));
  const want = [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stem, ws]) => [stem, [...ws].sort()]);
  for (const owner of ['txn_1', 'wd_1']) {
    const rows = await sql<{ stem: string; words: string }[]>`SELECT stem, words FROM name_words WHERE owner_id = ${owner} ORDER BY stem COLLATE "C"`;
    expect(rows.map((r) => [r.stem, r.words.split(',').slice(1).sort()]), owner).toEqual(want);
  }
});
