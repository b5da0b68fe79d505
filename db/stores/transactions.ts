// The charges aggregate: transactions, their customers and their disputes. Every statement the domain
// runs on them (the domain's transactions), written once for both engines; the rules (what may be
// paid, refunded, disputed; what a view shows) stay in the domain.
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { DrizzleDb } from '../handle';
import { perConnection } from '../prepared';
import { first, lockName, lockRows, skipLocked, touched } from '../query';
import { contains } from '../dialect';
import { indexWalkFloor } from '../name-words';
import { customers, disputes, nameWords, refunds, transactions } from '../schema';
import type { DisputeStatus, RefundStatus, TransactionMethod, TransactionStatus } from '../../contract/enums';

/** A transaction joined with its customer: what every view of a charge is made of. */
export interface TransactionViewRow {
  id: string;
  status: TransactionStatus;
  amount: number;
  method: TransactionMethod;
  currency: string;
  endToEnd: string | null;
  postback: string | null;
  /** JSON array of {title, unitPrice, quantity, tangible}. */
  items: string;
  externalRef: string | null;
  metadata: string | null;
  createdAt: string;
  updatedAt: string;
  refundedAmount: number;
  customerId: string;
  customerName: string;
  customerEmail: string;
  customerPhone: string | null;
  customerDocument: string;
}

/** One refund of a charge, as its view lists it. */
export interface ChargeRefundRow {
  transactionId: string;
  id: string;
  amount: number;
  status: RefundStatus;
  endToEnd: string | null;
  createdAt: string;
}

export interface NewCustomer {
  id: string; accountId: string; name: string; email: string; phone: string | null; document: string;
  /** JSON of the address, when given. */
  address: string | null;
  createdAt: string;
}

export interface NewTransaction {
  id: string; accountId: string; identifier: string; method: TransactionMethod; status: TransactionStatus;
  amount: number; currency: string; customerId: string;
  /** JSON array of the items. */
  items: string;
  qrcode: string | null;
  invoiceId: string | null; invoiceDueDate: string | null; invoiceDigitableLine: string | null;
  cardBrand: string | null; cardLast4: string | null; cardHolderName: string | null; installments: number | null;
  postback: string | null; externalRef: string | null; metadata: string | null;
  expiresAt: string | null; createdAt: string; updatedAt: string;
}

/** What paying a charge looks at (the customer's document picks the payer's bank). */
export interface PayableCharge {
  id: string; method: TransactionMethod; status: TransactionStatus; amount: number; expiresAt: string | null; document: string;
}

/** What disputing a charge looks at. */
export interface DisputableCharge {
  id: string; method: TransactionMethod; status: TransactionStatus; amount: number; refundedAmount: number;
}

export interface ExpiredCharge { id: string; accountId: string; expiresAt: string | null }

/** The columns GET /transaction/{id}/payment shows of a charge. */
export interface PaymentRow {
  id: string; method: TransactionMethod; qrcode: string | null; expiresAt: string | null;
  invoiceId: string | null; invoiceDueDate: string | null; invoiceDigitableLine: string | null;
  cardBrand: string | null; cardLast4: string | null; cardHolderName: string | null; installments: number | null;
  refusedReason: string | null;
}

export interface DisputeRow {
  id: string; accountId: string; transactionId: string; status: DisputeStatus; amount: number; createdAt: string; updatedAt: string;
}

export interface DisputeListRow {
  id: string; transactionId: string; status: DisputeStatus; amount: number; createdAt: string; updatedAt: string;
  customerName: string; method: TransactionMethod;
}

/** A keyset position in (created_at, id) order. */
export interface KeysetPoint { createdAt: string; id: string }

/** GET /transactions: one page of the account's charges, newest first. */
export interface ChargeListPage {
  accountId: string;
  status?: TransactionStatus;
  method?: TransactionMethod;
  /** created_at ≥ since, < until (ISO instants). */
  since?: string;
  until?: string;
  /** The cursor: only rows older than it. */
  before?: KeysetPoint;
  /** How many rows to read. */
  take: number;
}

