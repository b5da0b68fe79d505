import { sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { dayAt, jsonAt } from '../dialect';
import { rawRow, rawRows } from '../query';
import { pendingMigrations } from '../client';
import type { BookKind, LedgerEntryKind } from '../../contract/ledger';

/**
 * Reads across aggregates for the dashboard, the metrics and readiness: aggregates and counts, never a
 * write. What the figures mean (a sale, a payout, how old a queue is) is the domain's and the
 * observability's; this only reads rows.
 */

/** Money across the account's boundary on one local day, by entry kind and system book. */
export interface BoundaryMoney {
  /** YYYY-MM-DD, in the offset asked for. */
  day: string;
  entry_kind: LedgerEntryKind;
  /** The system book on the other side of the lines. */
  book: BookKind;
  /** Cents that came in from that book (its lines' debits). */
  money_in: number;
  /** Cents that went out to it (its lines' credits). */
  money_out: number;
  /** Distinct entries. */
  entries: number;
}

/** One of an account's events, with what its payload says (raw JSON values: the caller checks their types). */
export interface RecentEvent {
  id: string;
  type: string;
  resource_id: string;
  created_at: string;
  /** payload.amount, else payload.total. */
  amount: unknown;
  status: unknown;
  transaction_id: unknown;
  method: unknown;
  /** payload.customer.name, else payload.operation.details.name. */
  who: unknown;
}

/** A queue's depth and its oldest row's instant (ISO; null when empty or not kept). */
export interface QueueDepth { n: number; oldest: string | null }

export interface PendingWork {
  /** Withdrawal batches waiting for the rail (oldest: the earliest due_at). */
  batches: QueueDepth;
  /** Deliveries due by `now` (oldest: the earliest next_attempt_at). */
  due: QueueDepth;
  /** Events not yet fanned out into deliveries. */
  undispatched: number;
}

export class ReportStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Per local day (instants shifted by `dayOffset`, e.g. '-3 hours'), entry kind and system book: the
   * account's ledger lines on system books (the outside world) since `since` (ISO), that is, the money
   * crossing the account's boundary. ledger_entries' account index range-scans the window.
   */
  moneyAcrossBoundary(accountId: string, since: string, dayOffset: string): Promise<BoundaryMoney[]> {
    return rawRows<BoundaryMoney>(this.db, sql`
    SELECT ${dayAt(sql`e.created_at`, dayOffset)} AS day, e.kind AS entry_kind, b.kind AS book,
           coalesce(sum(CASE WHEN l.amount < 0 THEN -l.amount ELSE 0 END), 0) AS money_in,
           coalesce(sum(CASE WHEN l.amount > 0 THEN l.amount ELSE 0 END), 0) AS money_out,
           count(DISTINCT e.id) AS entries
    FROM ledger_entries e
    JOIN ledger_lines l ON l.entry_id = e.id
    JOIN ledger_books b ON b.id = l.book_id
    WHERE e.account_id = ${accountId} AND e.created_at >= ${since} AND b.account_id IS NULL
    GROUP BY day, e.kind, b.kind`);
  }

  /** The account's latest `limit` events, newest first (events_account_idx). */
  recentEvents(accountId: string, limit: number): Promise<RecentEvent[]> {
    const json = (path: string[]) => jsonAt(sql`payload`, path);
    return rawRows<RecentEvent>(this.db, sql`
    SELECT id, type, resource_id, created_at,
           coalesce(${json(['amount'])}, ${json(['total'])}) AS amount,
           ${json(['status'])} AS status,
           ${json(['transaction_id'])} AS transaction_id,
           ${json(['method'])} AS method,
           coalesce(${json(['customer', 'name'])}, ${json(['operation', 'details', 'name'])}) AS who
    FROM events WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT ${sql.raw(String(Math.trunc(limit)))}`);
  }

  /**
   * The background queues' depths, read at once (side by side on PostgreSQL's pool): pending withdrawal
   * batches, deliveries due by `now` (ISO), undispatched events.
   */
  async pendingWork(now: string): Promise<PendingWork> {
    const count = (q: ReturnType<typeof sql>) => rawRow<QueueDepth>(this.db, q).then((r) => r ?? { n: 0, oldest: null });
    const [batches, due, undispatched] = await Promise.all([
      count(sql`SELECT count(*) AS n, min(due_at) AS oldest FROM withdrawal_batches WHERE status = 'PENDING'`),
      count(sql`SELECT count(*) AS n, min(next_attempt_at) AS oldest FROM deliveries WHERE status = 'PENDING' AND next_attempt_at <= ${now}`),
      count(sql`SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL`),
    ]);
    return { batches, due, undispatched: undispatched.n };
  }

  /** A trivial read: the database answers. */
  async probeRead(): Promise<void> {
    await rawRow(this.db, sql`SELECT 1`);
  }

  /** Why the database's migrations are not this build's (null when they are current). */
  pendingMigrations(): Promise<string | null> {
    return pendingMigrations(this.db);
  }
}
