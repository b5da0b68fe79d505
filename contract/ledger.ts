// The ledger's vocabulary, declared once (pure constants): the books an account and the system hold,
// and every kind of entry the domain posts, with what it means. The table declarations of both
// engines, the domain (posting, statement, dashboard, audit) and the tests read it from here; the
// triggers of db/sql/triggers.sql and db/pg/sql/triggers.sql name the same kinds in SQL (a test
// checks they agree).
import type { StatementResourceType, StatementType } from './statement';

/** docs/decisions.md "Money": no merchant book may hold more, so every figure stays a safe integer in JSON. */
export const BALANCE_CEILING_CENTS = 10_000_000_000_000;

/** A merchant's books: money it has (`available`), holds by open disputes, and money on its way out. */
export const MERCHANT_BOOKS = ['available', 'blocked', 'withdrawals_in_flight', 'refunds_in_flight'] as const;
export type MerchantBook = (typeof MERCHANT_BOOKS)[number];

/** The system's books (account_id null): the outside world; they may go negative. */
export const SYSTEM_BOOKS = ['sandbox_funding', 'pix_out', 'pix_in', 'card_in', 'invoice_in', 'chargebacks', 'refunds_out'] as const;
export type SystemBook = (typeof SYSTEM_BOOKS)[number];

/**
 * How many rows (shards) each system book is spread over. Every merchant's movement used to credit the
 * one `pix_out` (or `pix_in`, …) row, and on PostgreSQL that row's lock, held until each COMMIT is on
 * disk, made the whole platform take turns; a movement now goes to the shard its merchant's account id
 * hashes to, and a system book's balance is the sum of its shards. Each shard is a book in its own
 * right (its balance is the sum of its lines, under the same triggers). Raising it later is safe: the
 * shards already written keep their balance and are still summed; lowering it strands no money either.
 */
export const SYSTEM_BOOK_SHARDS = 64;

/** Every book kind (the `kind` column of ledger_books). */
export const BOOK_KINDS = [...MERCHANT_BOOKS, ...SYSTEM_BOOKS] as const;
export type BookKind = (typeof BOOK_KINDS)[number];

/** What one kind of ledger entry means. */
export interface LedgerKind {
  /**
   * How the account statement (GET /balance/statement) names the entry's line on `available`; null
   * for a kind that never moves `available` (so never appears on the statement).
   */
  statement: StatementType | null;
  /** What the entry's `resource_id` names (`topup`: the entry itself, it has no resource). */
  resource: StatementResourceType;
  /**
   * Money arriving from outside the merchant's books, refused above BALANCE_CEILING_CENTS. Returns,
   * releases and holds move money the merchant already had and are never refused.
   */
  ceiling: boolean;
}

/** Every kind of ledger entry the domain posts. */
export const LEDGER_KINDS = {
  sandbox_topup: { statement: 'topup', resource: 'topup', ceiling: true },
  transaction_credit: { statement: 'charge_approved', resource: 'transaction', ceiling: true },
  withdrawal_requested: { statement: 'withdrawal_requested', resource: 'withdrawal', ceiling: false },
  withdrawal_paid: { statement: null, resource: 'withdrawal_batch', ceiling: false },
  withdrawal_failed: { statement: 'withdrawal_returned', resource: 'withdrawal_batch', ceiling: false },
  refund_requested: { statement: 'refund_requested', resource: 'refund', ceiling: false },
  refund_paid: { statement: null, resource: 'refund', ceiling: false },
  refund_failed: { statement: 'refund_returned', resource: 'refund', ceiling: false },
  // a refund that failed while a dispute holds the charge: back to `blocked`, or to the chargeback
  refund_failed_held: { statement: null, resource: 'refund', ceiling: false },
  refund_failed_chargeback: { statement: null, resource: 'refund', ceiling: false },
  // the only entry that may take `available` below zero (the triggers name it)
  dispute_hold: { statement: 'dispute_hold', resource: 'dispute', ceiling: false },
  dispute_release: { statement: 'dispute_released', resource: 'dispute', ceiling: false },
  chargeback: { statement: null, resource: 'dispute', ceiling: false },
} as const satisfies Record<string, LedgerKind>;

export type LedgerEntryKind = keyof typeof LEDGER_KINDS;
export const LEDGER_ENTRY_KINDS = Object.keys(LEDGER_KINDS) as LedgerEntryKind[];

/** The kinds that move `available`, as the statement shows them. */
export const STATEMENT_ENTRY_KINDS = LEDGER_ENTRY_KINDS.filter((k) => LEDGER_KINDS[k].statement !== null);

/** The kinds the ceiling applies to (the triggers' ledger_lines_apply lists the same ones). */
export const BALANCE_CEILING_ENTRY_KINDS = LEDGER_ENTRY_KINDS.filter((k) => LEDGER_KINDS[k].ceiling);
