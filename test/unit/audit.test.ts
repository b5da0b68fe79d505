// @engines sqlite: forges ledger breaks with a raw SQLite connection behind the triggers (the audit runs on PostgreSQL in the operations and cluster tests)
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditBooks } from '../../server/domain/audit';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';
import { APPROVED_CARD, card, txBody } from '../support/transactions';

/**
 * The ledger audit over a real database: clean books pass; each kind of break, forged behind the
 * application's back with a second connection, is found and named.
 */
let s: TestServices;
let raw: Database.Database;
let accountId: string;
let withdrawalId: string;
let transactionId: string;

beforeEach(async () => {
  s = await makeTestServices();
  const acc = await makeAccount(s, { balance: 1_000_000 });
  accountId = acc.account_id;
  const api = callerFor(s, accountId);
  const wd = await api.withdrawals.create({ amount: 400_000, key: 'fulano@example.com', key_type: 'EMAIL', details: { name: 'Fulano de Tal', document: '529.982.247-25' } });
  const batchId = (wd as { data: { identifier: string }[] }).data[0].identifier;
  const tx = await api.transactions.create(txBody('CARD', { card: card({ number: APPROVED_CARD }) }));
  transactionId = (tx as { id: string }).id;
  raw = new Database(s.config.databasePath);
  raw.pragma('busy_timeout = 5000');
  withdrawalId = (raw.prepare('SELECT withdrawal_id AS id FROM withdrawal_batches WHERE id = ?').get(batchId) as { id: string }).id;
});
afterEach(async () => {
  raw?.close();
  await s.cleanup();
});

const availableBook = () => (raw.prepare(`SELECT id FROM ledger_books WHERE account_id = ? AND kind = 'available'`).get(accountId) as { id: string }).id;
const systemBook = () => (raw.prepare(`SELECT id FROM ledger_books WHERE account_id IS NULL LIMIT 1`).get() as { id: string }).id;
function forgeLines(id: string, lines: [string, number][]) {
  for (const [book, amount] of lines) {
    raw.prepare(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES (?, ?, ?, (SELECT balance FROM ledger_books WHERE id = ?) + ?, '2099-01-01T00:00:00.000Z')`).run(id, book, amount, book, amount);
  }
}
function forgeEntry(kind: string, lines: [string, number][]) {
  const id = `lje_forged_${kind}_${Math.abs(lines[0][1])}`;
  raw.prepare(`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES (?, ?, ?, '2099-01-01T00:00:00.000Z')`).run(id, accountId, kind);
  forgeLines(id, lines); // balance_after as the ledger's trigger demands
  return id;
}

describe('auditBooks', () => {
  it('passes on books the application wrote', async () => {
    const report = (await auditBooks(s.db.read));
    expect(report).toMatchObject({ ok: true, firstBreak: null });
    expect(report.checks.map((c) => c.name)).toEqual(['entries_balanced', 'book_balances', 'system_books', 'balance_floors', 'withdrawal_batches', 'transaction_credits']);
    expect(withdrawalId).toMatch(/^wd_/);
  });

  it('finds an entry whose lines do not sum to zero', async () => {
    const id = forgeEntry('forged', [[availableBook(), 500]]);
    const report = (await auditBooks(s.db.read));
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toBe(`entries_balanced: entry ${id}: its 1 line(s) sum to 500, not 0`);
  });

  it('finds a book whose balance is not the sum of its lines', async () => {
    // the database refuses this itself (a trigger): take that guard away to see the audit catch it
    raw.exec('DROP TRIGGER IF EXISTS ledger_books_balance_from_lines');
    raw.prepare('UPDATE ledger_books SET balance = balance + 1 WHERE id = ?').run(availableBook());
    const report = (await auditBooks(s.db.read));
    expect(report.firstBreak).toMatch(new RegExp(`^book_balances: book ${availableBook()} \\(available\\)`));
  });

  it('allows available below zero by a dispute hold only', async () => {
    raw.prepare('UPDATE ledger_books SET allow_negative = 1 WHERE id = ?').run(availableBook());
    const balance = (raw.prepare('SELECT balance FROM ledger_books WHERE id = ?').get(availableBook()) as { balance: number }).balance;
    forgeEntry('dispute_hold', [[availableBook(), -(balance + 100)], [systemBook(), balance + 100]]);
    expect((await auditBooks(s.db.read)).ok).toBe(true);
    const id = forgeEntry('withdrawal_requested', [[availableBook(), -50], [systemBook(), 50]]);
    expect((await auditBooks(s.db.read)).firstBreak).toBe(`balance_floors: book ${availableBook()} (available): entry ${id} (withdrawal_requested) took it to -150; only a dispute hold may go below zero`);
  });

  it('finds a withdrawal whose batches do not add up to it', async () => {
    raw.prepare('UPDATE withdrawal_batches SET amount = amount - 1 WHERE withdrawal_id = ?').run(withdrawalId);
    expect((await auditBooks(s.db.read)).firstBreak).toBe(`withdrawal_batches: withdrawal ${withdrawalId}: amount 400000 but its batches add up to 399999`);
  });

  it('the database refuses a second credit of one transaction', () => {
    const forge = () => raw.prepare(`INSERT INTO ledger_entries (id, account_id, kind, resource_id, created_at) VALUES (?, ?, 'transaction_credit', ?, '2099-01-01T00:00:00.000Z')`).run('lje_refused_second_credit', accountId, transactionId);
    expect(forge).toThrow(/UNIQUE constraint failed/);
  });

  it('finds an approved transaction credited twice', async () => {
    // a second credit of the same transaction, balanced in itself, in a copy whose index was dropped:
    // the audit must not rely on the constraint it checks behind
    raw.exec('DROP INDEX ledger_entries_one_credit_uq');
    const id = 'lje_forged_second_credit';
    raw.prepare(`INSERT INTO ledger_entries (id, account_id, kind, resource_id, created_at) VALUES (?, ?, 'transaction_credit', ?, '2099-01-01T00:00:00.000Z')`).run(id, accountId, transactionId);
    forgeLines(id, [[systemBook(), -9], [availableBook(), 9]]);
    expect((await auditBooks(s.db.read)).firstBreak).toBe(`transaction_credits: transaction ${transactionId} (APPROVED) is credited 2 time(s)`);
  });
});
