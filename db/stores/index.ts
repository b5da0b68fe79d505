import type { DrizzleDb } from '../handle';
import { onPostgres } from '../dialect';
import { perConnection } from '../prepared';
import { transact } from '../pg/transact';
import { LedgerStore } from './ledger';
import { ReportStore } from './reports';
import { WithdrawalStore } from './withdrawals';
import { TransactionStore } from './transactions';
import { RefundStore } from './refunds';
import { DeliveryStore } from './deliveries';
import { EventStore } from './events';
import { WebhookStore } from './webhooks';
import { AccountStore } from './accounts';
import { SessionStore } from './sessions';
import { IdempotencyStore } from './idempotency';
import { AuditTrailStore } from './audit-trail';
import { SearchStore } from './search';
import { PixApiClientStore, PixKeyStore } from './pix-api';
import { PixChargeStore } from './pix-charges';
import { PixReceivedStore } from './pix-received';
import { PixKeyWebhookStore } from './pix-webhooks';
import { PixPayloadStore } from './pix-payloads';
import { PixLoteCobvStore } from './pix-lotecobv';

/**
 * What a running write job carries besides its transaction: who asked for it, and what to do once it
 * has committed.
 */
export interface JobContext {
  requestId: string | null;
  effects: (() => void)[];
}

/**
 * The seam between the domain and the database: every query the domain runs is a method of one of
 * these stores, grouped by aggregate, written once for both engines (db/dialect.ts and the store's
 * own branches say where their SQL differs). The domain receives `Stores` (the read side, or a write
 * job's transaction) and never sees a table, a query builder or an engine.
 *
 * A store is built once per connection (its statements are prepared on it); `Stores` itself is made
 * per write job, since it also carries the job's context.
 */
export class Stores {
  constructor(
    /** The connection or transaction the stores run on. Only db/ and tests' support code reach it. */
    readonly handle: DrizzleDb,
    private readonly job: JobContext | null = null,
  ) {}

  /**
   * Inside a write job: runs `fn` once the job has committed (never if it rolls back), for effects
   * outside the database such as counting outcomes. Outside a job (the read side) nothing is kept.
   */
  afterCommit(fn: () => void): void {
    this.job?.effects.push(fn);
  }

  /** Inside a write job: the id of the request that queued it (null for background work and reads). */
  get requestId(): string | null {
    return this.job?.requestId ?? null;
  }

  /**
   * Runs reads that must agree with each other (a resource and its parts, read by several statements)
   * on one snapshot. SQLite's read connection sees one committed state between the single writer's
   * groups and needs nothing; on PostgreSQL each statement on the pool may otherwise see a different
   * commit, so they run in one read-only REPEATABLE READ transaction.
   */
  snapshot<T>(reads: (db: Stores) => Promise<T>): Promise<T> {
    if (!onPostgres) return reads(this);
    return transact(this.handle as unknown as Parameters<typeof transact>[0], 'isolation level repeatable read read only', (tx) => reads(new Stores(tx as unknown as DrizzleDb)));
  }

  get ledger(): LedgerStore { return storeOf.ledger(this.handle); }
  get reports(): ReportStore { return storeOf.reports(this.handle); }
  get withdrawals(): WithdrawalStore { return storeOf.withdrawals(this.handle); }
  get transactions(): TransactionStore { return storeOf.transactions(this.handle); }
  get refunds(): RefundStore { return storeOf.refunds(this.handle); }
  get deliveries(): DeliveryStore { return storeOf.deliveries(this.handle); }
  get events(): EventStore { return storeOf.events(this.handle); }
  get webhooks(): WebhookStore { return storeOf.webhooks(this.handle); }
  get accounts(): AccountStore { return storeOf.accounts(this.handle); }
  get sessions(): SessionStore { return storeOf.sessions(this.handle); }
  get idempotency(): IdempotencyStore { return storeOf.idempotency(this.handle); }
  get auditTrail(): AuditTrailStore { return storeOf.auditTrail(this.handle); }
  get search(): SearchStore { return storeOf.search(this.handle); }
  get pixKeys(): PixKeyStore { return storeOf.pixKeys(this.handle); }
  get pixApiClients(): PixApiClientStore { return storeOf.pixApiClients(this.handle); }
  get pixCharges(): PixChargeStore { return storeOf.pixCharges(this.handle); }
  get pixReceived(): PixReceivedStore { return storeOf.pixReceived(this.handle); }
  get pixKeyWebhooks(): PixKeyWebhookStore { return storeOf.pixKeyWebhooks(this.handle); }
  get pixPayloads(): PixPayloadStore { return storeOf.pixPayloads(this.handle); }
  get pixLoteCobv(): PixLoteCobvStore { return storeOf.pixLoteCobv(this.handle); }
}

const outsideJobs = new WeakMap<DrizzleDb, Stores>();

/** Stores over a handle outside any job (the read connection or pool), one per handle. */
export function storesOver(handle: DrizzleDb): Stores {
  let stores = outsideJobs.get(handle);
  if (!stores) outsideJobs.set(handle, (stores = new Stores(handle)));
  return stores;
}

export { handleOf } from './handle-of';

/** Each store, built once per connection: its statements are prepared on that connection. */
const storeOf = {
  ledger: perConnection((h) => new LedgerStore(h)),
  reports: perConnection((h) => new ReportStore(h)),
  withdrawals: perConnection((h) => new WithdrawalStore(h)),
  transactions: perConnection((h) => new TransactionStore(h)),
  refunds: perConnection((h) => new RefundStore(h)),
  deliveries: perConnection((h) => new DeliveryStore(h)),
  events: perConnection((h) => new EventStore(h)),
  webhooks: perConnection((h) => new WebhookStore(h)),
  accounts: perConnection((h) => new AccountStore(h)),
  sessions: perConnection((h) => new SessionStore(h)),
  idempotency: perConnection((h) => new IdempotencyStore(h)),
  auditTrail: perConnection((h) => new AuditTrailStore(h)),
  search: perConnection((h) => new SearchStore(h)),
  pixKeys: perConnection((h) => new PixKeyStore(h)),
  pixApiClients: perConnection((h) => new PixApiClientStore(h)),
  pixCharges: perConnection((h) => new PixChargeStore(h)),
  pixReceived: perConnection((h) => new PixReceivedStore(h)),
  pixKeyWebhooks: perConnection((h) => new PixKeyWebhookStore(h)),
  pixPayloads: perConnection((h) => new PixPayloadStore(h)),
  pixLoteCobv: perConnection((h) => new PixLoteCobvStore(h)),
};