/** One reading of the dashboard's search box, as the charges' search runs it. */
export type ChargeReading =
  | { kind: 'id' | 'endtoend' | 'email' | 'document' | 'reference'; value: string }
  | { kind: 'amount'; value: number }
  /** The stem's rows of name_words, the key word among them, the other words in the customer's name. */
  | { kind: 'words'; stem: string; key: string; others: string[] };

/** One keyset page of one reading of the search (or of none), newest first. */
export interface ChargeSearchPage extends Omit<ChargeListPage, 'take'> {
  reading: ChargeReading | null;
  /** The bounded walk's floor: the page reads its index down to it (inclusive) and no further. */
  floor?: KeysetPoint | null;
  /** How many rows to read. */
  take: number;
}

/** Where a charge walk that a filter may reject row after row stops: which index, and where on it. */
export interface ChargeWalk {
  accountId: string;
  /** The status index (a status and a method asked, no reading) or the amount index (an amount reading). */
  by: { status: TransactionStatus } | { amount: number };
  since?: string;
  until?: string;
  before?: KeysetPoint;
}

/** An e-mail or document reading's walk of the customer index. */
export interface CustomerWalk {
  accountId: string;
  reading: { kind: 'email' | 'document'; value: string };
  since?: string;
  until?: string;
  /** The cursor's instant: only customers at or before it. */
  atOrBefore?: string;
}

const ph = (name: string) => sql.placeholder(name);

/** The columns of a transaction view (transaction + customer); the search builds other joins over them. */
const viewColumns = {
  id: transactions.id,
  status: transactions.status,
  amount: transactions.amount,
  method: transactions.method,
  currency: transactions.currency,
  endToEnd: transactions.endToEnd,
  postback: transactions.postback,
  items: transactions.items,
  externalRef: transactions.externalRef,
  metadata: transactions.metadata,
  createdAt: transactions.createdAt,
  updatedAt: transactions.updatedAt,
  refundedAmount: transactions.refundedAmount,
  customerId: customers.id,
  customerName: customers.name,
  customerEmail: customers.email,
  customerPhone: customers.phone,
  customerDocument: customers.document,
};

/**
 * Transactions joined with their customer in one statement: every reader of views (one, a page, an
 * event) goes through this, so a page of N transactions is one query, never N+1.
 */
function selectViews(db: DrizzleDb) {
  return db.select(viewColumns).from(transactions).innerJoin(customers, eq(customers.id, transactions.customerId));
}

const refundColumns = { transactionId: refunds.transactionId, id: refunds.id, amount: refunds.amount, status: refunds.status, endToEnd: refunds.endToEnd, createdAt: refunds.createdAt };

const views = perConnection((db) => ({
  /** The view of one of the account's transactions. */
  byId: selectViews(db).where(and(eq(transactions.accountId, ph('accountId')), eq(transactions.id, ph('id')))).prepare(),
  refundsOfOne: db.select(refundColumns).from(refunds)
    .where(eq(refunds.transactionId, ph('id'))).orderBy(asc(refunds.createdAt), asc(refunds.id)).prepare(),
}));

/** GET /transaction's lookup keys and their columns, in the order their statements are named. */
const LOOKUP_COLUMNS = {
  id: transactions.id, identifier: transactions.identifier, endtoend: transactions.endToEnd, external_ref: transactions.externalRef,
} as const;
type LookupKey = keyof typeof LOOKUP_COLUMNS;
export type ChargeLookup = Partial<Record<LookupKey, string>>;

/** One prepared statement per combination of lookup keys (at most 15), built on first use per connection. */
const lookupStatements = perConnection((db) => {
  const cache = new Map<string, ReturnType<typeof build>>();
  function build(keys: LookupKey[]) {
    const conds: SQL[] = [eq(transactions.accountId, ph('accountId')), ...keys.map((k) => eq(LOOKUP_COLUMNS[k], ph(k)))];
    return selectViews(db).where(and(...conds)).limit(2).prepare();
  }
  return (keys: LookupKey[]) => {
    const name = keys.join(',');
    let stmt = cache.get(name);
    if (!stmt) { stmt = build(keys); cache.set(name, stmt); }
    return stmt;
  };
});

