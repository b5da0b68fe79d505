import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../db/dialect';
import { rawExec } from '../../db/query';
import { ManualClock } from '../../server/clock';
import { csvStream } from '../../contract/csv';
import { WALK_CAP, WORD_WALK_CAP } from '../../server/domain/search';
import { callerFor, makeAccount, makeTestServices, type TestServices } from '../support/services';

/**
 * A name search must not walk a stem to its end (nor any search its index). 100 k charges and 100 k
 * withdrawals all named "Maria Silva Santos" (so each of its stems has 100 k rows), seeded by one
 * INSERT … SELECT per table; a query whose words each match every row but which as a whole matches
 * none used to read all of them (478 ms and 813 ms on SQLite). Now each page reads at most
 * WORD_WALK_CAP rows of the rarest word's stem, proven below by matches that lie deeper than that:
 * the search stops and says so instead of finding them.
 */
const N = Number(process.env.SEARCH_BOUNDED_ROWS ?? 100_000);
const SPARSE = 1_500; // every 1,500th charge is REFUSED and every 1,500th withdrawal ERROR: fewer than one per capped page
let s: TestServices;
let mine: string;
let other: string;

const BASE = Date.parse('2026-01-01T03:00:00.000Z');
const at = (i: number) => new Date(BASE + i * 60_000).toISOString();
const id = (prefix: string, i: number) => `${prefix}_${String(i).padStart(20, '0')}`;

/** The seed's SQL on this engine: row i of N, i minutes after BASE; only row 0 is a CARD charge / PARTIALLY_PAID withdrawal. */
function seedSql(account: string) {
  const rows = onPostgres ? `FROM generate_series(0, ${N - 1}) AS n(i)` : 'FROM n';
  const head = onPostgres ? '' : `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${N - 1}) `;
  const pad = (prefix: string) => (onPostgres ? `'${prefix}_' || lpad(i::text, 20, '0')` : `'${prefix}_' || printf('%020d', i)`);
  const time = onPostgres ? `to_timestamp(${BASE / 1000} + i * 60)` : `strftime('%Y-%m-%dT%H:%M:%fZ', ${BASE / 1000} + i * 60, 'unixepoch')`;
  return [
    `INSERT INTO customers (id, account_id, name, email, document, created_at) ${head}
      SELECT ${pad('cus')}, '${account}', 'Maria Silva Santos', 'maria@example.com', '52998224725', ${time} ${rows}`,
    `INSERT INTO transactions (id, account_id, identifier, method, status, amount, customer_id, items, external_ref, created_at, updated_at) ${head}
      SELECT ${pad('txn')}, '${account}', ${pad('idf')}, CASE WHEN i = 0 THEN 'CARD' ELSE 'PIX' END,
        CASE WHEN i % ${SPARSE} = 7 THEN 'REFUSED' ELSE 'APPROVED' END, 1000, ${pad('cus')}, '[]', ${pad('ref')}, ${time}, ${time} ${rows}`,
    `INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, details_name, details_document, external_ref, created_at, updated_at) ${head}
      SELECT ${pad('wd')}, '${account}', CASE WHEN i = 0 THEN 'PARTIALLY_PAID' WHEN i % ${SPARSE} = 7 THEN 'ERROR' ELSE 'PAID' END, 100,
        'maria@example.com', 'EMAIL', 'Maria Silva Santos', '52998224725', ${pad('saque')}, ${time}, ${time} ${rows}`,
  ];
}

beforeAll(async () => {
  s = await makeTestServices({ clock: new ManualClock(new Date('2026-06-01T12:00:00.000Z')) });
  mine = (await makeAccount(s)).account_id;
  other = (await makeAccount(s, { balance: 10_000 })).account_id;
  await s.db.write(async (tx) => { for (const q of seedSql(mine)) await rawExec(tx, sql.raw(q)); });
  if (onPostgres) await rawExec(s.db.read, sql`ANALYZE`);
}, 300_000);
afterAll(async () => { await s?.cleanup(); });

