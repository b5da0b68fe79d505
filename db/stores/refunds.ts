// The refunds of charges: stored PENDING, claimed by the settlement pass, settled by the rail's outcome.
// The rules (what is refundable, where a failed refund's money goes) stay in the domain (its transactions).
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first, lockRows, skipLocked } from '../query';
import { jsonStringList } from '../dialect';
import { customers, disputes, refunds, transactions } from '../schema';
import { dueHere, type DueClaim, type DueHere } from './claims';
import type { DisputeStatus, RefundStatus, TransactionMethod, TransactionStatus } from '../../contract/enums';

/** What refunding a charge looks at. */
export interface RefundableCharge { id: string; status: TransactionStatus; amount: number; refundedAmount: number }

/** A dispute that holds a charge's money (OPEN or LOST). */
export interface HoldingDispute { id: string; status: DisputeStatus }

/** A refund as applying an outcome to it needs it. */
export interface RefundState { status: RefundStatus; amount: number; accountId: string; transactionId: string }

export interface NewRefund {
  id: string; accountId: string; transactionId: string; amount: number; reason: string | null;
  status: RefundStatus; dueAt: string; createdAt: string; updatedAt: string;
  /** A return's `D…` end-to-end id reserved when requested (an API Pix devolução's rtrId); else the rail's, when paid. */
  endToEnd?: string | null;
}

/** What the rail is handed of a refund (the rails' RefundOrder). */
export interface RefundOrderRow {
  refundId: string; transactionId: string; accountId: string; amount: number;
  method: TransactionMethod; originalEndToEnd: string | null; customerEmail: string; customerDocument: string;
  /** The return's end-to-end id reserved when it was requested, if one was. */
  endToEnd: string | null;
}


const ph = (name: string) => sql.placeholder(name);

const lookups = perConnection((db) => ({
  charge: db.select({ id: transactions.id, status: transactions.status, amount: transactions.amount, refundedAmount: transactions.refundedAmount })
    .from(transactions).where(and(eq(transactions.accountId, ph('accountId')), eq(transactions.id, ph('id')))).prepare(),
  holdingDispute: db.select({ id: disputes.id, status: disputes.status }).from(disputes)
    .where(and(eq(disputes.transactionId, ph('id')), inArray(disputes.status, ['OPEN', 'LOST']))).limit(1).prepare(),
  refund: db.select({ status: refunds.status, amount: refunds.amount, accountId: refunds.accountId, transactionId: refunds.transactionId })
    .from(refunds).where(eq(refunds.id, ph('id'))).prepare(),
}));

const refundOrder = {
  refundId: refunds.id, transactionId: refunds.transactionId, accountId: refunds.accountId, amount: refunds.amount,
  method: transactions.method, originalEndToEnd: transactions.endToEnd,
  customerEmail: customers.email, customerDocument: customers.document, endToEnd: refunds.endToEnd,
};

const claims = perConnection((db) => ({
  /** Whether anything is due here: an idle pass reads this one row and writes nothing. */
  anyDue: db.select({ id: refunds.id }).from(refunds).where(dueHere(refunds)).limit(1).prepare(),
  /** Takes the oldest refunds due here that nobody else is claiming: due again only when the lease runs out. */
  claim: db.update(refunds).set({ dueAt: ph('leaseUntil') as unknown as string, claimedBy: ph('instance') as unknown as string })
    .where(inArray(refunds.id, skipLocked(db.select({ id: refunds.id }).from(refunds)
      .where(dueHere(refunds)).orderBy(asc(refunds.dueAt)).limit(ph('limit')))))
    .returning({ id: refunds.id }).prepare(),
  orders: db.select(refundOrder).from(refunds)
    .innerJoin(transactions, eq(transactions.id, refunds.transactionId))
    .innerJoin(customers, eq(customers.id, transactions.customerId))
    .where(inArray(refunds.id, jsonStringList(ph('ids'))))
    .orderBy(asc(refunds.createdAt), asc(refunds.id)).prepare(),
}));

