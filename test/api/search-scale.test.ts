// @engines sqlite: seeds with SQLite SQL and asserts SQLite's query plans
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputes } from '../../db/schema';
import type { Stores } from '../../db';
import { encodeCursor } from '../../server/domain/cursor';
import { readSearch } from '../../server/domain/search';
import { transactionSearchPage } from '../../server/domain/transactions/search';
import { withdrawalSearchConditions, withdrawalSearchQuery } from '../../server/domain/withdrawals/search';
import {
  at, batchE2e, chargeAmount, chargeE2e, chargeMethod, CNPJ, CPF, FIRST_NAMES, mine, RARE, SCALE_ROWS as N, SURNAMES,
  seedScaleDatabase, txn, wd, wdb, withdrawalAmount, withdrawalKey, type ScaleDatabase,
} from '../support/scale-seed';
import { callerFor } from '../support/services';

/**
 * The dashboard's search at scale: a million charges and a million withdrawals (another account's rows
 * mixed in, test/support/scale-seed.ts). Every reading of the search box, every filter and every page
 * is an index search of the account's rows in (created_at, id) order from the cursor, with no scan of
 * a big table and no sort of the matches; the query plans say so.
 */
let db: ScaleDatabase;
/** The statement of one page of the charges' search (the store's, for the page the domain asks). */
const transactionSearchQuery = (on: Stores, ...a: Parameters<typeof transactionSearchPage>) => {
  const page = transactionSearchPage(...a);
  return page && on.transactions.searchPageQuery(page);
};
const rows = (pred: (i: number) => boolean) => { const out: number[] = []; for (let i = N - 1; i >= 0; i--) if (mine(i) && pred(i)) out.push(i); return out; }; // newest first
const ids = (page: { items: { id: string }[] }) => page.items.map((x) => x.id);
const api = () => callerFor(db.s, db.accountId);
const first = (i: number) => i % 8;
const surname = (i: number) => Math.floor(i / 8) % 8;
const noScanNoSort = (p: string) => expect(p).not.toMatch(/SCAN (transactions|customers|withdrawals|withdrawal_batches|name_words)|TEMP B-TREE/);

beforeAll(async () => {
  db = await seedScaleDatabase();
  await db.s.db.write(async (tx) => {
    await tx.handle.insert(disputes).values([
      { id: 'dsp_00000000000000000001', accountId: db.accountId, transactionId: txn(N - 10), status: 'OPEN', amount: 100, createdAt: at(N), updatedAt: at(N) },
      { id: 'dsp_00000000000000000002', accountId: db.accountId, transactionId: txn(N - 20), status: 'LOST', amount: 100, createdAt: at(N), updatedAt: at(N) },
    ]);
  });
}, 900_000); // the first run seeds (minutes); later runs copy the seeded file (test/support/scale-seed.ts)
afterAll(async () => { await db?.cleanup(); });