const api = () => callerFor(s, mine);
const ids = (page: { items: { id: string }[] }) => page.items.map((x) => x.id);
/** The median of a few timed runs after a warm-up, in this process (one slow run on a shared machine is not the search). */
async function medianMs(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2];
}
/** The 400 on `q` a search too broad for one page answers, or null when it answered. */
const refusal = (p: Promise<unknown>) => p.then(() => null, (e: { code: string; cause: { extra: { issues: { path: string; message: string }[] } } }) => ({ code: e.code, issues: e.cause.extra.issues }));
const refine = { code: 'BAD_REQUEST', issues: [{ path: 'q', message: expect.stringMatching(/too many names to look through: add a word, a status or dates/) }] };

/** The dashboard's CSV export as its route runs it (app/_lib/csv-export.ts): pages of 100 through the search procedure, until no cursor. */
async function exportCsv(search: (cursor: string | null) => Promise<{ items: { id: string }[]; next_cursor: string | null }>): Promise<string[]> {
  const stream = csvStream(['id'], async (cursor) => {
    const r = await search(cursor);
    return { rows: r.items.map((x) => [x.id]), nextCursor: r.next_cursor };
  });
  const text = await new Response(stream).text();
  // every text cell is quoted since the exports were made safe for spreadsheets; ids hold no quote
  return text.replace(/^\ufeff/, '').trim().split('\r\n').slice(1).map((line) => line.replace(/^"(.*)"$/, '$1'));
}