/** PENDING charges whose expires_at is at or before `now` (transactions_expiry_idx). */
const dueCharges = (now: ReturnType<typeof ph>) =>
  and(eq(transactions.status, 'PENDING'), isNotNull(transactions.expiresAt), lte(transactions.expiresAt, now));
const expiry = perConnection((db) => ({
  /** Whether any charge is due: an idle pass reads this one row and writes nothing. */
  anyDue: db.select({ id: transactions.id }).from(transactions).where(dueCharges(ph('now'))).limit(1).prepare(),
  /** Expires the oldest due charges that no concurrent job holds (on PostgreSQL another instance's pass skips them). */
  expire: db.update(transactions).set({ status: 'REFUSED', refusedReason: 'expired', updatedAt: ph('at') as unknown as string })
    .where(and(eq(transactions.status, 'PENDING'), inArray(transactions.id, skipLocked(db.select({ id: transactions.id }).from(transactions)
      .where(dueCharges(ph('at'))).orderBy(asc(transactions.expiresAt)).limit(ph('limit'))))))
    .returning({ id: transactions.id, accountId: transactions.accountId, expiresAt: transactions.expiresAt }).prepare(),
}));

/** The condition one reading adds; each is served by one index (see db/schema/transactions.ts). */
function readingCondition(r: ChargeReading): SQL {
  switch (r.kind) {
    case 'id': return eq(transactions.id, r.value);
    case 'endtoend': return eq(transactions.endToEnd, r.value);
    case 'email': return eq(customers.emailSearch, r.value);
    case 'document': return eq(customers.document, r.value);
    case 'amount': return eq(transactions.amount, r.value);
    case 'reference': return eq(transactions.externalRef, r.value);
    // the stem's rows of name_words (the walk's index), the key word among them, the other words in the name
    case 'words': return and(
      eq(nameWords.subject, 'transaction'), eq(nameWords.stem, r.stem), contains(nameWords.words, `,${r.key}`),
      eq(transactions.id, nameWords.ownerId), eq(customers.id, transactions.customerId),
      ...r.others.map((w) => contains(customers.nameWords, `"${w}`)),
    )!;
  }
}

/** Readings that name at most one charge: no order to keep, so the planner goes straight to their index. */
const SINGLE = new Set<ChargeReading['kind']>(['id', 'endtoend', 'reference']);
/** Readings about the customer: the customer index is read first (CROSS JOIN fixes SQLite's join order). */
const BY_CUSTOMER = new Set<ChargeReading['kind']>(['email', 'document']);

export class TransactionStore {
  constructor(private readonly db: DrizzleDb) {}

  // ---------------------------------------------------------------- creating a charge

  /**
   * Inside a write job: holds the account's `externalRef` until the job commits (on PostgreSQL another
   * instance creating the same reference waits here), then says which charge already uses it, if any.
   */
  async lockExternalRef(accountId: string, externalRef: string): Promise<string | null> {
    await lockName(this.db, `transaction-ref\n${accountId}\n${externalRef}`);
    const taken = await first(this.db.select({ id: transactions.id }).from(transactions)
      .where(and(eq(transactions.accountId, accountId), eq(transactions.externalRef, externalRef))));
    return taken?.id ?? null;
  }

  async insertCustomer(c: NewCustomer): Promise<void> {
    await this.db.insert(customers).values(c);
  }

  async insertTransaction(t: NewTransaction): Promise<void> {
    await this.db.insert(transactions).values(t);
  }

  /** The card acquirer's answer on a charge just created. */
  async setCardOutcome(id: string, o: { status: TransactionStatus; refusedReason: string | null }): Promise<void> {
    await this.db.update(transactions).set({ status: o.status, refusedReason: o.refusedReason }).where(eq(transactions.id, id));
  }

  // ---------------------------------------------------------------- paying, expiring

  /**
   * Inside a write job: the account's charge with its row lock held until the job commits (on PostgreSQL
   * a concurrent pay, refund or dispute of it waits), as paying it needs it; null when there is none.
   */
  async lockForPayment(accountId: string, id: string): Promise<PayableCharge | null> {
    await lockRows(this.db, transactions, transactions.id, [id]);
    const t = await first(this.db.select({
      id: transactions.id, method: transactions.method, status: transactions.status, amount: transactions.amount,
      expiresAt: transactions.expiresAt, document: customers.document,
    }).from(transactions).innerJoin(customers, eq(customers.id, transactions.customerId))
      .where(and(eq(transactions.accountId, accountId), eq(transactions.id, id))));
    return t ?? null;
  }

