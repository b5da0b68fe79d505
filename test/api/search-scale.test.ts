import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../db/client';
import { customers, disputes, transactions, withdrawalBatches, withdrawals } from '../../db/schema';
import { encodeCursor } from '../../server/domain/cursor';
import { readSearch } from '../../server/domain/search';
import { transactionSearchQuery } from '../../server/domain/transactions/search';
import { withdrawalSearchConditions, withdrawalSearchQuery } from '../../server/domain/withdrawals/search';
import { callerFor, makeAccount, makeTestServices } from '../support/services';

/**
 * The dashboard's search at scale: 100,000 charges and 100,000 withdrawals (another account's rows
 * mixed in). Every reading of the search box, every filter and every page is an index search of the
 * account's rows, in (created_at, id) order from the cursor; the query plans say so. The one range
 * read (a name prefix) reads only the matching names, then orders them.
 */
const N = Number(process.env.SEARCH_SCALE_ROWS ?? 100_000);
const BASE = Date.parse('2026-01-01T03:00:00.000Z'); // midnight in Brasília
const at = (i: number) => new Date(BASE + i * 60_000).toISOString(); // one a minute: ~69 days
const txn = (i: number) => `txn_${String(i).padStart(20, '0')}`;
const wd = (i: number) => `wd_${String(i).padStart(20, '0')}`;
const NAMES = ['Maria Souza', 'João Lima', 'Ana Costa', 'Pedro Alves', 'Lúcia Araújo'];
const CPF = '52998224725';
const CNPJ = '11222333000181';

let s: ReturnType<typeof makeTestServices>;
let accountId: string;
let raw: Database.Database | undefined;

beforeAll(async () => {
  s = makeTestServices();
  accountId = (await makeAccount(s)).account_id;
  const other = (await makeAccount(s)).account_id;
  await s.db.write(async (tx) => {
    for (let start = 0; start < N; start += 500) {
      const c: (typeof customers.$inferInsert)[] = [];
      const t: (typeof transactions.$inferInsert)[] = [];
      const w: (typeof withdrawals.$inferInsert)[] = [];
      const b: (typeof withdrawalBatches.$inferInsert)[] = [];
      for (let i = start; i < Math.min(N, start + 500); i++) {
        const acc = i % 50 === 49 ? other : accountId;
        const name = i === 77_777 ? 'Zélia Gonçalves' : NAMES[i % NAMES.length];
        c.push({ id: `cus_${String(i).padStart(20, '0')}`, accountId: acc, name, email: `cliente${i % 5000}@example.com`, document: i % 1000 === 7 ? CPF : String(10_000_000_000 + i), createdAt: at(i) });
        t.push({
          id: txn(i), accountId: acc, identifier: `txn${String(i).padStart(20, '0')}`, method: (['PIX', 'CARD', 'INVOICE'] as const)[i % 3],
          status: i % 10 === 3 ? 'REFUSED' : 'APPROVED', amount: 1000 + (i % 5000), customerId: `cus_${String(i).padStart(20, '0')}`, items: '[]',
          endToEnd: i % 3 === 0 ? `E12345678${String(202601010000 + i).slice(0, 12)}${String(i).padStart(11, '0')}` : null,
          externalRef: `pedido-${i}`, createdAt: at(i), updatedAt: at(i),
        });
        w.push({ id: wd(i), accountId: acc, status: i % 10 === 3 ? 'ERROR' : 'PAID', amount: 100 + (i % 1000), key: i % 2 ? `fulano${i % 100}@example.com` : CNPJ, keyType: i % 2 ? 'EMAIL' : 'CNPJ', detailsName: name, detailsDocument: i % 1000 === 9 ? CPF : '11144477735', externalRef: `saque-${i}`, createdAt: at(i), updatedAt: at(i) });
        b.push({ id: `wdb_${String(i).padStart(20, '0')}`, withdrawalId: wd(i), accountId: acc, seq: 0, amount: 100 + (i % 1000), status: i % 10 === 3 ? 'ERROR' : 'PAID', dueAt: at(i), endToEnd: `E00000000${String(202601010000 + i).slice(0, 12)}${String(i).padStart(11, '0')}`, createdAt: at(i), updatedAt: at(i) });
      }
      await tx.insert(customers).values(c);
      await tx.insert(transactions).values(t);
      await tx.insert(withdrawals).values(w);
      await tx.insert(withdrawalBatches).values(b);
    }
    await tx.insert(disputes).values([
      { id: 'dsp_00000000000000000001', accountId, transactionId: txn(99_990), status: 'OPEN', amount: 100, createdAt: at(99_995), updatedAt: at(99_995) },
      { id: 'dsp_00000000000000000002', accountId, transactionId: txn(99_980), status: 'LOST', amount: 100, createdAt: at(99_995), updatedAt: at(99_995) },
    ]);
  });
}, 240_000);
afterAll(async () => { raw?.close(); await s.cleanup(); });

