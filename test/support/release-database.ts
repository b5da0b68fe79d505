// A database "as a previous release made it", for the upgrade tests (test/e2e/upgrade.test.ts): built
// with that release's frozen migrations (test/fixtures/releases/<version>/) by drizzle's migrator, as the
// release itself ran it, and filled by plain SQL written against that release's schema, through its
// triggers. Nothing here loads the server's modules: the rows must not depend on the code under test.
import Database from 'better-sqlite3';
import { createCipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const RELEASES = new URL('../fixtures/releases/', import.meta.url).pathname;

/** Where a database lives: SQLite's file, or a PostgreSQL database. */
export type DatabaseTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

/** A connection of the test's own, beside (never inside) the server: `?` placeholders on both engines. */
export interface RawDatabase {
  run(q: string, params?: unknown[]): Promise<void>;
  rows<T = Record<string, unknown>>(q: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function openRaw(t: DatabaseTarget): RawDatabase {
  if (t.engine === 'sqlite') {
    const conn = new Database(t.path);
    conn.pragma('journal_mode = WAL');
    conn.pragma('foreign_keys = ON');
    return {
      run: async (q, p = []) => { conn.prepare(q).run(...(p as never[])); },
      rows: async <T>(q: string, p: unknown[] = []) => conn.prepare(q).all(...(p as never[])) as T[],
      close: async () => { conn.close(); },
    };
  }
  const sql = postgres(t.url, { max: 1, onnotice: () => {} });
  const numbered = (q: string) => { let i = 0; return q.replace(/\?/g, () => `$${++i}`); };
  return {
    run: async (q, p = []) => { await sql.unsafe(numbered(q), p as never[]); },
    rows: async <T>(q: string, p: unknown[] = []) => [...await sql.unsafe(numbered(q), p as never[])] as T[],
    close: () => sql.end({ timeout: 5 }),
  };
}

/** Applies a release's migrations (test/fixtures/releases/<version>/<engine>) the way that release did: drizzle's migrator. */
export async function migrateAsRelease(t: DatabaseTarget, version: string): Promise<void> {
  if (t.engine === 'sqlite') {
    const conn = new Database(t.path);
    try {
      conn.pragma('journal_mode = WAL');
      conn.pragma('foreign_keys = ON');
      migrateSqlite(drizzleSqlite(conn), { migrationsFolder: `${RELEASES}${version}/sqlite` });
    } finally {
      conn.close();
    }
    return;
  }
  const sql = postgres(t.url, { max: 1, onnotice: () => {} });
  try {
    await migratePg(drizzlePg(sql), { migrationsFolder: `${RELEASES}${version}/pg` });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** drizzle's journal of applied migrations: created_at is the journal's `when` of each. */
export async function appliedMigrations(raw: RawDatabase, t: DatabaseTarget): Promise<number[]> {
  const table = t.engine === 'sqlite' ? '__drizzle_migrations' : 'drizzle.__drizzle_migrations';
  return (await raw.rows<{ created_at: string | number }>(`SELECT created_at FROM ${table} ORDER BY created_at`)).map((r) => Number(r.created_at));
}

/** Every row of every application table (and drizzle's journal), in key order: to compare before and after. */
export async function snapshot(raw: RawDatabase, t: DatabaseTarget): Promise<Record<string, unknown[]>> {
  const tables = t.engine === 'sqlite'
    ? (await raw.rows<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)).map((r) => r.name)
    : (await raw.rows<{ name: string }>(`SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
        WHERE table_schema IN ('public', 'drizzle') AND table_type = 'BASE TABLE' ORDER BY 1`)).map((r) => r.name);
  const out: Record<string, unknown[]> = {};
  for (const name of tables) {
    const quoted = name.split('.').map((p) => `"${p}"`).join('.');
    // ordered by every column: a stable order whatever the table's key
    const cols = (await raw.rows<Record<string, unknown>>(`SELECT * FROM ${quoted} LIMIT 1`))[0];
    const order = cols ? Object.keys(cols).map((_, i) => String(i + 1)).join(', ') : '1';
    out[name.replace(/^public\./, '')] = cols ? await raw.rows(`SELECT * FROM ${quoted} ORDER BY ${order}`) : [];
  }
  return out;
}

/** The schema's objects by name (tables, indexes, triggers): to see that a refused start changed none. */
export async function schemaObjects(raw: RawDatabase, t: DatabaseTarget): Promise<string[]> {
  if (t.engine === 'sqlite') {
    return (await raw.rows<{ o: string }>(`SELECT type || ' ' || name AS o FROM sqlite_master ORDER BY 1`)).map((r) => r.o);
  }
  return (await raw.rows<{ o: string }>(`
    SELECT 'relation ' || n.nspname || '.' || c.relname AS o FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'drizzle')
    UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'function ' || proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
    ORDER BY 1`)).map((r) => r.o);
}

/** What the seed wrote, for the checks: ids, amounts and states as release 0.1.0 left them. */
export interface SeededRelease {
  account: { id: string; code: string; clientToken: string; apiKey: string; accessToken: string };
  balance: { available: number; blocked: number; withdrawalsInFlight: number };
  withdrawals: { id: string; status: string; amount: number; batches: { id: string; status: string; amount: number }[] }[];
  transactions: { id: string; method: string; status: string; amount: number }[];
  refunds: { id: string; transactionId: string; status: string; amount: number }[];
  dispute: { id: string; transactionId: string; amount: number };
  webhook: { id: string; url: string };
  deliveries: { id: string; status: string }[];
  idempotency: { key: string; withdrawalId: string };
}

// 0.1.0's formats, frozen here (not imported from the code under test): SHA-256 hex of a client or access
// token; scrypt$N$r$p$salt$key passwords; AES-256-GCM secrets as v1:iv:tag:ciphertext under SECRETS_KEY.
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
function encrypt(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
}
function password(plain: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(plain, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * One merchant's history as release 0.1.0 wrote it: a top-up; charges by Pix, card and invoice
 * (approved, pending, refused), a paid and a pending refund, an open dispute; withdrawals PAID, ERROR,
 * PARTIALLY_PAID and REQUESTED with their batches; every ledger entry each of those posted (through the
 * release's triggers, which check the running balances); events, a webhook and its deliveries (delivered,
 * failed, backing off) with attempts; a live idempotency key; a client token, an access token and a
 * dashboard user. Work still to do (the pending batch, refund, charge and delivery) is due a day after
 * `now`, so the new release's jobs leave it alone while the test looks.
 */
export async function seedRelease010(raw: RawDatabase, o: { now: Date; secretsKey: Buffer }): Promise<SeededRelease> {
  const base = o.now.getTime() - 3 * 24 * 3600_000;
  let minute = 0;
  const tick = () => new Date(base + (minute += 1) * 60_000).toISOString();
  const later = new Date(o.now.getTime() + 24 * 3600_000).toISOString();
  const id = (prefix: string, n: number) => `${prefix}_upgrade${String(n).padStart(13, '0')}`;
  const t0 = tick();

  const account = { id: 'acc_upgrade0000000000001', code: 'upgrade-merchant', clientToken: 'ct_release-0.1.0-client-token-aaaaaaaaaaaa', apiKey: 'pk_release010apikey00000000', accessToken: 'at_release-0.1.0-access-token-bbbbbbbbbbbb' };
  await raw.run(`INSERT INTO accounts (id, name, code, token_hash, api_key, postback_secret_enc, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [account.id, 'Loja Upgrade Ltda', account.code, sha256(account.clientToken), account.apiKey, encrypt(`whsec_${randomBytes(32).toString('base64')}`, o.secretsKey), t0, t0]);
  await raw.run(`INSERT INTO access_tokens (id, account_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
    ['tok_upgrade0000000000001', account.id, sha256(account.accessToken), t0, later]);
  await raw.run(`INSERT INTO dashboard_users (id, account_id, email, password_hash, locale, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ['usr_upgrade0000000000001', account.id, 'financeiro@loja-upgrade.example', password('release 0.1.0 password'), 'pt-BR', t0]);

  // the books: the merchant's four, and the system books as the first use of each made them
  const books = new Map<string, { id: string; balance: number }>();
  let bookN = 0;
  for (const kind of ['available', 'blocked', 'withdrawals_in_flight', 'refunds_in_flight']) {
    const b = { id: id('lbk', ++bookN), balance: 0 };
    books.set(kind, b);
    await raw.run(`INSERT INTO ledger_books (id, account_id, kind, allow_negative, balance, updated_at) VALUES (?, ?, ?, 0, 0, ?)`, [b.id, account.id, kind, t0]);
  }
  for (const kind of ['sandbox_funding', 'pix_in', 'card_in', 'invoice_in', 'pix_out', 'refunds_out', 'chargebacks']) {
    const b = { id: id('lbk', ++bookN), balance: 0 };
    books.set(kind, b);
    await raw.run(`INSERT INTO ledger_books (id, account_id, kind, allow_negative, balance, updated_at) VALUES (?, NULL, ?, 1, 0, ?)`, [b.id, kind, t0]);
  }
  let entryN = 0;
  /** One entry, debit first, each line stating the balance it leaves (the trigger checks it). */
  const post = async (kind: string, resourceId: string | null, from: string, to: string, amount: number, description: string) => {
    const at = tick();
    const entry = id('lje', ++entryN);
    await raw.run(`INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at) VALUES (?, ?, ?, ?, ?, ?)`, [entry, account.id, kind, resourceId, description, at]);
    for (const [book, delta] of [[from, -amount], [to, amount]] as const) {
      const b = books.get(book)!;
      b.balance += delta;
      await raw.run(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES (?, ?, ?, ?, ?)`, [entry, b.id, delta, b.balance, at]);
    }
  };
  let eventN = 0;
  const events: { id: string; resourceId: string }[] = [];
  const event = async (type: string, resourceId: string, payload: unknown) => {
    const e = { id: id('evt', ++eventN), resourceId };
    const at = tick();
    await raw.run(`INSERT INTO events (id, account_id, type, category, resource_id, payload, created_at, dispatched_at, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [e.id, account.id, type, type.split('.')[0], resourceId, JSON.stringify(payload), at, at, `req-${eventN}`]);
    events.push(e);
    return e;
  };

  await post('sandbox_topup', null, 'sandbox_funding', 'available', 1_000_000, 'sandbox top-up');

  // charges
  const customer = id('cus', 1);
  await raw.run(`INSERT INTO customers (id, account_id, name, email, phone, document, address, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [customer, account.id, 'Maria Conceição da Silva', 'maria@example.com', '+5511999990000', '52998224725', JSON.stringify({ street: 'Rua das Flores', number: '10', city: 'São Paulo', state: 'SP', zipCode: '01001000' }), tick()]);
  const transactions: SeededRelease['transactions'] = [];
  const charge = async (n: number, method: 'PIX' | 'CARD' | 'INVOICE', status: 'APPROVED' | 'PENDING' | 'REFUSED', amount: number) => {
    const txn = id('txn', n);
    const at = tick();
    const items = JSON.stringify([{ unitPrice: amount, quantity: 1, title: `Pedido ${n}`, tangible: false }]);
    await raw.run(`INSERT INTO transactions (id, account_id, identifier, method, status, amount, currency, customer_id, items, qrcode, invoice_id, invoice_due_date, invoice_digitable_line,
        card_brand, card_last4, card_holder_name, installments, end_to_end, postback, external_ref, metadata, refused_reason, expires_at, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      txn, account.id, `pedido-${n}`, method, status, amount, customer, items,
      method === 'PIX' ? `00020126580014br.gov.bcb.pix0136upgrade-${n}5204000053039865802BR6304ABCD` : null,
      method === 'INVOICE' ? id('inv', n) : null, method === 'INVOICE' ? '2026-12-31' : null, method === 'INVOICE' ? '34191790010104351004791020150008291070026000' : null,
      method === 'CARD' ? 'visa' : null, method === 'CARD' ? '4242' : null, method === 'CARD' ? 'MARIA C SILVA' : null, method === 'CARD' ? 1 : null,
      method === 'PIX' && status === 'APPROVED' ? `E12345678202611270000${String(n).padStart(11, '0')}` : null,
      null, `ref-${n}`, JSON.stringify({ order: n }), status === 'REFUSED' ? 'card declined by the issuer' : null,
      status === 'PENDING' ? later : null, at, at,
    ]);
    if (status === 'APPROVED') await post('transaction_credit', txn, { PIX: 'pix_in', CARD: 'card_in', INVOICE: 'invoice_in' }[method], 'available', amount, `${method} transaction approved`);
    await event(status === 'APPROVED' ? 'transaction.approved' : status === 'REFUSED' ? 'transaction.refused' : 'transaction.created', txn, { id: txn, status, amount, method });
    transactions.push({ id: txn, method, status, amount });
    return txn;
  };
  const pix = await charge(1, 'PIX', 'APPROVED', 50_000);
  const card = await charge(2, 'CARD', 'APPROVED', 30_000);
  const invoice = await charge(3, 'INVOICE', 'APPROVED', 20_000);
  await charge(4, 'PIX', 'PENDING', 10_000);
  await charge(5, 'CARD', 'REFUSED', 7_000);

  // refunds of the invoice: one paid, one still pending (the trigger moves refunded_amount)
  const refunds: SeededRelease['refunds'] = [];
  const refund = async (n: number, txn: string, amount: number, paid: boolean) => {
    const rf = id('rf', n);
    const at = tick();
    await raw.run(`INSERT INTO refunds (id, account_id, transaction_id, amount, reason, status, due_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
      [rf, account.id, txn, amount, 'customer asked', paid ? at : later, at, at]);
    await post('refund_requested', rf, 'available', 'refunds_in_flight', amount, `refund of ${txn}`);
    if (paid) {
      const done = tick();
      await raw.run(`UPDATE refunds SET status = 'PAID', end_to_end = ?, updated_at = ? WHERE id = ?`, [`D12345678202611270000${String(n).padStart(11, '0')}`, done, rf]);
      await post('refund_paid', rf, 'refunds_in_flight', 'refunds_out', amount, 'refund paid');
    }
    await event(paid ? 'transaction.refund_paid' : 'transaction.refunded', txn, { id: txn, refund: rf });
    refunds.push({ id: rf, transactionId: txn, status: paid ? 'PAID' : 'PENDING', amount });
  };
  await refund(1, invoice, 2_000, true);
  await refund(2, invoice, 5_000, false);

  // an open dispute on the card charge: its whole amount held
  const dispute = { id: id('dsp', 1), transactionId: card, amount: 30_000 };
  const disputedAt = tick();
  await raw.run(`INSERT INTO disputes (id, account_id, transaction_id, status, amount, created_at, updated_at) VALUES (?, ?, ?, 'OPEN', ?, ?, ?)`,
    [dispute.id, account.id, card, dispute.amount, disputedAt, disputedAt]);
  await post('dispute_hold', dispute.id, 'available', 'blocked', dispute.amount, `dispute on ${card}`);
  await event('dispute.opened', dispute.id, { id: dispute.id, status: 'OPEN', amount: dispute.amount });

  // withdrawals in every state, with their batches and entries
  const withdrawals: SeededRelease['withdrawals'] = [];
  let batchN = 0;
  const withdrawal = async (n: number, batches: ('PAID' | 'ERROR' | 'PENDING')[], amounts: number[]) => {
    const wd = id('wd', n);
    const amount = amounts.reduce((s, a) => s + a, 0);
    const status = 'REQUESTED'; // as created; the batches settle below
    const at = tick();
    await post('withdrawal_requested', wd, 'available', 'withdrawals_in_flight', amount, 'Pix withdrawal requested');
    await raw.run(`INSERT INTO withdrawals (id, account_id, status, amount, key, key_type, description, details_name, details_document, postback, external_ref, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [wd, account.id, status, amount, n % 2 ? 'fornecedor@example.com' : '11222333000181', n % 2 ? 'EMAIL' : 'CNPJ', `saque ${n}`, n % 2 ? 'João Araújo' : 'Fornecedora Ltda', n % 2 ? '52998224725' : '11222333000181', null, `saque-${n}`, at, at]);
    const rows: SeededRelease['withdrawals'][number]['batches'] = [];
    for (const [seq, b] of batches.entries()) {
      const wdb = id('wdb', ++batchN);
      await raw.run(`INSERT INTO withdrawal_batches (id, withdrawal_id, account_id, seq, amount, status, due_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
        [wdb, wd, account.id, seq, amounts[seq], b === 'PENDING' ? later : at, at, at]);
      rows.push({ id: wdb, status: b, amount: amounts[seq] });
    }
    await event('withdraw.requested', wd, { id: wd, status: 'REQUESTED', amount });
    for (const r of rows) {
      if (r.status === 'PENDING') continue;
      const done = tick();
      if (r.status === 'PAID') {
        await raw.run(`UPDATE withdrawal_batches SET status = 'PAID', end_to_end = ?, receiver_name = ?, receiver_bank = ?, receiver_bank_ispb = ?, updated_at = ? WHERE id = ?`,
          [`E00000000202611270000${String(batchN).padStart(11, '0')}`, 'Fornecedora Ltda', 'Banco Exemplo', '00000000', done, r.id]);
        await post('withdrawal_paid', r.id, 'withdrawals_in_flight', 'pix_out', r.amount, 'Pix batch paid');
      } else {
        await raw.run(`UPDATE withdrawal_batches SET status = 'ERROR', failure_code = 'REJECTED', failure_reason = 'the receiving institution rejected the transfer', updated_at = ? WHERE id = ?`, [done, r.id]);
        await post('withdrawal_failed', r.id, 'withdrawals_in_flight', 'available', r.amount, 'Pix batch failed: amount returned');
      }
    }
    const paid = batches.filter((b) => b === 'PAID').length;
    const failed = batches.filter((b) => b === 'ERROR').length;
    const final = paid === batches.length ? 'PAID' : failed === batches.length ? 'ERROR' : paid > 0 && paid + failed === batches.length ? 'PARTIALLY_PAID' : 'REQUESTED';
    if (final !== 'REQUESTED') {
      await raw.run(`UPDATE withdrawals SET status = ?, updated_at = ? WHERE id = ?`, [final, tick(), wd]);
      await event(final === 'ERROR' ? 'withdraw.error' : final === 'PAID' ? 'withdraw.paid' : 'withdraw.partially_paid', wd, { id: wd, status: final, amount });
    }
    withdrawals.push({ id: wd, status: final, amount, batches: rows });
    return wd;
  };
  const paidWithdrawal = await withdrawal(1, ['PAID'], [10_000]);
  await withdrawal(2, ['ERROR'], [8_000]);
  await withdrawal(3, ['PAID', 'ERROR'], [15_000, 10_000]);
  await withdrawal(4, ['PENDING'], [12_000]);

  // the answer of the paid withdrawal's request, kept a day like any idempotency key
  const idem = { key: 'saque-1-tentativa-1', withdrawalId: paidWithdrawal };
  const first = withdrawals[0];
  await raw.run(`INSERT INTO idempotency_keys (account_id, operation, key, fingerprint, result, created_at, expires_at) VALUES (?, 'withdrawal.create', ?, ?, ?, ?, ?)`, [
    account.id, idem.key, sha256('a request of release 0.1.0'),
    JSON.stringify({ withdrawal: { id: first.id, amount: first.amount, created_at: t0 }, batches: first.batches.map((b) => ({ identifier: b.id, amount: b.amount })) }),
    new Date(o.now.getTime() - 3600_000).toISOString(), later,
  ]);

  // a webhook and what it was sent: delivered, failed for good, and one backing off until tomorrow
  const webhook = { id: id('wh', 1), url: 'https://hooks.loja-upgrade.example/pix' };
  await raw.run(`INSERT INTO webhooks (id, account_id, url, secret_enc, events, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)`,
    [webhook.id, account.id, webhook.url, encrypt(`whsec_${randomBytes(32).toString('base64')}`, o.secretsKey), JSON.stringify(['transaction', 'withdraw', 'dispute']), t0, t0]);
  const deliveries: SeededRelease['deliveries'] = [];
  for (const [n, status] of (['DELIVERED', 'FAILED', 'PENDING'] as const).entries()) {
    const e = events[n];
    const dlv = id('dlv', n + 1);
    const at = tick();
    await raw.run(`INSERT INTO deliveries (id, event_id, event_seq, account_id, webhook_id, target, url, resource_id, status, attempts, next_attempt_at, last_status_code, last_error, manual, created_at, updated_at)
      VALUES (?, ?, (SELECT seq FROM events WHERE id = ?), ?, ?, 'webhook', ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`, [
      dlv, e.id, e.id, account.id, webhook.id, webhook.url, e.resourceId, status, status === 'FAILED' ? 8 : 1,
      status === 'PENDING' ? later : null, status === 'DELIVERED' ? 200 : 503, status === 'DELIVERED' ? null : 'HTTP 503', at, at,
    ]);
    await raw.run(`INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error) VALUES (?, ?, ?, ?, ?, ?)`,
      [dlv, at, status === 'DELIVERED' ? 200 : 503, 42, status === 'DELIVERED' ? 'ok' : 'unavailable', status === 'DELIVERED' ? null : 'HTTP 503']);
    deliveries.push({ id: dlv, status });
  }

  return {
    account,
    balance: { available: books.get('available')!.balance, blocked: books.get('blocked')!.balance, withdrawalsInFlight: books.get('withdrawals_in_flight')!.balance },
    withdrawals, transactions, refunds, dispute, webhook, deliveries, idempotency: idem,
  };
}
