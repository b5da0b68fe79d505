// The dashboard's search box: one text, read the way a merchant means it. Each reading becomes a
// predicate that one index answers in (created_at, id) order; a text with several readings (a bare
// number may be an amount or a reference) runs one keyset query per reading and merges them.
import type { Stores } from '../../db';
import type { StemWalk } from '../../db/stores/search';
import { FOLDED_LETTERS, STEM_LENGTH, WORD_SEPARATORS } from '../../contract/search-words';
import { validationError } from '../errors';
import { ID_PREFIX } from '../../contract/ids';
import { isCalendarDay, startOfLocalDay, addDays } from './local-time';
import { documentKind, normalizeDocument } from '../../contract/pix/documents';

export type SearchReading =
  | { kind: 'id'; value: string }
  | { kind: 'batch'; value: string }
  | { kind: 'endtoend'; value: string }
  | { kind: 'email'; value: string }
  | { kind: 'document'; value: string }
  | { kind: 'amount'; value: number }
  | { kind: 'reference'; value: string }
  /**
   * Word prefixes of a name ("silva" or "mar sil" for "Maria da Silva"): the typed word `key` walks its
   * stem in name_words (the longest as read, the rarest once planWordWalk has looked); every other typed
   * word must begin a word of the same name. `floor`, set by planWordWalk, is the oldest row the walk may
   * read (inclusive), so that a page reads at most WORD_WALK_CAP rows of the stem.
   */
  | { kind: 'words'; stem: string; key: string; others: string[]; floor?: { createdAt: string; id: string } };

const FOLD = new Map(FOLDED_LETTERS);

/** The JS twin of the SQL folding of the indexed name columns (contract/search-words.ts): accents dropped, ASCII lower-cased. */
export function foldForSearch(s: string): string {
  return [...s.trim().replace(/[A-Z]/g, (c) => c.toLowerCase())].map((c) => FOLD.get(c) ?? c).join('');
}

const SEPARATORS = new Set(WORD_SEPARATORS);

/** The JS twin of the SQL that splits an indexed name into words (wordsSql): the folded words of a name, in order. */
export function wordsForSearch(s: string): string[] {
  return [...foldForSearch(s)].map((c) => (SEPARATORS.has(c) ? ' ' : c)).join('').split(' ').filter(Boolean);
}

/**
 * A name as the merchant types it: its longest word walks that word's stem in name_words, the other
 * words are checked in the name. Null when no word has a stem's three letters ("jo"): two letters would
 * match a quarter of a million names at 1M rows, none of them in the order of a page.
 */
function nameReading(q: string): SearchReading | null {
  const words = wordsForSearch(q);
  const key = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  if (key.length < STEM_LENGTH) return null;
  const others = [...words];
  others.splice(words.indexOf(key), 1);
  return { kind: 'words', stem: key.slice(0, STEM_LENGTH), key, others };
}