describe(`transactions.search over ${N.toLocaleString('en')} charges`, () => {
  const one = (q: string) => transactionSearchQuery(db.s.db.read, db.accountId, { q, limit: 20 }, readSearch(q)[0]);

  it('finds a charge by id, end-to-end id and external reference, each by one index lookup', async () => {
    expect(ids(await api().transactions.search({ q: txn(12_345) }))).toEqual([txn(12_345)]);
    expect(ids(await api().transactions.search({ q: txn(12_349) }))).toEqual([]); // another account's
    expect(ids(await api().transactions.search({ q: chargeE2e(12_345) }))).toEqual([txn(12_345)]);
    expect(ids(await api().transactions.search({ q: 'pedido-4242' }))).toEqual([txn(4242)]);
    expect(db.plan(one(txn(12_345)))).toMatch(/SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)/);
    expect(db.plan(one(chargeE2e(12_345)))).toMatch(/SEARCH transactions USING INDEX transactions_end_to_end_idx \(end_to_end=\?\)/);
    const ref = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { limit: 20 }, { kind: 'reference', value: 'pedido-1' }));
    expect(ref).toMatch(/SEARCH transactions USING INDEX transactions_external_ref_uq \(account_id=\? AND external_ref=\?\)/);
    for (const p of [db.plan(one(txn(12_345))), db.plan(one(chargeE2e(12_345))), ref]) noScanNoSort(p);
  });

  it('finds by customer e-mail and CPF punctuated or not, from the customer indexes', async () => {
    const byMail = await api().transactions.search({ q: 'Cliente42@Example.com', limit: 100 });
    expect(ids(byMail)).toEqual(rows((i) => i % 5000 === 42).slice(0, 100).map(txn));
    const byCpf = await api().transactions.search({ q: '529.982.247-25', limit: 100 });
    expect(ids(byCpf)).toEqual(rows((i) => i % 1000 === 7).slice(0, 100).map(txn));
    expect(ids(await api().transactions.search({ q: CPF, limit: 100 }))).toEqual(ids(byCpf));
    const mail = db.plan(one('cliente42@example.com'));
    const cpf = db.plan(one(CPF));
    expect(mail).toMatch(/SEARCH customers USING INDEX customers_account_email_idx \(account_id=\? AND email_search=\?\)/);
    expect(cpf).toMatch(/SEARCH customers USING INDEX customers_account_document_idx \(account_id=\? AND document=\?\)/);
    for (const p of [mail, cpf]) {
      expect(p).toMatch(/SEARCH transactions USING INDEX transactions_customer_idx \(customer_id=\?\)/);
      expect(p).not.toMatch(/SCAN/);
    }
  });

  it('finds a word of the name anywhere in it, accent- and case-blind, walking name_words newest first', async () => {
    // "silva" is the last word of "Maria da Silva": an eighth of the names
    const silva = rows((i) => i !== RARE.row && SURNAMES[surname(i)] === 'da Silva');
    const p1 = await api().transactions.search({ q: 'silva', limit: 20 });
    expect(ids(p1)).toEqual(silva.slice(0, 20).map(txn));
    const p2 = await api().transactions.search({ q: 'SILVA', limit: 20, cursor: p1.next_cursor });
    expect(ids(p2)).toEqual(silva.slice(20, 40).map(txn));
    // "jose" finds José; two words each begin a word of the same name, in any order
    const jose = rows((i) => i !== RARE.row && FIRST_NAMES[first(i)] === 'José');
    expect(ids(await api().transactions.search({ q: 'jose', limit: 5 }))).toEqual(jose.slice(0, 5).map(txn));
    const joseSilva = jose.filter((i) => SURNAMES[surname(i)] === 'da Silva');
    expect(ids(await api().transactions.search({ q: 'Sil José', limit: 5 }))).toEqual(joseSilva.slice(0, 5).map(txn));
    expect(ids(await api().transactions.search({ q: 'zelia gon' }))).toEqual([txn(RARE.row)]);
    expect(ids(await api().transactions.search({ q: 'ZÉLIA' }))).toEqual([txn(RARE.row)]);
    expect(ids(await api().transactions.search({ q: 'gonçalves', limit: 3 }))).toEqual(
      rows((i) => i === RARE.row || SURNAMES[surname(i)] === 'Gonçalves Dias').slice(0, 3).map(txn));

    const words = (q: string, f: { cursor?: string; status?: 'REFUSED'; from?: string; to?: string } = {}) =>
      db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { limit: 20, ...f }, readSearch(q).find((r) => r.kind === 'words')!));
    const cursor = encodeCursor({ createdAt: at(silva[500]), id: txn(silva[500]) });
    for (const p of [words('silva'), words('sil jose'), words('silva', { cursor, status: 'REFUSED' }), words('silva', { from: '2026-01-10', to: '2026-02-10' })]) {
      expect(p).toMatch(/SEARCH name_words USING COVERING INDEX name_words_search_idx \(account_id=\? AND subject=\? AND stem=\?/);
      expect(p).toMatch(/SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)/);
      expect(p).toMatch(/SEARCH customers USING INDEX sqlite_autoindex_customers_1 \(id=\?\)/);
      noScanNoSort(p);
    }
    // the cursor and the date range bound the walk itself
    expect(words('silva', { cursor })).toMatch(/stem=\? AND \(created_at,owner_id\)<\(\?,\?\)\)/);
    expect(words('silva', { from: '2026-01-10', to: '2026-02-10' })).toMatch(/stem=\? AND created_at>\? AND created_at<\?\)/);
  });

  it('needs three letters of a word to search names: "jo" would match a quarter of them, in no useful order', async () => {
    expect(readSearch('jo')).toEqual([{ kind: 'reference', value: 'jo' }]);
    expect(ids(await api().transactions.search({ q: 'Jo' }))).toEqual([]);
    expect(ids(await api().withdrawals.search({ q: 'Jo' }))).toEqual([]);
    expect(ids(await api().transactions.search({ q: 'Jos', limit: 3 }))).toEqual(rows((i) => i !== RARE.row && FIRST_NAMES[first(i)] === 'José').slice(0, 3).map(txn));
  });

  it('finds by exact amount ("R$ 43,21", "43,21"), walking the amount index in order from the cursor', async () => {
    const matches = rows((i) => chargeAmount(i) === 4321);
    const page1 = await api().transactions.search({ q: 'R$ 43,21', limit: 5 });
    expect(ids(page1)).toEqual(matches.slice(0, 5).map(txn));
    const page2 = await api().transactions.search({ q: '43,21', limit: 5, cursor: page1.next_cursor });
    expect(ids(page2)).toEqual(matches.slice(5, 10).map(txn));
    const cursor = encodeCursor({ createdAt: at(matches[4]), id: txn(matches[4]) });
    const p = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { limit: 5, cursor }, { kind: 'amount', value: 4321 }));
    expect(p).toMatch(/SEARCH transactions USING INDEX transactions_account_amount_created_idx \(account_id=\? AND amount=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    noScanNoSort(p);
  });

  it('filters by status, method and Brasília days, each an ordered index walk; a deep page costs the same', async () => {
    // day 10 of January in Brasília: rows 12,960 … 14,399 (one a minute from midnight of the 1st)
    const day = rows((i) => i >= 9 * 1440 && i < 10 * 1440 && chargeMethod(i) === 'CARD');
    const page = await api().transactions.search({ from: '2026-01-10', to: '2026-01-10', method: 'CARD', limit: 100 });
    expect(ids(page)).toEqual(day.slice(0, 100).map(txn));
    const m = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { from: '2026-01-10', to: '2026-01-10', method: 'CARD', limit: 20 }, null));
    // either ordered index bounds the walk: the day's rows, or the method's rows of the day
    expect(m).toMatch(/SEARCH transactions USING INDEX transactions_account_(method_)?created_idx \(account_id=\? (AND method=\? )?AND created_at>\? AND created_at<\?\)/);
    const byMethod = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { method: 'INVOICE', limit: 20 }, null));
    expect(byMethod).toMatch(/SEARCH transactions USING INDEX transactions_account_method_created_idx \(account_id=\? AND method=\?\)/);
    const deep = rows((i) => i % 10 === 3);
    const cursor = encodeCursor({ createdAt: at(deep[60_000]), id: txn(deep[60_000]) });
    expect(ids(await api().transactions.search({ status: 'REFUSED', limit: 3, cursor }))).toEqual(deep.slice(60_001, 60_004).map(txn));
    const st = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { status: 'REFUSED', limit: 20, cursor }, null));
    expect(st).toMatch(/SEARCH transactions USING INDEX transactions_account_status_created_idx \(account_id=\? AND status=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    const all = db.plan(transactionSearchQuery(db.s.db.read, db.accountId, { limit: 20, cursor }, null));
    expect(all).toMatch(/SEARCH transactions USING INDEX transactions_account_created_idx \(account_id=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    for (const p of [m, st, byMethod, all]) noScanNoSort(p);
  });

  it('marks a charge with an open or lost dispute in the list', async () => {
    const page = await api().transactions.search({ limit: 30 });
    const mark = Object.fromEntries(page.items.map((t) => [t.id, t.dispute]));
    expect(mark[txn(N - 10)]).toBe('OPEN');
    expect(mark[txn(N - 20)]).toBe('LOST');
    expect(mark[txn(N - 11)]).toBeNull();
  });

  it('refuses a malformed document or date on its own field, and reads nothing', async () => {
    for (const [input, path] of [[{ q: '529.982.247-26' }, 'q'], [{ q: '52998224726' }, 'q'], [{ from: '2026-02-30' }, 'from'], [{ to: '10/01/2026' }, 'to'], [{ from: '2026-02-02', to: '2026-02-01' }, 'to']] as const) {
      const e = await api().transactions.search(input).then(() => null, (err: { code: string; cause: { extra: { issues: { path: string }[] } } }) => err);
      expect(e?.code, JSON.stringify(input)).toBe('BAD_REQUEST');
      expect(e!.cause.extra.issues.map((i) => i.path)).toEqual([path]);
    }
  });
});