export class RefundStore {
  constructor(private readonly db: DrizzleDb) {}

  /**
   * Inside a write job: the account's charge with its row lock held until the job commits (on PostgreSQL
   * the lock serializes a charge's refunds, disputes and payment), as refunding it needs it; null when none.
   */
  async lockForRefund(accountId: string, transactionId: string): Promise<RefundableCharge | null> {
    await lockRows(this.db, transactions, transactions.id, [transactionId]);
    return (await first(lookups(this.db).charge.execute({ accountId, id: transactionId }))) ?? null;
  }

  /** The charge's dispute that holds its money (OPEN or LOST), if any. */
  async holdingDispute(transactionId: string): Promise<HoldingDispute | null> {
    return (await first(lookups(this.db).holdingDispute.execute({ id: transactionId }))) ?? null;
  }

  /**
   * Stores a new refund claimed by `origin`, the instance that requested it: its own settlement pass takes
   * it when it falls due, so its settlement joins that instance's write groups, and another instance only
   * after JOB_AFFINITY_MS (as withdrawal batches).
   */
  async insertRefund(r: NewRefund, origin: string): Promise<void> {
    await this.db.insert(refunds).values({ ...r, claimedBy: origin });
  }

  /** The charge's updated_at moves with its refunds. */
  async touchCharge(transactionId: string, updatedAt: string): Promise<void> {
    await this.db.update(transactions).set({ updatedAt }).where(eq(transactions.id, transactionId));
  }

  /**
   * Inside a write job: the refund as it is once its charge's row lock is held (one outcome per refund,
   * and a dispute resolved meanwhile is seen as it is); null when there is no such refund.
   */
  async lockForOutcome(transactionId: string, refundId: string): Promise<RefundState | null> {
    await lockRows(this.db, transactions, transactions.id, [transactionId]);
    return (await first(lookups(this.db).refund.execute({ id: refundId }))) ?? null;
  }

  /** The rail has not settled it yet: ask again at `dueAt`. */
  async retryAt(refundId: string, dueAt: string, updatedAt: string): Promise<void> {
    await this.db.update(refunds).set({ dueAt, updatedAt }).where(eq(refunds.id, refundId));
  }

  async markPaid(refundId: string, endToEnd: string | null, updatedAt: string): Promise<void> {
    await this.db.update(refunds).set({ status: 'PAID', endToEnd, updatedAt }).where(eq(refunds.id, refundId));
  }

  /** ERROR with the rail's reason (its triggers take the amount off the charge's refunded_amount and grow a holding dispute). */
  async markFailed(refundId: string, failureReason: string, updatedAt: string): Promise<void> {
    await this.db.update(refunds).set({ status: 'ERROR', failureReason, updatedAt }).where(eq(refunds.id, refundId));
  }

  /** Whether any PENDING refund is due for this instance (dueHere; one row of refunds_due_idx). */
  async anyDue(due: DueHere): Promise<boolean> {
    const { now, instance, foreignDueBefore } = due;
    return (await first(claims(this.db).anyDue.execute({ now, instance, foreignDueBefore }))) !== undefined;
  }

  /**
   * Inside a write job: the oldest `limit` refunds due for this instance (dueHere) that nobody else is
   * claiming (FOR UPDATE SKIP LOCKED on PostgreSQL) get due_at moved to the lease's end and claimed_by
   * stamped; their ids.
   */
  async claimDue(c: DueClaim): Promise<string[]> {
    const { now, instance, foreignDueBefore, limit, leaseUntil } = c;
    return (await claims(this.db).claim.execute({ now, instance, foreignDueBefore, limit, leaseUntil })).map((r) => r.id);
  }

  /** What the rail needs of these refunds, oldest first. */
  async orders(refundIds: string[]): Promise<RefundOrderRow[]> {
    return claims(this.db).orders.execute({ ids: JSON.stringify(refundIds) });
  }
}