const END_TO_END = /^E[0-9A-Z]{8}\d{12}[0-9A-Za-z]{11}$/;
const MONEY = /^(R\$\s*)?(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/i;

/** "R$ 1.500,50", "1500,50", "1.500" → cents; null when it is not written like money. */
function moneyCents(text: string): number | null {
  const m = MONEY.exec(text.replace(/\u00a0/g, ' '));
  if (!m) return null;
  const reais = m[2].replace(/\./g, '');
  if (reais.length > 12) return null;
  const cents = Number(reais) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return cents > 0 ? cents : null;
}

/**
 * What a search text can mean. Throws a 400 on `q` when it is written like a CPF/CNPJ (11 or 14
 * digits, or with its dots, dash and slash) whose check digits do not match, so the merchant
 * learns of the typo instead of seeing an empty list.
 */
export function readSearch(text: string): SearchReading[] {
  const q = text.trim();
  if (!q) return [];
  const readings: SearchReading[] = [];
  const id = /^([a-z]+)_[0-9a-z]+$/.exec(q);
  if (id) {
    if (id[1] === ID_PREFIX.batch) readings.push({ kind: 'batch', value: q });
    else readings.push({ kind: 'id', value: q });
  }
  if (END_TO_END.test(q)) readings.push({ kind: 'endtoend', value: q });
  if (q.includes('@')) readings.push({ kind: 'email', value: q.toLowerCase() });

  const documentLike = /^[\d.\-/\s]+$/.test(q) || /^[0-9A-Za-z]{2}\.[0-9A-Za-z]{3}\.[0-9A-Za-z]{3}\/[0-9A-Za-z]{4}-\d{2}$/.test(q);
  const digits = normalizeDocument(q);
  const punctuatedLikeDocument = documentLike && /[-/]/.test(q);
  if (documentLike && (digits.length === 11 || digits.length === 14 || punctuatedLikeDocument)) {
    if (!documentKind(digits)) throw validationError([{ path: 'q', message: 'not a valid CPF or CNPJ: check digits do not match' }]);
    readings.push({ kind: 'document', value: digits });
  } else {
    const cents = moneyCents(q);
    if (cents !== null) readings.push({ kind: 'amount', value: cents });
  }
  // anything may also be the merchant's own reference; a text that is nothing more specific is a name
  const specific = readings.some((r) => r.kind !== 'amount');
  readings.push({ kind: 'reference', value: q });
  const name = !specific && /\p{L}/u.test(q) ? nameReading(q) : null;
  if (name) readings.push(name);
  return readings;
}

/**
 * A date range typed as Brasília calendar days (`YYYY-MM-DD`, both ends included) → the instants that
 * bound created_at: [start of `from`, start of the day after `to`). A malformed day is a 400 on its field.
 */
export function localDayRange(from?: string, to?: string): { since?: string; until?: string } {
  const problems: { path: string; message: string }[] = [];
  if (from !== undefined && !isCalendarDay(from)) problems.push({ path: 'from', message: 'must be an ISO 8601 date' });
  if (to !== undefined && !isCalendarDay(to)) problems.push({ path: 'to', message: 'must be an ISO 8601 date' });
  if (!problems.length && from !== undefined && to !== undefined && to < from) problems.push({ path: 'to', message: 'must not be before from' });
  if (problems.length) throw validationError(problems);
  return {
    since: from === undefined ? undefined : startOfLocalDay(from).toISOString(),
    until: to === undefined ? undefined : startOfLocalDay(addDays(to, 1)).toISOString(),
  };
}

/** Merges pages of several readings (each newest first), dropping repeats, keeping `limit + 1`. */
export function mergePages<R extends { id: string; createdAt: string }>(pages: R[][], limit: number): R[] {
  const seen = new Set<string>();
  const all = pages.flat().sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  const out: R[] = [];
  for (const r of all) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
    if (out.length > limit) break;
  }
  return out;
}

/**
 * The most rows of name_words one page of a word search reads (and joins to its charge or withdrawal).
 * Measured on a 2-core machine: a row the key word matches but another word or filter rejects costs
 * about 5 µs on SQLite (two primary-key lookups), so a page stays within about 10 ms of the event loop.
 */
export const WORD_WALK_CAP = 2_000;
/** How many rows of each typed word's stem are read to tell which word is the rarest. */
export const WORD_SAMPLE = 500;

/**
 * Before a word search walks name_words: a bounded sample of each typed word's stem (WORD_SAMPLE rows
 * of the covering index) picks the rarest word as the key, and a word whose stem's rows, read to their
 * end, hold none of it answers 'empty' without walking anything ("maria zzzz"). The walk then gets its
 * floor: the WORD_WALK_CAP-th row of the key's stem, past which one page does not read.
 */