describe(`word search over ${N.toLocaleString('en')} charges and withdrawals of one name`, () => {
  it('answers a word no name holds at once, from the samples, without walking the stem', async () => {
    expect(ids(await api().transactions.search({ q: 'maria zzzz' }))).toEqual([]);
    expect(ids(await api().withdrawals.search({ q: 'maria zzzz' }))).toEqual([]);
    expect(await exportCsv((cursor) => api().transactions.search({ q: 'maria zzzz', cursor, limit: 100 }))).toEqual([]);
    expect(await exportCsv((cursor) => api().withdrawals.search({ q: 'maria zzzz', cursor, limit: 100 }))).toEqual([]);
    // a plain one-word search still pages newest first
    expect(ids(await api().transactions.search({ q: 'maria', limit: 3 }))).toEqual([N - 1, N - 2, N - 3].map((i) => id('txn', i)));
    expect(ids(await api().withdrawals.search({ q: 'santos mar', limit: 3 }))).toEqual([N - 1, N - 2, N - 3].map((i) => id('wd', i)));
  });

  it('stops a walk that finds nothing at its cap and asks to narrow the search (400 on q), for searches and exports', async () => {
    for (const q of ['santos silva mariaz', 'maria silvaz']) {
      expect(await refusal(api().transactions.search({ q }))).toEqual(refine);
      expect(await refusal(api().withdrawals.search({ q }))).toEqual(refine);
      // the export's first page is refused, so its route answers this 400 before streaming anything
      expect(await refusal(exportCsv((cursor) => api().transactions.search({ q, cursor, limit: 100 })))).toEqual(refine);
      expect(await refusal(exportCsv((cursor) => api().withdrawals.search({ q, cursor, limit: 100 })))).toEqual(refine);
    }
  });

  it('reads at most WORD_WALK_CAP rows a page: a match deeper than that is not reached until the search is narrowed', async () => {
    // row 0 is the only CARD charge and the only PARTIALLY_PAID withdrawal, N rows down the stem
    expect(N).toBeGreaterThan(2 * WORD_WALK_CAP);
    expect(await refusal(api().transactions.search({ q: 'maria', method: 'CARD' }))).toEqual(refine);
    expect(await refusal(api().withdrawals.search({ q: 'maria', status: 'PARTIALLY_PAID' }))).toEqual(refine);
    // narrowed by dates (row 0 is 2026-01-01 in Brasília), the walk starts near it and finds it
    expect(ids(await api().transactions.search({ q: 'maria', method: 'CARD', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('txn', 0)]);
    expect(ids(await api().withdrawals.search({ q: 'maria', status: 'PARTIALLY_PAID', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('wd', 0)]);
  });

  it('a page that stops at the cap with some matches keeps them and goes on from there: nothing skipped, nothing twice', async () => {
    const refused = Array.from({ length: N }, (_, i) => N - 1 - i).filter((i) => i % SPARSE === 7);
    const first = await api().transactions.search({ q: 'maria', status: 'REFUSED', limit: 20 });
    expect(first.items.length).toBeGreaterThan(0);
    expect(first.items.length).toBeLessThan(20);
    expect(first.next_cursor).not.toBeNull();
    const all = await exportCsv((cursor) => api().transactions.search({ q: 'silva maria', status: 'REFUSED', cursor, limit: 100 }));
    expect(all).toEqual(refused.map((i) => id('txn', i)));
    const errors = await exportCsv((cursor) => api().withdrawals.search({ q: 'maria', status: 'ERROR', cursor, limit: 100 }));
    expect(errors).toEqual(refused.map((i) => id('wd', i)));
  });

  it('answers the slow queries of the issue in ≤ 50 ms each, searches and exports', async () => {
    const timed: Record<string, number> = {};
    for (const q of ['maria zzzz', 'santos silva mariaz']) {
      timed[`transactions ${q}`] = await medianMs(() => refusal(api().transactions.search({ q })));
      timed[`withdrawals ${q}`] = await medianMs(() => refusal(api().withdrawals.search({ q })));
      timed[`transactions export ${q}`] = await medianMs(() => refusal(exportCsv((cursor) => api().transactions.search({ q, cursor, limit: 100 }))));
      timed[`withdrawals export ${q}`] = await medianMs(() => refusal(exportCsv((cursor) => api().withdrawals.search({ q, cursor, limit: 100 }))));
    }
    if (process.env.SHOW_TIMES) console.log(timed);
    for (const [what, ms] of Object.entries(timed)) expect(ms, what).toBeLessThanOrEqual(50);
  });

  it("does not slow another account's requests while four loops search", async () => {
    let running = true;
    const loop = async (q: string, kind: 'transactions' | 'withdrawals') => {
      for (let k = 0; running && k < 200; k++) await refusal(kind === 'transactions' ? api().transactions.search({ q }) : api().withdrawals.search({ q }));
    };
    const loops = [loop('santos silva mariaz', 'transactions'), loop('maria zzzz', 'transactions'), loop('santos silva mariaz', 'withdrawals'), loop('maria silvaz', 'withdrawals')];
    const latencies: number[] = [];
    const theirs = callerFor(s, other);
    for (let k = 0; k < 40; k++) {
      const t0 = performance.now();
      expect((await theirs.account.balance()).available).toBe(10_000);
      latencies.push(performance.now() - t0);
    }
    running = false;
    await Promise.all(loops);
    latencies.sort((a, b) => a - b);
    if (process.env.SHOW_TIMES) console.log({ p50: latencies[20], max: latencies[39] });
    // in this one process (every search's SQLite work on this thread), before the cap: p50 11.9 s; after: tens of ms
    expect(latencies[20]).toBeLessThanOrEqual(150);
  });
});

describe(`other walks over the same ${N.toLocaleString('en')} rows: an amount, a Pix key, a document or a status beside a filter their index does not serve`, () => {
  /** The 400 a walk that found nothing within WALK_CAP rows answers, on `q` or on the filter named. */
  const refineOn = (path: string) => ({ code: 'BAD_REQUEST', issues: [{ path, message: expect.stringMatching(/^refine your search/) }] });

  it('stops at the cap when the other filter matches none of the 100 k rows, for searches and exports (400 refine your search)', async () => {
    // every charge is R$ 10,00 and every withdrawal R$ 1,00; no charge is PENDING, no withdrawal REQUESTED
    expect(await refusal(api().transactions.search({ q: '10,00', status: 'PENDING' }))).toEqual(refineOn('q'));
    expect(await refusal(api().transactions.search({ status: 'APPROVED', method: 'CARD' }))).toEqual(refineOn('method'));
    expect(await refusal(exportCsv((cursor) => api().transactions.search({ q: '10,00', status: 'PENDING', cursor, limit: 100 })))).toEqual(refineOn('q'));
    // every charge's customer has the same e-mail and CPF: the customer index is read down to its floor only
    for (const q of ['maria@example.com', '529.982.247-25']) {
      expect(await refusal(api().transactions.search({ q, status: 'PENDING' }))).toEqual(refineOn('q'));
      expect(await refusal(exportCsv((cursor) => api().transactions.search({ q, status: 'PENDING', cursor, limit: 100 })))).toEqual(refineOn('q'));
    }
    for (const q of ['1,00', 'maria@example.com', '529.982.247-25']) {
      expect(await refusal(api().withdrawals.search({ q, status: 'REQUESTED' }))).toEqual(refineOn('q'));
      expect(await refusal(exportCsv((cursor) => api().withdrawals.search({ q, status: 'REQUESTED', cursor, limit: 100 })))).toEqual(refineOn('q'));
    }
  });

  it('reads at most WALK_CAP rows a page: the one CARD charge and PARTIALLY_PAID withdrawal, N rows down, are found only once dates narrow it', async () => {
    expect(N).toBeGreaterThan(2 * WALK_CAP);
    expect(await refusal(api().transactions.search({ q: '10,00', method: 'CARD' }))).toEqual(refineOn('q'));
    expect(await refusal(api().withdrawals.search({ q: '1,00', status: 'PARTIALLY_PAID' }))).toEqual(refineOn('q'));
    expect(ids(await api().transactions.search({ q: '10,00', method: 'CARD', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('txn', 0)]);
    expect(ids(await api().transactions.search({ status: 'APPROVED', method: 'CARD', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('txn', 0)]);
    expect(await refusal(api().transactions.search({ q: 'maria@example.com', method: 'CARD' }))).toEqual(refineOn('q'));
    expect(ids(await api().transactions.search({ q: 'maria@example.com', method: 'CARD', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('txn', 0)]);
    expect(ids(await api().transactions.search({ q: '529.982.247-25', method: 'CARD', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('txn', 0)]);
    // with no other filter a page is simply the newest of them
    expect(ids(await api().transactions.search({ q: 'maria@example.com', limit: 3 }))).toEqual([N - 1, N - 2, N - 3].map((i) => id('txn', i)));
    expect(ids(await api().withdrawals.search({ q: 'maria@example.com', status: 'PARTIALLY_PAID', from: '2026-01-01', to: '2026-01-01' }))).toEqual([id('wd', 0)]);
  });

  it('pages sparse matches a capped page at a time: nothing skipped, nothing twice', async () => {
    const sparse = Array.from({ length: N }, (_, i) => N - 1 - i).filter((i) => i % SPARSE === 7);
    const first = await api().transactions.search({ q: '10,00', status: 'REFUSED', limit: 20 });
    expect(first.items.length).toBeGreaterThan(0);
    expect(first.items.length).toBeLessThan(20);
    expect(first.next_cursor).not.toBeNull();
    expect(await exportCsv((cursor) => api().transactions.search({ q: '10,00', status: 'REFUSED', cursor, limit: 100 }))).toEqual(sparse.map((i) => id('txn', i)));
    expect(await exportCsv((cursor) => api().transactions.search({ q: 'maria@example.com', status: 'REFUSED', cursor, limit: 100 }))).toEqual(sparse.map((i) => id('txn', i)));
    expect(await exportCsv((cursor) => api().withdrawals.search({ q: '52998224725', status: 'ERROR', cursor, limit: 100 }))).toEqual(sparse.map((i) => id('wd', i)));
  });

  it('answers each in ≤ 50 ms', async () => {
    const timed: Record<string, number> = {
      'transactions 10,00 PENDING': await medianMs(() => refusal(api().transactions.search({ q: '10,00', status: 'PENDING' }))),
      'transactions APPROVED CARD': await medianMs(() => refusal(api().transactions.search({ status: 'APPROVED', method: 'CARD' }))),
      'transactions e-mail': await medianMs(() => api().transactions.search({ q: 'maria@example.com' })),
      'transactions e-mail PENDING': await medianMs(() => refusal(api().transactions.search({ q: 'maria@example.com', status: 'PENDING' }))),
      'transactions document export PENDING': await medianMs(() => refusal(exportCsv((cursor) => api().transactions.search({ q: '529.982.247-25', status: 'PENDING', cursor, limit: 100 })))),
      'withdrawals key REQUESTED': await medianMs(() => refusal(api().withdrawals.search({ q: 'maria@example.com', status: 'REQUESTED' }))),
      'withdrawals export 1,00 REQUESTED': await medianMs(() => refusal(exportCsv((cursor) => api().withdrawals.search({ q: '1,00', status: 'REQUESTED', cursor, limit: 100 })))),
    };
    if (process.env.SHOW_TIMES) console.log(timed);
    for (const [what, ms] of Object.entries(timed)) expect(ms, what).toBeLessThanOrEqual(50);
  });
});
