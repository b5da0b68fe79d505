// @engines sqlite: asserts SQLite's EXPLAIN QUERY PLAN output
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import type { DrizzleDb } from '../../db';
import { handleOf, type Stores } from '../../db/stores';
import { auditBooks } from '../../server/domain/audit';
import { purgeExpiredIdempotencyKeys } from '../../server/domain/idempotency';
import { expireDuePixCharges } from '../../server/domain/transactions/expiry';
import { runRefundPass } from '../../server/domain/transactions/refunds';
import { sandboxRail } from '../../server/domain/rails/sandbox';
import { runSettlementPass } from '../../server/domain/withdrawals/settle';
import { dispatchPendingEvents } from '../../server/domain/webhooks/dispatcher';
import { chooseDue } from '../../server/domain/webhooks/deliveries/claim';
import { SlotUse } from '../../server/domain/webhooks/fair-share';
import { withdrawalView, withdrawalViewByBatch } from '../../server/domain/withdrawals/view';
import { withdrawalWithBatchesQuery } from '../../db/stores/withdrawals';
import { and, eq, isNull } from 'drizzle-orm';
import { ledgerBooks, withdrawalBatches, withdrawals } from '../../db/schema';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * Every secondary index is kept because a query plan needs it (every index costs each insert): the list and
 * search pages are proven by the *-scale tests; these are the background passes and the audit. Each test
 * runs the domain function itself, records the SQL it sends to SQLite, and asserts the plan of that SQL.
 * (Indexes that no plan used were dropped: events_resource_idx, deliveries_event_idx.)
 */
let s: TestServices;
let accountId: string;

beforeAll(async () => {
  s = await makeTestServices({ config: { webhookAllowPrivateUrls: true } });
  accountId = (await makeAccount(s, { balance: 1_000_000 })).account_id;
  const api = callerFor(s, accountId);
  await callerFor(s, accountId, 'webhook-api').webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['withdraw'] });
  await api.withdrawals.create({ amount: 1000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: '52998224725' }, postback: 'http://127.0.0.1:9/postback' });
});
afterAll(async () => { await s.cleanup(); });

/** The better-sqlite3 connection under a drizzle handle (drizzle keeps it as $client). */
const clientOf = (db: DrizzleDb | Stores) => (handleOf(db) as unknown as { $client: Database.Database }).$client;
const writeConnection = () => s.db.write((tx) => clientOf(tx));

/** The plans of every statement `fn` prepares on these connections (statements prepared before are not seen: each test's function prepares its own on first use). */
interface Planned { sql: string; plan: string }
async function plansOf(conns: Database.Database[], fn: () => Promise<unknown>): Promise<Planned[]> {
  const seen: string[] = [];
  const originals = conns.map((c) => c.prepare);
  conns.forEach((c, i) => { c.prepare = ((text: string) => { seen.push(text); return originals[i].call(c, text); }) as typeof c.prepare; });
  try { await fn(); } finally { conns.forEach((c, i) => { c.prepare = originals[i]; }); }
  return seen.filter((t) => /^\s*(select|update|delete|with)/i.test(t)).map((t) => ({ sql: t, plan: explain(conns[0], t) }));
}

/** EXPLAIN QUERY PLAN with every parameter bound to NULL (the plan does not depend on the values). */
function explain(conn: Database.Database, text: string): string {
  const stmt = conn.prepare(`EXPLAIN QUERY PLAN ${text}`);
  for (let n = 0; n < 64; n++) {
    try { return (stmt.all(...Array(n).fill(null)) as { detail: string }[]).map((r) => r.detail).join(' | '); } catch (err) {
      if (!/Too few/.test(String(err))) throw err;
    }
  }
  throw new Error(`could not bind ${text}`);
}

const planOf = (plans: Planned[], sqlPart: RegExp) => {
  const found = plans.filter((p) => sqlPart.test(p.sql));
  expect(found, `no statement matching ${sqlPart} in\n${plans.map((p) => `${p.sql}\n  => ${p.plan}`).join('\n')}`).not.toHaveLength(0);
  return found.map((p) => p.plan).join('\n');
};

