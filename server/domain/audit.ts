import type { Stores } from '../../db';
import type { LastEntry, LedgerAuditReads } from '../../db/stores/ledger';

/**
 * The ledger audit (`npm run audit`, and /readyz at most once a minute): the books must agree with
 * their own lines and with the resources that moved money. Each check stops at its first break and
 * names it; the audit reads only, so it runs on a read connection or on a backup's copy.
 */
export type AuditCheckName = 'entries_balanced' | 'book_balances' | 'system_books' | 'balance_floors' | 'withdrawal_batches' | 'transaction_credits';

export interface AuditCheck { name: AuditCheckName; ok: boolean; detail: string | null }
export interface AuditReport { ok: boolean; checks: AuditCheck[]; firstBreak: string | null }

type Probe = (reads: LedgerAuditReads) => Promise<string | null>;

const probes: [AuditCheckName, Probe][] = [
  // every entry's lines sum to zero (and an entry has lines at all)
  ['entries_balanced', async (reads) => {
    const r = await reads.unbalancedEntry();
    return r ? `entry ${r.id}: its ${r.lines} line(s) sum to ${r.total ?? 0}, not 0` : null;
  }],
  // every book's running balance equals the sum of its lines
  ['book_balances', async (reads) => {
    const r = await reads.bookOffItsLines();
    return r ? `book ${r.id} (${r.kind}): balance ${r.balance} but its lines sum to ${r.lines}` : null;
  }],
  // each system book is the sum of its shards (contract/ledger.ts SYSTEM_BOOK_SHARDS): one row per shard
  // number, from zero up; and the shards of every system book hold what the merchant books hold, negated
  // (each shard is also a book that book_balances holds to its own lines)
  ['system_books', async (reads) => {
    const r = await reads.systemBookMisnumbered();
    if (r) return r.lowest < 0 ? `system book ${r.kind}: shard ${r.lowest} is numbered below zero` : `system book ${r.kind}: ${r.shards} rows for ${r.numbered} shard number(s)`;
    const off = await reads.booksOffZero();
    return off ? `the system books' shards hold ${off.system} against the merchant books' ${off.merchants}: together ${off.system + off.merchants}, not 0` : null;
  }],
  // docs/decisions.md "Disputes": merchant books never go below zero, except `available`, and that only by a
  // dispute hold: replaying each available book, no other debit may leave it (or keep it) negative
  ['balance_floors', async (reads) => {
    const neg = await reads.merchantBookBelowZero('available');
    if (neg) return `book ${neg.id} (${neg.kind}) is at ${neg.balance}, below zero`;
    const r = await reads.debitBelowZero('available', 'dispute_hold');
    return r ? `book ${r.book} (available): entry ${r.entry} (${r.kind}) took it to ${r.running}; only a dispute hold may go below zero` : null;
  }],
  // each withdrawal's batches add up to it
  ['withdrawal_batches', async (reads) => {
    const r = await reads.withdrawalOffItsBatches();
    return r ? `withdrawal ${r.id}: amount ${r.amount} but its batches add up to ${r.batches}` : null;
  }],
  // each approved transaction is credited exactly once, and no other transaction is credited
  ['transaction_credits', async (reads) => {
    const r = await reads.transactionCreditedWrongly('transaction_credit');
    return r ? `transaction ${r.id} (${r.status}) is credited ${r.credits} time(s)` : null;
  }],
];

export const AUDIT_CHECKS: readonly AuditCheckName[] = probes.map(([name]) => name);

/** Runs every check on `db`; `firstBreak` names the first one that failed and where. */
export function auditBooks(tx: Stores): Promise<AuditReport> {
  return auditBooksWith(tx.ledger.auditReads());
}

/**
 * The audit over any connection's scans (the stores', or a reader thread's: db/ledger-audit-runner.ts);
 * the same checks, the same report.
 */
export async function auditBooksWith(reads: LedgerAuditReads): Promise<AuditReport> {
  const checks: AuditCheck[] = [];
  for (const [name, probe] of probes) {
    const detail = await probe(reads);
    checks.push({ name, ok: detail === null, detail });
  }
  const first = checks.find((c) => !c.ok);
  return { ok: !first, checks, firstBreak: first ? `${first.name}: ${first.detail}` : null };
}

/** The last committed ledger entry (for the backup's printout). */
export function lastLedgerEntry(tx: Stores): Promise<LastEntry | null> {
  return tx.ledger.lastEntry();
}
