import { sql, type SQL } from 'drizzle-orm';
import type { Stores } from '../../db';
import { rawRow } from '../../db/query';
import type { BookKind, LedgerEntryKind } from '../../contract/ledger';

// A kind spelled in SQL, checked against the contract's vocabulary: the same literal text as before
// (not a parameter), so the queries and their plans are unchanged.
const entryKind = (kind: LedgerEntryKind) => sql.raw(`'${kind}'`);
const bookKind = (kind: BookKind) => sql.raw(`'${kind}'`);

/**
 * The ledger audit (`npm run audit`, and /readyz at most once a minute): the books must agree with
 * their own lines and with the resources that moved money. Each check stops at its first break and
 * names it; the audit reads only, so it runs on a read connection or on a backup's copy.
 */
export type AuditCheckName = 'entries_balanced' | 'book_balances' | 'balance_floors' | 'withdrawal_batches' | 'transaction_credits';

export interface AuditCheck { name: AuditCheckName; ok: boolean; detail: string | null }
export interface AuditReport { ok: boolean; checks: AuditCheck[]; firstBreak: string | null }

/**
 * The first row of a query, wherever it runs: `rawRow` on a read connection, or a reader thread's
 * (db/reader-thread.ts: /readyz's audit on SQLite, off the event loop's thread).
 */
export type FirstRow = <T>(query: SQL) => Promise<T | undefined>;

type Probe = (first: FirstRow) => Promise<string | null>;

const probes: [AuditCheckName, Probe][] = [
  // every entry's lines sum to zero (and an entry has lines at all)
  ['entries_balanced', async (first) => {
    const r = await first<{ id: string; total: number | null; lines: number }>(sql`
      SELECT e.id, sum(l.amount) AS total, count(l.id) AS lines
      FROM ledger_entries e LEFT JOIN ledger_lines l ON l.entry_id = e.id
      GROUP BY e.id HAVING count(l.id) < 2 OR sum(l.amount) <> 0 LIMIT 1`);
    return r ? `entry ${r.id}: its ${r.lines} line(s) sum to ${r.total ?? 0}, not 0` : null;
  }],
  // every book's running balance equals the sum of its lines
  ['book_balances', async (first) => {
    const r = await first<{ id: string; kind: string; balance: number; lines: number }>(sql`
      SELECT b.id, b.kind, b.balance, coalesce(s.total, 0) AS lines
      FROM ledger_books b LEFT JOIN (SELECT book_id, sum(amount) AS total FROM ledger_lines GROUP BY book_id) s ON s.book_id = b.id
      WHERE b.balance <> coalesce(s.total, 0) LIMIT 1`);
    return r ? `book ${r.id} (${r.kind}): balance ${r.balance} but its lines sum to ${r.lines}` : null;
  }],
  // docs/decisions.md "Disputes": merchant books never go below zero, except `available`, and that only by a
  // dispute hold: replaying each available book, no other debit may leave it (or keep it) negative
  ['balance_floors', async (first) => {
    const neg = await first<{ id: string; kind: string; balance: number }>(sql`
      SELECT id, kind, balance FROM ledger_books
      WHERE account_id IS NOT NULL AND kind <> ${bookKind('available')} AND balance < 0 LIMIT 1`);
    if (neg) return `book ${neg.id} (${neg.kind}) is at ${neg.balance}, below zero`;
    const r = await first<{ book: string; entry: string; kind: string; running: number }>(sql`
      SELECT book, entry, kind, running FROM (
        SELECT l.book_id AS book, l.entry_id AS entry, l.amount, e.kind,
               sum(l.amount) OVER (PARTITION BY l.book_id ORDER BY l.id) AS running
        FROM ledger_lines l
        JOIN ledger_books b ON b.id = l.book_id
        JOIN ledger_entries e ON e.id = l.entry_id
        WHERE b.account_id IS NOT NULL AND b.kind = ${bookKind('available')}) AS replay
      WHERE running < 0 AND amount < 0 AND kind <> ${entryKind('dispute_hold')} LIMIT 1`);
    return r ? `book ${r.book} (available): entry ${r.entry} (${r.kind}) took it to ${r.running}; only a dispute hold may go below zero` : null;
  }],
  // each withdrawal's batches add up to it
  ['withdrawal_batches', async (first) => {
    const r = await first<{ id: string; amount: number; batches: number }>(sql`
      SELECT w.id, w.amount, coalesce(sum(b.amount), 0) AS batches
      FROM withdrawals w LEFT JOIN withdrawal_batches b ON b.withdrawal_id = w.id
      GROUP BY w.id HAVING coalesce(sum(b.amount), 0) <> w.amount LIMIT 1`);
    return r ? `withdrawal ${r.id}: amount ${r.amount} but its batches add up to ${r.batches}` : null;
  }],
  // each approved transaction is credited exactly once, and no other transaction is credited
  ['transaction_credits', async (first) => {
    const r = await first<{ id: string; status: string; credits: number }>(sql`
      SELECT id, status, credits FROM (
        SELECT t.id, t.status,
               (SELECT count(*) FROM ledger_entries e WHERE e.resource_id = t.id AND e.kind = ${entryKind('transaction_credit')}) AS credits
        FROM transactions t) AS credited
      WHERE (status = 'APPROVED' AND credits <> 1) OR (status <> 'APPROVED' AND credits <> 0) LIMIT 1`);
    return r ? `transaction ${r.id} (${r.status}) is credited ${r.credits} time(s)` : null;
  }],
];

export const AUDIT_CHECKS: readonly AuditCheckName[] = probes.map(([name]) => name);

/** Runs every check on `db`; `firstBreak` names the first one that failed and where. */
export function auditBooks(db: Stores): Promise<AuditReport> {
  return auditBooksWith((query) => rawRow(db, query));
}

/** The audit over any way of reading a query's first row (the same checks, the same report). */
export async function auditBooksWith(read: FirstRow): Promise<AuditReport> {
  const checks: AuditCheck[] = [];
  for (const [name, probe] of probes) {
    const detail = await probe(read);
    checks.push({ name, ok: detail === null, detail });
  }
  const first = checks.find((c) => !c.ok);
  return { ok: !first, checks, firstBreak: first ? `${first.name}: ${first.detail}` : null };
}

/** The last committed ledger entry (for the backup's printout; SQLite's file only, hence rowid). */
export function lastLedgerEntry(db: Stores): { id: string; kind: string; createdAt: string } | null {
  return db.handle.get<{ id: string; kind: string; createdAt: string } | undefined>(sql`
    SELECT id, kind, created_at AS createdAt FROM ledger_entries ORDER BY rowid DESC LIMIT 1`) ?? null;
}