describe('the plans of the background passes', () => {
  it('dispatcher: the probe and the batch walk events_undispatched_idx; webhooks of the accounts by webhooks_account_idx; postbacks by primary key', async () => {
    const read = clientOf(s.db.read);
    const plans = await plansOf([read, await writeConnection()], () => dispatchPendingEvents(s));
    expect(planOf(plans, /from "events" where "events"."dispatched_at" is null/)).toMatch(/SEARCH events USING (COVERING )?INDEX events_undispatched_idx \(dispatched_at=\?\)/);
    expect(planOf(plans, /from "events" where "events"."dispatched_at" is null/)).not.toMatch(/TEMP B-TREE|SCAN events/);
    expect(planOf(plans, /update "events"/)).toMatch(/SEARCH events USING INDEX events_undispatched_idx \(dispatched_at=\? AND seq<\?\)/);
    expect(planOf(plans, /from "webhooks"/)).toMatch(/SEARCH webhooks USING INDEX webhooks_account_idx \(account_id=\?\)/);
    expect(planOf(plans, /from "withdrawals" where "withdrawals"."id" in/)).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    // the fan-out did happen (a webhook and a postback for withdraw.requested)
    expect(await s.db.read.handle.$count((await import('../../db/schema')).deliveries)).toBe(2);
  });

  it('fair delivery: the accounts with due work by a loose scan of deliveries_account_due_idx, and each account\'s oldest due heads by a seek on it', async () => {
    const read = clientOf(s.db.read);
    const pass = { use: new SlotUse({ total: 64, perAccount: 16, perHost: 16 }), after: null };
    let chosen: { id: string }[] = [];
    const plans = await plansOf([read], async () => { chosen = await chooseDue(s.db.read, new Date().toISOString(), [], pass); });
    const walk = planOf(plans, /WITH RECURSIVE pending/);
    expect(walk).toMatch(/SEARCH (x|deliveries) USING (COVERING )?INDEX deliveries_account_due_idx \(status=\? AND account_id>\?\)/);
    expect(walk).toMatch(/SEARCH d (EXISTS )?USING (COVERING )?INDEX deliveries_account_due_idx \(status=\? AND account_id=\? AND next_attempt_at<\?\)/);
    expect(walk).not.toMatch(/SCAN deliveries|SCAN x|SCAN d\b/);
    const heads = planOf(plans, /SELECT \* FROM \(\s*SELECT d\.id/);
    expect(heads).toMatch(/SEARCH d USING INDEX deliveries_account_due_idx \(status=\? AND account_id=\? AND next_attempt_at<\?\)/);
    // (ties on next_attempt_at are put in id order within the seek: "TEMP B-TREE FOR LAST TERM", never a whole sort)
    expect(heads).not.toMatch(/TEMP B-TREE FOR ORDER BY|SCAN d\b/);
    // the withdrawal's webhook and postback deliveries of the dispatcher test above, both due
    expect(chosen).toHaveLength(2);
  });

  it('expiry: due charges by transactions_expiry_idx, in expiry order', async () => {
    const plans = await plansOf([clientOf(s.db.read), await writeConnection()], () => expireDuePixCharges(s));
    const p = planOf(plans, /from "transactions" where/);
    expect(p).toMatch(/SEARCH transactions USING INDEX transactions_expiry_idx \(status=\? AND expires_at>\? AND expires_at<\?\)|SEARCH transactions USING INDEX transactions_expiry_idx \(status=\? AND expires_at/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('settlement and refund claims: due rows by their due index, claimed and read back by primary key', async () => {
    const plans = await plansOf([clientOf(s.db.read), await writeConnection()], () => runSettlementPass(s, sandboxRail(0)));
    const claim = planOf(plans, /update "withdrawal_batches" set "due_at"/);
    expect(claim).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_due_idx \(status=\? AND due_at<\?\)/);
    expect(claim).toMatch(/SEARCH withdrawal_batches USING INDEX sqlite_autoindex_withdrawal_batches_1 \(id=\?\)/);
    // the probe of an idle pass: due for this instance (its own, unclaimed, or another's past JOB_AFFINITY_MS)
    expect(planOf(plans, /from "withdrawal_batches" where \("withdrawal_batches"."status" = \? and "withdrawal_batches"."due_at" <= \? and \(.*"withdrawal_batches"."claimed_by" = \?.*\)\) limit/)).toMatch(/SEARCH withdrawal_batches USING (COVERING )?INDEX withdrawal_batches_due_idx \(status=\? AND due_at<\?\)/);
    expect(planOf(plans, /inner join "withdrawals".*"withdrawal_batches"."id" in \(SELECT value FROM json_each/)).toMatch(/SEARCH withdrawal_batches USING INDEX sqlite_autoindex_withdrawal_batches_1 \(id=\?\)/);
    const refundPlans = await plansOf([clientOf(s.db.read), await writeConnection()], () => runRefundPass(s, sandboxRail(0)));
    // the same due-here condition (db/stores/claims.ts): the probe and the claim still walk the due index
    expect(planOf(refundPlans, /from "refunds" where \("refunds"."status" = \? and "refunds"."due_at" <= \? and \(.*"refunds"."claimed_by" = \?.*\)\) limit/)).toMatch(/SEARCH refunds USING (COVERING )?INDEX refunds_due_idx \(status=\? AND due_at<\?\)/);
    const refundClaim = planOf(refundPlans, /update "refunds" set "due_at"/);
    expect(refundClaim).toMatch(/SEARCH refunds USING INDEX refunds_due_idx \(status=\? AND due_at<\?\)/);
    expect(refundClaim).toMatch(/SEARCH refunds USING (COVERING )?INDEX sqlite_autoindex_refunds_1 \(id=\?\)/);
  });

  it('idempotency purge: expired keys by idempotency_keys_expires_idx', async () => {
    const plans = await plansOf([await writeConnection()], () => purgeExpiredIdempotencyKeys(s, new Date()));
    expect(planOf(plans, /delete from "idempotency_keys"/)).toMatch(/SEARCH idempotency_keys USING COVERING INDEX idempotency_keys_expires_idx \(expires_at<\?\)/);
  });

  it('ledger audit (readiness, every minute): credits per transaction by the one-credit index, lines per entry by ledger_lines_entry_idx', async () => {
    const plans = await plansOf([clientOf(s.db.read)], async () => auditBooks(s.db.read));
    // the partial unique index on transaction credits answers "how many credits" without the table
    expect(planOf(plans, /FROM ledger_entries e WHERE e.resource_id = t.id/)).toMatch(/SEARCH e USING COVERING INDEX ledger_entries_one_credit_uq \(resource_id=\?\)/);
    expect(planOf(plans, /LEFT JOIN ledger_lines l ON l.entry_id = e.id/)).toMatch(/SEARCH l USING INDEX ledger_lines_entry_idx \(entry_id=\?\)/);
  });

  it('system books (every entry that reaches one, and the audit): a shard found by ledger_books_system_shard_uq; the audit\'s system_books check reads the books, never their lines', async () => {
    const lookup = s.db.read.handle.select({ id: ledgerBooks.id }).from(ledgerBooks)
      .where(and(isNull(ledgerBooks.accountId), eq(ledgerBooks.kind, 'pix_out'), eq(ledgerBooks.shard, 3))).toSQL().sql;
    expect(explain(clientOf(s.db.read), lookup)).toMatch(/^SEARCH ledger_books USING INDEX ledger_books_system_shard_uq \(kind=\? AND shard=\?\)$/);
    const plans = await plansOf([clientOf(s.db.read)], async () => auditBooks(s.db.read));
    for (const q of [/GROUP BY kind HAVING count\(\*\) <> count\(DISTINCT shard\)/, /AS system,/]) expect(planOf(plans, q)).not.toMatch(/ledger_lines|\bl\b/);
  });

  it('withdrawal view (GET /withdraw, event payloads): the withdrawal by primary key and its batches by withdrawal_batches_withdrawal_idx, in one statement, in order', async () => {
    const p = explain(clientOf(s.db.read), withdrawalWithBatchesQuery(s.db.read).toSQL().sql);
    expect(p).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_withdrawal_idx \(withdrawal_id=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE|SCAN/);
    const [w] = await s.db.read.handle.select({ id: withdrawals.id }).from(withdrawals).limit(1);
    expect((await withdrawalView(s.db.read, accountId, w.id))?.receipt).toHaveLength(1);
  });

  it('withdrawal view by a batch identifier (the usual GET /withdraw): the batch, the withdrawal and its batches each by an index, in one statement', async () => {
    const p = explain(clientOf(s.db.read), withdrawalWithBatchesQuery(s.db.read, 'batch').toSQL().sql);
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX sqlite_autoindex_withdrawal_batches_1 \(id=\?\)/);
    expect(p).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    expect(p).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_withdrawal_idx \(withdrawal_id=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE|SCAN/);
    const [b] = await s.db.read.handle.select({ id: withdrawalBatches.id, withdrawalId: withdrawalBatches.withdrawalId }).from(withdrawalBatches).limit(1);
    expect((await withdrawalViewByBatch(s.db.read, accountId, b.id))?.id).toBe(b.withdrawalId);
    // another account's batch is not found
    expect(await withdrawalViewByBatch(s.db.read, 'acc_someone_else', b.id)).toBeNull();
  });
});