  /** PENDING → APPROVED with the payment's end-to-end id; false when the charge was no longer PENDING. */
  async markPaid(id: string, p: { endToEnd: string | null; updatedAt: string }): Promise<boolean> {
    const changed = await touched(this.db.update(transactions).set({ status: 'APPROVED', endToEnd: p.endToEnd, updatedAt: p.updatedAt })
      .where(and(eq(transactions.id, id), eq(transactions.status, 'PENDING'))).returning({ id: transactions.id }));
    return changed === 1;
  }

  /** Whether any PENDING charge's expires_at is at or before `now` (one row of transactions_expiry_idx). */
  async anyExpiryDue(now: string): Promise<boolean> {
    return (await first(expiry(this.db).anyDue.execute({ now }))) !== undefined;
  }

  /**
   * Inside a write job: the oldest `limit` PENDING charges due at `at` become REFUSED (refused_reason
   * "expired"), skipping those a concurrent job holds (FOR UPDATE SKIP LOCKED on PostgreSQL). Returns
   * them in no particular order.
   */
  async expireDue(at: string, limit: number): Promise<ExpiredCharge[]> {
    return expiry(this.db).expire.execute({ at, limit });
  }

  // ---------------------------------------------------------------- views

  /** The view row of one of the account's transactions, or null (unknown and other accounts' look alike). */
  async viewRow(accountId: string, id: string): Promise<TransactionViewRow | null> {
    return (await first(views(this.db).byId.execute({ accountId, id }))) ?? null;
  }

  /**
   * The view rows of the account's transactions that match every key given (at least one), at most
   * two: more than one is no answer. One prepared statement per combination of keys.
   */
  async lookupViewRows(accountId: string, q: ChargeLookup): Promise<TransactionViewRow[]> {
    const keys = (Object.keys(LOOKUP_COLUMNS) as LookupKey[]).filter((k) => q[k] !== undefined);
    const params: Record<string, string> = { accountId };
    for (const k of keys) params[k] = q[k]!;
    return lookupStatements(this.db)(keys).execute(params);
  }

  /** The refunds of these charges, oldest first (refunds_transaction_idx); one is a prepared statement. */
  async refundsOf(transactionIds: string[]): Promise<ChargeRefundRow[]> {
    if (transactionIds.length === 1) return views(this.db).refundsOfOne.execute({ id: transactionIds[0] });
    return this.db.select(refundColumns).from(refunds).where(inArray(refunds.transactionId, transactionIds)).orderBy(asc(refunds.createdAt), asc(refunds.id));
  }

  /**
   * Newest first, keyset-paged on (created_at, id): the (account_id[, status], created_at, id) indexes
   * serve both the order and the cursor, and each page is one joined query.
   */
  async listPage(p: ChargeListPage): Promise<TransactionViewRow[]> {
    const conds: SQL[] = [eq(transactions.accountId, p.accountId)];
    if (p.status) conds.push(eq(transactions.status, p.status));
    if (p.method) conds.push(eq(transactions.method, p.method));
    if (p.since !== undefined) conds.push(gte(transactions.createdAt, p.since));
    if (p.until !== undefined) conds.push(lt(transactions.createdAt, p.until));
    if (p.before) {
      const { createdAt, id } = p.before;
      conds.push(or(lt(transactions.createdAt, createdAt), and(eq(transactions.createdAt, createdAt), lt(transactions.id, id)))!);
    }
    return selectViews(this.db).where(and(...conds))
      .orderBy(desc(transactions.createdAt), desc(transactions.id)).limit(p.take);
  }

  /** The columns of the account's charge that its payment details show; null when there is none. */
  async paymentRow(accountId: string, id: string): Promise<PaymentRow | null> {
    const t = await first(this.db.select().from(transactions)
      .where(and(eq(transactions.accountId, accountId), eq(transactions.id, id))));
    return t ?? null;
  }

