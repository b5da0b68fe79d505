import { validationError } from '../errors';

/** The (created_at, id) of the last row of a page: where keyset pagination resumes. Opaque to callers. */
export interface Cursor { createdAt: string; id: string }

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`, 'utf8').toString('base64url');
}

/** Refuses anything a list did not hand out (wrong shape, or an id of another kind) with a 400 on `cursor`. */
export function decodeCursor(s: string, idPrefix: string): Cursor {
  const raw = Buffer.from(s, 'base64url').toString('utf8');
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([a-z]+_[0-9a-z]+)$/.exec(raw);
  if (!m || !m[2].startsWith(`${idPrefix}_`)) {
    throw validationError([{ path: 'cursor', message: 'not a cursor returned by this list' }]);
  }
  return { createdAt: m[1], id: m[2] };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The stored form (toISOString) has four-digit years only between these; past them it writes `+010000-…`
 * or `-000001-…`, which sorts before every stored date as a string (and PostgreSQL reads neither), so a
 * bound is clamped into them. No row is dated outside them: the clock writes created_at.
 */
const FIRST_STORED = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_STORED = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A list's `from` (inclusive) or `to` (exclusive) as a stored-form instant (toISOString, UTC): a bare
 * date is that day's start, and a bare `to` date covers that whole day. Bounds compare as strings.
 */
export function dateBound(path: 'from' | 'to', value: string): string {
  const d = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(d.getTime())) throw validationError([{ path, message: 'must be an ISO 8601 date or date-time' }]);
  if (path === 'to' && DATE_ONLY.test(value)) d.setUTCDate(d.getUTCDate() + 1);
  return new Date(Math.min(Math.max(d.getTime(), FIRST_STORED), LAST_STORED)).toISOString();
}