export async function planWordWalk(
  tx: Stores, reading: Extract<SearchReading, { kind: 'words' }>,
  walk: Omit<StemWalk, 'stem'>,
): Promise<Extract<SearchReading, { kind: 'words' }> | 'empty'> {
  const typed = [reading.key, ...reading.others];
  const candidates = [...new Set(typed.filter((w) => w.length >= STEM_LENGTH))];
  const samples = await Promise.all(candidates.map(async (word) => ({ word, ...await tx.search.sampleStemWalk({ ...walk, stem: word.slice(0, STEM_LENGTH) }, word, WORD_SAMPLE) })));
  // a sample that reached the stem's end is its exact count; any other ranks after it, by its share of matches
  const score = (s: (typeof samples)[number]) => (s.examined < WORD_SAMPLE ? s.matched : WORD_SAMPLE + s.matched);
  if (samples.some((s) => s.examined < WORD_SAMPLE && s.matched === 0)) return 'empty';
  // ties keep the longest word, as read
  const rarest = samples.reduce((a, b) => (score(b) < score(a) || (score(b) === score(a) && b.word.length > a.word.length) ? b : a));
  const others = [...typed];
  others.splice(typed.indexOf(rarest.word), 1);
  const stem = rarest.word.slice(0, STEM_LENGTH);
  const floor = await tx.search.stemWalkFloor({ ...walk, stem }, WORD_WALK_CAP);
  return { kind: 'words', stem, key: rarest.word, others, ...(floor ? { floor } : {}) };
}

/** A row of a walk, where a bounded walk stops (inclusive): the WALK_CAP-th row of its index. */
export type WalkFloor = { createdAt: string; id: string };

/**
 * The most index rows one page of any other walk reads when a filter its index does not serve (a
 * status or method beside an amount, a Pix key, a document; a status with a method) may reject them:
 * the same bound as the word walk's, so no search or export reads a stem, an amount or a status to its end.
 */
export const WALK_CAP = WORD_WALK_CAP;

/**
 * Where the merged page must stop: of the walks that reached their floor without filling their page,
 * the newest floor (an older one would skip the rows the stopped walk never read down to it).
 */
export function walkStop(pages: unknown[][], floors: (WalkFloor | null | undefined)[], limit: number): WalkFloor | null {
  let stop: WalkFloor | null = null;
  floors.forEach((f, i) => {
    if (!f || pages[i].length > limit) return;
    if (!stop || f.createdAt > stop.createdAt || (f.createdAt === stop.createdAt && f.id > stop.id)) stop = f;
  });
  return stop;
}

/** The word walk's floor of a reading (planWordWalk), if it is one. */
export const wordFloor = (r: SearchReading | null | undefined) => (r?.kind === 'words' ? r.floor ?? null : null);

/** The 400 a page that found nothing within its cap answers: on `q`, or on the filter the walk could not serve. */
export function refineSearch(byWords: boolean, path = 'q'): { path: string; message: string } {
  return byWords
    ? { path, message: `too many names to look through: add a word, a status or dates to narrow the search (a page reads at most ${WORD_WALK_CAP.toLocaleString('en')} names)` }
    : { path, message: `refine your search: none of the ${WALK_CAP.toLocaleString('en')} rows a page looks through matched; add dates or another filter to narrow it` };
}

/**
 * A page of merged readings (mergePages' `limit + 1` rows) and where the next one starts. When a walk
 * stopped at its floor (`stop`) before filling the page, the page keeps what it found down to there
 * and its cursor is the floor, so the next page goes on from where this one stopped; a page that found
 * nothing at all is a 400 (`refusal`), so the merchant narrows the search rather than paging through nothing.
 */
export function boundedPage<R extends { id: string; createdAt: string }>(rows: R[], limit: number, stop: WalkFloor | null, refusal: { path: string; message: string } = refineSearch(true)): { page: R[]; next: WalkFloor | null } {
  const olderThan = (r: R, c: WalkFloor) => r.createdAt < c.createdAt || (r.createdAt === c.createdAt && r.id < c.id);
  const kept = stop ? rows.filter((r) => !olderThan(r, stop)) : rows;
  if (!stop || kept.length > limit) {
    const page = kept.slice(0, limit);
    const last = page[page.length - 1];
    return { page, next: kept.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  }
  if (!kept.length) throw validationError([refusal]);
  return { page: kept, next: stop };
}
