import { sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * How names are compared in a search: accents dropped and ASCII lower-cased, so "joão", "Joao" and
 * "JOÃO" find each other. The same folding exists twice, as SQL for the generated, indexed columns
 * and as JS for the searched text (server/domain/search.ts); test/unit/search-fold.test.ts keeps them equal.
 */
export const FOLDED_LETTERS: [string, string][] = [
  ['á', 'a'], ['à', 'a'], ['â', 'a'], ['ã', 'a'], ['ä', 'a'], ['Á', 'a'], ['À', 'a'], ['Â', 'a'], ['Ã', 'a'], ['Ä', 'a'],
  ['é', 'e'], ['è', 'e'], ['ê', 'e'], ['ë', 'e'], ['É', 'e'], ['È', 'e'], ['Ê', 'e'], ['Ë', 'e'],
  ['í', 'i'], ['ì', 'i'], ['î', 'i'], ['ï', 'i'], ['Í', 'i'], ['Ì', 'i'], ['Î', 'i'], ['Ï', 'i'],
  ['ó', 'o'], ['ò', 'o'], ['ô', 'o'], ['õ', 'o'], ['ö', 'o'], ['Ó', 'o'], ['Ò', 'o'], ['Ô', 'o'], ['Õ', 'o'], ['Ö', 'o'],
  ['ú', 'u'], ['ù', 'u'], ['û', 'u'], ['ü', 'u'], ['Ú', 'u'], ['Ù', 'u'], ['Û', 'u'], ['Ü', 'u'],
  ['ç', 'c'], ['Ç', 'c'], ['ñ', 'n'], ['Ñ', 'n'],
];

/** The SQL of the folding, for a generated column: nested replace() around lower(trim(col)). */
export function foldedSql(column: AnySQLiteColumn): SQL {
  let expr = `lower(trim("${column.name}"))`;
  for (const [from, to] of FOLDED_LETTERS) expr = `replace(${expr}, '${from}', '${to}')`;
  return sql.raw(expr);
}