  // ---------------------------------------------------------------- search

  /** One page of one reading of the dashboard's search: its rows, newest first (searchPageQuery). */
  async searchPage(p: ChargeSearchPage): Promise<TransactionViewRow[]> {
    return this.searchPageQuery(p);
  }

  /**
   * The statement of a search page, unrun (the plan tests read its SQL). Every variant is an index search
   * of the account's rows, never a scan.
   */
  searchPageQuery(p: ChargeSearchPage) {
    const { reading } = p;
    // a word search walks name_words, whose (created_at, owner_id) are the charge's: order, dates and
    // cursor go on its columns so that its index serves them
    const byWords = reading?.kind === 'words';
    // likewise an e-mail or document search walks the customer index: every charge has a customer of its
    // own stamped with the charge's created_at (when the domain creates the charge), so order, dates,
    // cursor and floor go on the customer's, and the charges are then reached by customer, never by a
    // range of the account's charges
    const byCustomer = reading !== null && BY_CUSTOMER.has(reading.kind);
    const createdAt = byWords ? nameWords.createdAt : byCustomer ? customers.createdAt : transactions.createdAt;
    const id = byWords ? nameWords.ownerId : transactions.id;
    const where: SQL[] = [eq(byWords ? nameWords.accountId : transactions.accountId, p.accountId)];
    if (reading) {
      where.push(readingCondition(reading));
      if (byCustomer) where.push(eq(customers.accountId, p.accountId), eq(customers.id, transactions.customerId));
    }
    if (p.status) where.push(eq(transactions.status, p.status));
    if (p.method) where.push(eq(transactions.method, p.method));
    if (p.since) where.push(gte(createdAt, p.since));
    if (p.until) where.push(lt(createdAt, p.until));
    if (p.before) where.push(sql`(${createdAt}, ${id}) < (${p.before.createdAt}, ${p.before.id})`);
    if (p.floor) where.push(sql`(${createdAt}, ${id}) >= (${p.floor.createdAt}, ${p.floor.id})`);
    const base = byWords
      ? this.db.select(viewColumns).from(nameWords).crossJoin(transactions).crossJoin(customers).where(and(...where)).$dynamic()
      : byCustomer
        ? this.db.select(viewColumns).from(customers).crossJoin(transactions).where(and(...where)).$dynamic()
        : selectViews(this.db).where(and(...where)).$dynamic();
    if (reading && SINGLE.has(reading.kind)) return base.limit(p.take);
    return base.orderBy(desc(createdAt), desc(id)).limit(p.take);
  }

  /**
   * The `cap`-th row, newest first, of the walk's index (status or amount) within its dates and before
   * its cursor, read from the index alone: the floor past which one page does not read (null when fewer
   * rows are there).
   */
  chargeWalkFloor(w: ChargeWalk, cap: number): Promise<KeysetPoint | null> {
    const where: SQL[] = [eq(transactions.accountId, w.accountId)];
    where.push('status' in w.by ? eq(transactions.status, w.by.status) : eq(transactions.amount, w.by.amount));
    return indexWalkFloor(this.db, {
      table: transactions, createdAt: transactions.createdAt, id: transactions.id, since: w.since, until: w.until, before: w.before,
    }, where, cap);
  }

  /**
   * The created_at of the `cap`-th of the account's customers with the reading's e-mail or document,
   * newest first, read from the customer index (account, e-mail or document, created_at) alone; null
   * when there are fewer.
   */
  async customerWalkFloor(w: CustomerWalk, cap: number): Promise<string | null> {
    const where: SQL[] = [eq(customers.accountId, w.accountId), readingCondition(w.reading)];
    if (w.since) where.push(gte(customers.createdAt, w.since));
    if (w.until) where.push(lt(customers.createdAt, w.until));
    if (w.atOrBefore) where.push(lte(customers.createdAt, w.atOrBefore));
    const [r] = await this.db.select({ createdAt: customers.createdAt }).from(customers).where(and(...where))
      .orderBy(desc(customers.createdAt)).limit(1).offset(cap - 1);
    return r?.createdAt ?? null;
  }