function plan(q: { toSQL(): { sql: string; params: unknown[] } } | null): string {
  if (!q) throw new Error('no query');
  const { sql, params } = q.toSQL();
  raw ??= openConnection(s.db.path, { readonly: true });
  const rows = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as never[])) as { detail: string }[];
  if (process.env.SHOW_PLANS) console.log(sql, '\n', rows.map((r) => r.detail).join('\n'));
  return rows.map((r) => r.detail).join('\n');
}

const mine = (i: number) => i % 50 !== 49;
const ids = (page: { items: { id: string }[] }) => page.items.map((x) => x.id);
const api = () => callerFor(s, accountId);

describe('transactions.search over 100,000 charges', () => {
  const one = (q: string) => transactionSearchQuery(s.db.read, accountId, { q, limit: 20 }, readSearch(q)[0]);

  it('finds a charge by id, end-to-end id and external reference, each by one index lookup', async () => {
    expect(ids(await api().transactions.search({ q: txn(12_345) }))).toEqual([txn(12_345)]);
    expect(ids(await api().transactions.search({ q: txn(12_349) }))).toEqual([]); // another account's
    const e2e = `E12345678${String(202601010000 + 12_345).slice(0, 12)}${String(12_345).padStart(11, '0')}`;
    expect(ids(await api().transactions.search({ q: e2e }))).toEqual([txn(12_345)]);
    expect(ids(await api().transactions.search({ q: 'pedido-4242' }))).toEqual([txn(4242)]);
    expect(plan(one(txn(12_345)))).toMatch(/SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)/);
    expect(plan(one(e2e))).toMatch(/SEARCH transactions USING INDEX transactions_end_to_end_idx \(end_to_end=\?\)/);
    expect(plan(transactionSearchQuery(s.db.read, accountId, { limit: 20 }, { kind: 'reference', value: 'pedido-1' }))).toMatch(/SEARCH transactions USING INDEX transactions_external_ref_uq \(account_id=\? AND external_ref=\?\)/);
  });

  it('finds by customer e-mail, CPF punctuated or not, and accent-blind name prefix, from the customer indexes', async () => {
    const byMail = await api().transactions.search({ q: 'Cliente42@Example.com', limit: 100 });
    expect(ids(byMail)).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && i % 5000 === 42).reverse().map(txn));
    const byCpf = await api().transactions.search({ q: '529.982.247-25', limit: 100 });
    expect(ids(byCpf)).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && i % 1000 === 7).reverse().map(txn).slice(0, 100));
    expect(ids(await api().transactions.search({ q: CPF, limit: 100 }))).toEqual(ids(byCpf));
    expect(ids(await api().transactions.search({ q: 'zelia gon' }))).toEqual([txn(77_777)]);
    expect(ids(await api().transactions.search({ q: 'ZÉLIA' }))).toEqual([txn(77_777)]);
    expect(plan(one('cliente42@example.com'))).toMatch(/SEARCH customers USING INDEX customers_account_email_idx \(account_id=\? AND email_search=\?\)/);
    expect(plan(one(CPF))).toMatch(/SEARCH customers USING INDEX customers_account_document_idx \(account_id=\? AND document=\?\)/);
    const byName = plan(transactionSearchQuery(s.db.read, accountId, { limit: 20 }, { kind: 'name', value: 'zelia' }));
    expect(byName).toMatch(/SEARCH customers USING INDEX customers_account_name_idx \(account_id=\? AND name_search>\? AND name_search<\?\)/);
    for (const p of [plan(one('cliente42@example.com')), plan(one(CPF)), byName]) {
      expect(p).toMatch(/SEARCH transactions USING INDEX transactions_customer_idx \(customer_id=\?\)/);
      expect(p).not.toMatch(/SCAN/);
    }
  });

  it('finds by exact amount ("1.234,56", "R$ 1234,56"), walking the amount index in order from the cursor', async () => {
    const expected = Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && 1000 + (i % 5000) === 1234_56 % 100_00 + 0 && false);
    void expected;
    const matches = Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && 1000 + (i % 5000) === 4321).reverse();
    const first = await api().transactions.search({ q: 'R$ 43,21', limit: 5 });
    expect(ids(first)).toEqual(matches.slice(0, 5).map(txn));
    const second = await api().transactions.search({ q: '43,21', limit: 5, cursor: first.next_cursor });
    expect(ids(second)).toEqual(matches.slice(5, 10).map(txn));
    const cursor = encodeCursor({ createdAt: at(matches[4]), id: txn(matches[4]) });
    const p = plan(transactionSearchQuery(s.db.read, accountId, { limit: 5, cursor }, { kind: 'amount', value: 4321 }));
    expect(p).toMatch(/SEARCH transactions USING INDEX transactions_account_amount_created_idx \(account_id=\? AND amount=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    expect(p).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it('filters by status, method and Brasília days, each an ordered index walk; a deep page costs the same', async () => {
    // day 10 of January in Brasília: rows 12,960 … 14,399 (one a minute from midnight of the 1st)
    const dayRows = Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && i >= 9 * 1440 && i < 10 * 1440 && i % 3 === 1).reverse();
    const page = await api().transactions.search({ from: '2026-01-10', to: '2026-01-10', method: 'CARD', limit: 100 });
    expect(ids(page)).toEqual(dayRows.slice(0, 100).map(txn));
    const m = plan(transactionSearchQuery(s.db.read, accountId, { from: '2026-01-10', to: '2026-01-10', method: 'CARD', limit: 20 }, null));
    // either ordered index bounds the walk: the day's rows, or the method's rows of the day
    expect(m).toMatch(/SEARCH transactions USING INDEX transactions_account_(method_)?created_idx \(account_id=\? (AND method=\? )?AND created_at>\? AND created_at<\?\)/);
    const byMethod = plan(transactionSearchQuery(s.db.read, accountId, { method: 'INVOICE', limit: 20 }, null));
    expect(byMethod).toMatch(/SEARCH transactions USING INDEX transactions_account_method_created_idx \(account_id=\? AND method=\?\)/);
    const st = plan(transactionSearchQuery(s.db.read, accountId, { status: 'REFUSED', limit: 20, cursor: encodeCursor({ createdAt: at(60_003), id: txn(60_003) }) }, null));
    expect(st).toMatch(/SEARCH transactions USING INDEX transactions_account_status_created_idx \(account_id=\? AND status=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    for (const p of [m, st, byMethod]) expect(p).not.toMatch(/SCAN transactions|TEMP B-TREE/);
  });

  it('marks a charge with an open or lost dispute in the list', async () => {
    const page = await api().transactions.search({ limit: 30 });
    const mark = Object.fromEntries(page.items.map((t) => [t.id, t.dispute]));
    expect(mark[txn(99_990)]).toBe('OPEN');
    expect(mark[txn(99_980)]).toBe('LOST');
    expect(mark[txn(99_991)]).toBeNull();
  });

  it('refuses a malformed document or date on its own field, and reads nothing', async () => {
    for (const [input, path] of [[{ q: '529.982.247-26' }, 'q'], [{ q: '52998224726' }, 'q'], [{ from: '2026-02-30' }, 'from'], [{ to: '10/01/2026' }, 'to'], [{ from: '2026-02-02', to: '2026-02-01' }, 'to']] as const) {
      const e = await api().transactions.search(input).then(() => null, (err: { code: string; cause: { extra: { issues: { path: string }[] } } }) => err);
      expect(e?.code, JSON.stringify(input)).toBe('BAD_REQUEST');
      expect(e!.cause.extra.issues.map((i) => i.path)).toEqual([path]);
    }
  });
});

describe('withdrawals.search over 100,000 withdrawals', () => {
  const conds = (q: string) => withdrawalSearchConditions(accountId, q);

  it('finds by id, batch identifier, end-to-end id, reference, key and recipient CPF', async () => {
    expect(ids(await api().withdrawals.search({ q: wd(500) }))).toEqual([wd(500)]);
    expect(ids(await api().withdrawals.search({ q: `wdb_${String(500).padStart(20, '0')}` }))).toEqual([wd(500)]);
    const e2e = `E00000000${String(202601010000 + 500).slice(0, 12)}${String(500).padStart(11, '0')}`;
    expect(ids(await api().withdrawals.search({ q: e2e }))).toEqual([wd(500)]);
    expect(ids(await api().withdrawals.search({ q: 'saque-501' }))).toEqual([wd(501)]);
    expect(ids(await api().withdrawals.search({ q: 'fulano7@example.com', limit: 3 }))).toEqual([99_907, 99_807, 99_707].map(wd));
    expect(ids(await api().withdrawals.search({ q: '529.982.247-25', limit: 3 }))).toEqual([99_009, 98_009, 97_009].map(wd));
    expect(ids(await api().withdrawals.search({ q: '11.222.333/0001-81', limit: 2 }))).toEqual([99_998, 99_996].map(wd));

    expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, conds(`wdb_${String(500).padStart(20, '0')}`)[0]))).toMatch(/SEARCH withdrawal_batches USING INDEX sqlite_autoindex_withdrawal_batches_1 \(id=\?\)/);
    expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, conds(e2e)[0]))).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_end_to_end_idx \(end_to_end=\?\)/);
    const [byDoc, byKey] = conds(CPF);
    expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, byDoc))).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_document_created_idx \(account_id=\? AND details_document=\?\)/);
    expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, byKey))).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_key_created_idx \(account_id=\? AND key=\?\)/);
    for (const c of [...conds(CPF), ...conds('fulano7@example.com'), ...conds(e2e)]) {
      expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, c))).not.toMatch(/SCAN withdrawals|TEMP B-TREE/);
    }
  });

  it('finds by amount and accent-blind name, and filters by status and Brasília days', async () => {
    const matches = Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && 100 + (i % 1000) === 250).reverse();
    expect(ids(await api().withdrawals.search({ q: '2,50', limit: 4 }))).toEqual(matches.slice(0, 4).map(wd));
    const p = plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 4, status: 'PAID' }, conds('2,50').find(Boolean)!));
    expect(p).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_amount_created_idx \(account_id=\? AND amount=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
    expect(ids(await api().withdrawals.search({ q: 'zelia' }))).toEqual([wd(77_777)]);
    expect(plan(withdrawalSearchQuery(s.db.read, accountId, { limit: 20 }, conds('zelia').at(-1)!))).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_name_idx \(account_id=\? AND details_name_search>\? AND details_name_search<\?\)/);
    const day = await api().withdrawals.search({ from: '2026-01-10', to: '2026-01-10', status: 'ERROR', limit: 100 });
    expect(ids(day)).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => mine(i) && i >= 9 * 1440 && i < 10 * 1440 && i % 10 === 3).reverse().map(wd).slice(0, 100));
    const d = plan(withdrawalSearchQuery(s.db.read, accountId, { from: '2026-01-10', to: '2026-01-10', status: 'ERROR', limit: 20 }, null));
    expect(d).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_(status_)?created_idx \(account_id=\? (AND status=\? )?AND created_at>\? AND created_at<\?\)/);
    expect(d).not.toMatch(/SCAN|TEMP B-TREE/);
  });
});