describe(`withdrawals.search over ${N.toLocaleString('en')} withdrawals`, () => {
  const conds = (q: string) => withdrawalSearchConditions(db.accountId, q);
  const plan = (q: string, f: Parameters<typeof withdrawalSearchQuery>[2] = { limit: 20 }, k = 0) => db.plan(withdrawalSearchQuery(db.s.db.read, db.accountId, f, conds(q)[k]));

  it('finds by id, batch identifier, end-to-end id, reference, key and recipient CPF', async () => {
    expect(ids(await api().withdrawals.search({ q: wd(500) }))).toEqual([wd(500)]);
    expect(ids(await api().withdrawals.search({ q: wdb(500) }))).toEqual([wd(500)]);
    expect(ids(await api().withdrawals.search({ q: batchE2e(500) }))).toEqual([wd(500)]);
    expect(ids(await api().withdrawals.search({ q: 'saque-501' }))).toEqual([wd(501)]);
    expect(ids(await api().withdrawals.search({ q: 'fulano7@example.com', limit: 3 }))).toEqual(rows((i) => withdrawalKey(i) === 'fulano7@example.com').slice(0, 3).map(wd));
    expect(ids(await api().withdrawals.search({ q: '529.982.247-25', limit: 3 }))).toEqual(rows((i) => i % 1000 === 9).slice(0, 3).map(wd));
    expect(ids(await api().withdrawals.search({ q: '11.222.333/0001-81', limit: 2 }))).toEqual(rows((i) => withdrawalKey(i) === CNPJ).slice(0, 2).map(wd));

    expect(plan(wd(500))).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
    expect(plan(wdb(500))).toMatch(/SEARCH withdrawal_batches USING INDEX sqlite_autoindex_withdrawal_batches_1 \(id=\?\)/);
    expect(plan(batchE2e(500))).toMatch(/SEARCH withdrawal_batches USING INDEX withdrawal_batches_end_to_end_idx \(end_to_end=\?\)/);
    expect(plan('saque-501', { limit: 20 }, 0)).toMatch(/SEARCH withdrawals USING INDEX withdrawals_external_ref_uq \(account_id=\? AND external_ref=\?\)/);
    expect(plan(CPF, { limit: 20 }, 0)).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_document_created_idx \(account_id=\? AND details_document=\?\)/);
    expect(plan(CPF, { limit: 20 }, 1)).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_key_created_idx \(account_id=\? AND key=\?\)/);
    for (const q of [wd(500), wdb(500), batchE2e(500), CPF, 'fulano7@example.com', 'saque-501']) {
      for (let k = 0; k < conds(q).length; k++) noScanNoSort(plan(q, { limit: 20 }, k));
    }
  });

  it('finds by exact amount and by any word of the recipient\'s name, each an ordered walk', async () => {
    const matches = rows((i) => withdrawalAmount(i) === 250);
    expect(ids(await api().withdrawals.search({ q: '2,50', limit: 4 }))).toEqual(matches.slice(0, 4).map(wd));
    const amount = conds('2,50').findIndex((c) => c !== null);
    const p = plan('2,50', { limit: 4, status: 'PAID' }, amount);
    expect(p).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_amount_created_idx \(account_id=\? AND amount=\?\)/);
    noScanNoSort(p);

    expect(ids(await api().withdrawals.search({ q: 'zelia' }))).toEqual([wd(RARE.row)]);
    const silva = rows((i) => i !== RARE.row && SURNAMES[surname(i)] === 'da Silva');
    const page1 = await api().withdrawals.search({ q: 'Silva', limit: 10 });
    expect(ids(page1)).toEqual(silva.slice(0, 10).map(wd));
    expect(ids(await api().withdrawals.search({ q: 'silva', limit: 10, cursor: page1.next_cursor }))).toEqual(silva.slice(10, 20).map(wd));
    const cursor = encodeCursor({ createdAt: at(silva[9]), id: wd(silva[9]) });
    for (const w of [plan('silva', { limit: 20 }, 1), plan('ana lima', { limit: 20, cursor, status: 'ERROR' }, 1)]) {
      expect(w).toMatch(/SEARCH name_words USING COVERING INDEX name_words_search_idx \(account_id=\? AND subject=\? AND stem=\?/);
      expect(w).toMatch(/SEARCH withdrawals USING INDEX sqlite_autoindex_withdrawals_1 \(id=\?\)/);
      noScanNoSort(w);
    }
  });

  it('filters by status and Brasília days, and pages deep, from the ordered indexes', async () => {
    const day = await api().withdrawals.search({ from: '2026-01-10', to: '2026-01-10', status: 'ERROR', limit: 100 });
    expect(ids(day)).toEqual(rows((i) => i >= 9 * 1440 && i < 10 * 1440 && i % 10 === 3).slice(0, 100).map(wd));
    const d = db.plan(withdrawalSearchQuery(db.s.db.read, db.accountId, { from: '2026-01-10', to: '2026-01-10', status: 'ERROR', limit: 20 }, null));
    expect(d).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_(status_)?created_idx \(account_id=\? (AND status=\? )?AND created_at>\? AND created_at<\?\)/);
    const all = rows(() => true);
    const cursor = encodeCursor({ createdAt: at(all[800_000 % all.length]), id: wd(all[800_000 % all.length]) });
    const deep = db.plan(withdrawalSearchQuery(db.s.db.read, db.accountId, { limit: 20, cursor }, null));
    expect(deep).toMatch(/SEARCH withdrawals USING INDEX withdrawals_account_created_idx \(account_id=\? AND \(created_at,id\)<\(\?,\?\)\)/);
    for (const p of [d, deep]) noScanNoSort(p);
  });
});