  // ---------------------------------------------------------------- disputes

  /**
   * Inside a write job: the account's charge with its row lock held until the job commits (the lock
   * that serializes a charge's refunds, disputes and payment), as disputing it needs it; null when none.
   */
  async lockForDispute(accountId: string, id: string): Promise<DisputableCharge | null> {
    await lockRows(this.db, transactions, transactions.id, [id]);
    const t = await first(this.db.select({ id: transactions.id, method: transactions.method, status: transactions.status, amount: transactions.amount, refundedAmount: transactions.refundedAmount })
      .from(transactions).where(and(eq(transactions.accountId, accountId), eq(transactions.id, id))));
    return t ?? null;
  }

  /** The id of a dispute the charge already has (any status), or null. */
  async disputeIdOf(transactionId: string): Promise<string | null> {
    const existing = await first(this.db.select({ id: disputes.id }).from(disputes).where(eq(disputes.transactionId, transactionId)));
    return existing?.id ?? null;
  }

  async insertDispute(d: DisputeRow): Promise<void> {
    await this.db.insert(disputes).values(d);
  }

  async dispute(id: string): Promise<DisputeRow | null> {
    return (await first(this.db.select().from(disputes).where(eq(disputes.id, id)))) ?? null;
  }

  /**
   * Inside a write job: the account's dispute as it is once its charge's row lock is held (as refunds take
   * it: a refund failing meanwhile grows its amount); null when the account has no such dispute.
   */
  async lockDispute(accountId: string, id: string): Promise<DisputeRow | null> {
    const found = await first(this.db.select({ transactionId: disputes.transactionId }).from(disputes).where(and(eq(disputes.accountId, accountId), eq(disputes.id, id))));
    if (!found) return null;
    await lockRows(this.db, transactions, transactions.id, [found.transactionId]);
    return (await first(this.db.select().from(disputes).where(eq(disputes.id, id))))!;
  }

  /** OPEN → WON or LOST; false when the dispute was no longer OPEN. */
  async closeDispute(id: string, p: { status: 'WON' | 'LOST'; updatedAt: string }): Promise<boolean> {
    const changed = await touched(this.db.update(disputes).set({ status: p.status, updatedAt: p.updatedAt })
      .where(and(eq(disputes.id, id), eq(disputes.status, 'OPEN'))).returning({ id: disputes.id }));
    return changed === 1;
  }

  /** Whether the account has this charge. */
  async hasCharge(accountId: string, id: string): Promise<boolean> {
    const t = await first(this.db.select({ id: transactions.id }).from(transactions)
      .where(and(eq(transactions.accountId, accountId), eq(transactions.id, id))));
    return t !== undefined;
  }

  /** The disputes of a charge, oldest first. */
  async disputesOf(transactionId: string): Promise<DisputeRow[]> {
    return this.db.select().from(disputes).where(eq(disputes.transactionId, transactionId)).orderBy(disputes.createdAt, disputes.id);
  }

  /** The statuses of the disputes of these charges (at least one), oldest first. */
  async disputeStatusesOf(transactionIds: string[]): Promise<{ transactionId: string; status: DisputeStatus }[]> {
    return this.db.select({ transactionId: disputes.transactionId, status: disputes.status }).from(disputes)
      .where(inArray(disputes.transactionId, transactionIds)).orderBy(disputes.createdAt, disputes.id);
  }

  /** The account's disputes in these statuses, newest first, with their charge's method and customer's name. */
  async disputeList(accountId: string, statuses: DisputeStatus[], limit: number): Promise<DisputeListRow[]> {
    return this.db.select({
      id: disputes.id, transactionId: disputes.transactionId, status: disputes.status, amount: disputes.amount,
      createdAt: disputes.createdAt, updatedAt: disputes.updatedAt, customerName: customers.name, method: transactions.method,
    }).from(disputes)
      .innerJoin(transactions, eq(transactions.id, disputes.transactionId))
      .innerJoin(customers, eq(customers.id, transactions.customerId))
      .where(and(eq(disputes.accountId, accountId), inArray(disputes.status, statuses)))
      .orderBy(desc(disputes.createdAt), desc(disputes.id)).limit(limit);
  }
}
