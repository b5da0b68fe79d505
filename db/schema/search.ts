import { sql, type SQL } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { FOLDED_LETTERS, WORD_SEPARATORS } from '../../contract/search-words';

// the folding, the separators and the stem's length are the contract's (the domain folds the typed text the same way)
export { FOLDED_LETTERS, STEM_LENGTH, WORD_SEPARATORS } from '../../contract/search-words';

/** The SQL of the folding in SQLite (db/pg/schema/columns.ts has PostgreSQL's), for a generated column: nested replace() around lower(trim(col)). */
export function foldedSql(columnName: string): SQL {
  let expr = `lower(trim("${columnName}"))`;
  for (const [from, to] of FOLDED_LETTERS) expr = `replace(${expr}, '${from}', '${to}')`;
  return sql.raw(expr);
}

/**
 * The SQL of a name's words, for a generated column over the folded name (`folded`, itself generated):
 * a JSON array of its words ('["maria","da","silva"]', with empty strings where separators repeat).
 * json_quote escapes whatever JSON cannot carry bare, and an escape never holds a space, so splitting
 * the quoted name at its spaces always gives valid JSON. json_each reads it in the word triggers
 * (db/sql/triggers.sql), and instr(words, '"' || term) checks a word prefix.
 */
export function wordsSql(foldedName: string): SQL {
  let expr = `"${foldedName}"`;
  for (const sep of WORD_SEPARATORS) expr = `replace(${expr}, ${sqlChar(sep)}, ' ')`;
  return sql.raw(`'[' || replace(json_quote(${expr}), ' ', '","') || ']'`);
}

function sqlChar(c: string): string {
  if (c === "'") return "''''";
  const code = c.charCodeAt(0);
  return code < 32 ? `char(${code})` : `'${c}'`;
}

/**
 * The words of customers' and recipients' names, for the dashboard's word-prefix search ("silva" finds
 * "Maria da Silva"). Filled by triggers on transactions and withdrawals (db/sql/triggers.sql,
 * db/pg/sql/triggers.sql), never by code. One row per owner and stem: `words` holds that owner's words
 * with this stem (",maria,mariana"), so an owner appears once per stem and a page needs no DISTINCT. The
 * index walks one stem of one account newest first, in the very (created_at, id) order of the lists, and
 * the keyset cursor seeks in it.
 */
export function searchTables<D extends Dialect, C extends Columns>(k: Kit<D, C>) {
  const nameWords = k.table('name_words', {
    accountId: k.text('account_id'),
    /** Whose name: a charge's customer or a withdrawal's recipient. */
    subject: k.enumText('subject', ['transaction', 'withdrawal']),
    stem: k.text('stem'),
    createdAt: k.instant('created_at'),
    ownerId: k.text('owner_id'),
    /** The owner's words under this stem, each preceded by a comma (never part of a word): instr(words, ',' || term) is a word prefix. */
    words: k.text('words'),
  }, (t) => [
    // an owner has one row per stem (owner ids carry their kind's prefix, so they never collide)
    k.primaryKey({ columns: [t.ownerId, t.stem] }),
    k.index('name_words_search_idx').on(t.accountId, t.subject, t.stem, t.createdAt, t.ownerId, t.words),
  ]);
  return { nameWords };
}
