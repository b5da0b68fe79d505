// @engines sqlite: SQLite's word triggers over an in-memory database (the PostgreSQL triggers run under the API search tests)
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../db/client';
import { foldForSearch, readSearch, wordsForSearch } from '../../server/domain/search';

/**
 * The words of a name exist twice: as SQL (generated columns and the name_words triggers, over the
 * migrations) and as JS (what the merchant typed). They must agree, or a typed word misses its row.
 */
const conn = new Database(':memory:');
applyMigrations(conn);
conn.pragma('foreign_keys = OFF');
afterAll(() => conn.close());

let n = 0;
/** Inserts a charge with this customer name and a withdrawal with this recipient; returns what SQL made of it. */
function stored(name: string) {
  n += 1;
  conn.prepare(`INSERT INTO customers (id, account_id, name, email, document, created_at) VALUES (?, 'acc_1', ?, 'a@b.c', '1', '2026-01-01')`).run(`cus_${n}`, name);
  conn.prepare(`INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, created_at, updated_at)
    VALUES (?, 'acc_1', ?, 'PIX', 'PENDING', 100, ?, '[]', '2026-01-01', '2026-01-01')`).run(`txn_${n}`, `i${n}`, `cus_${n}`);
  conn.prepare(`INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, created_at, updated_at)
    VALUES (?, 'acc_1', 'PAID', 100, 'k', 'EMAIL', ?, '1', '2026-01-01', '2026-01-01')`).run(`wd_${n}`, name);
  const customer = conn.prepare('SELECT name_search, name_words FROM customers WHERE id = ?').get(`cus_${n}`) as { name_search: string; name_words: string };
  const recipient = conn.prepare('SELECT details_name_words FROM withdrawals WHERE id = ?').get(`wd_${n}`) as { details_name_words: string };
  const rows = (owner: string) => conn.prepare('SELECT stem, words FROM name_words WHERE owner_id = ? ORDER BY stem').all(owner) as { stem: string; words: string }[];
  return { folded: customer.name_search, words: (JSON.parse(customer.name_words) as string[]).filter(Boolean), recipientWords: recipient.details_name_words, charge: rows(`txn_${n}`), withdrawal: rows(`wd_${n}`) };
}

describe('the words of a name, in SQL and in JS', () => {
  const names = ['Maria da Silva', 'JOSÉ  Araújo-Gonçalves', "Ana D'Ávila (Jr.)", 'Zé', 'Ñandú, Çedilha/Ü', 'tab\tnew\nline', 'aspas "duplas" e \\barra', 'controle\u0001aqui', ''];
  it.each(names)('agree on %j', (name) => {
    const s = stored(name);
    expect(s.folded).toBe(foldForSearch(name));
    expect(s.words).toEqual(wordsForSearch(name));
    expect(s.recipientWords).toBe(JSON.stringify(JSON.parse(s.recipientWords))); // valid JSON, always
    // one row per stem (the first three letters), listing its words after commas; the same for both owners
    const expected = new Map<string, Set<string>>();
    for (const w of wordsForSearch(name)) expected.set(w.slice(0, 3), (expected.get(w.slice(0, 3)) ?? new Set()).add(w));
    const asRows = (rows: { stem: string; words: string }[]) => rows.map((r) => [r.stem, r.words.split(',').slice(1).sort()]);
    const want = [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stem, ws]) => [stem, [...ws].sort()]);
    expect(asRows(s.charge)).toEqual(want);
    expect(asRows(s.withdrawal)).toEqual(want);
  });

  it('reads typed words: the longest walks its stem, the others are checked in the name; a name needs a word of three letters', () => {
    expect(readSearch('silva').at(-1)).toEqual({ kind: 'words', stem: 'sil', key: 'silva', others: [] });
    expect(readSearch('Sil José').at(-1)).toEqual({ kind: 'words', stem: 'jos', key: 'jose', others: ['sil'] });
    expect(readSearch('ana-maria').at(-1)).toEqual({ kind: 'words', stem: 'mar', key: 'maria', others: ['ana'] });
    expect(readSearch('Jo')).toEqual([{ kind: 'reference', value: 'Jo' }]);
    expect(readSearch('a b')).toEqual([{ kind: 'reference', value: 'a b' }]);
  });
});
