// How the dashboard's search reads names (pure): the folding and word splitting that db/schema/search.ts
// writes as SQL for the indexed columns and server/domain/search.ts applies to the typed text.

/**
 * How names are compared in a search: accents dropped and ASCII lower-cased, so "joão", "Joao" and
 * "JOÃO" find each other. The same folding exists twice, as SQL for the generated, indexed columns
 * and as JS for the searched text (server/domain/search.ts); test/unit/search-words.test.ts keeps them equal.
 */
export const FOLDED_LETTERS: [string, string][] = [
  ['á', 'a'], ['à', 'a'], ['â', 'a'], ['ã', 'a'], ['ä', 'a'], ['Á', 'a'], ['À', 'a'], ['Â', 'a'], ['Ã', 'a'], ['Ä', 'a'],
  ['é', 'e'], ['è', 'e'], ['ê', 'e'], ['ë', 'e'], ['É', 'e'], ['È', 'e'], ['Ê', 'e'], ['Ë', 'e'],
  ['í', 'i'], ['ì', 'i'], ['î', 'i'], ['ï', 'i'], ['Í', 'i'], ['Ì', 'i'], ['Î', 'i'], ['Ï', 'i'],
  ['ó', 'o'], ['ò', 'o'], ['ô', 'o'], ['õ', 'o'], ['ö', 'o'], ['Ó', 'o'], ['Ò', 'o'], ['Ô', 'o'], ['Õ', 'o'], ['Ö', 'o'],
  ['ú', 'u'], ['ù', 'u'], ['û', 'u'], ['ü', 'u'], ['Ú', 'u'], ['Ù', 'u'], ['Û', 'u'], ['Ü', 'u'],
  ['ç', 'c'], ['Ç', 'c'], ['ñ', 'n'], ['Ñ', 'n'],
];

/**
 * What separates the words of a name besides spaces: "Ana-Maria", "D'Ávila", "Souza, Maria", "Jr.".
 * The JS twin is wordsForSearch (server/domain/search.ts); the SQL one wordsSql (db/schema/search.ts).
 */
export const WORD_SEPARATORS = ['\\', '"', '-', '.', ',', "'", '/', '(', ')', '\t', '\n', '\r'];

/** The length of a word's stem: the words of a name are filed under their first three letters (substr(…, 1, 3) in the triggers). */
export const STEM_LENGTH = 3;
