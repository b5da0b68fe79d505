import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type postgres from 'postgres';
import { get, isFailure, send, type Answer, type Op } from './chaos-load';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface Check { name: string; ok: boolean; detail?: string }

/** What the merchant should see, from what the client was answered (after every op got a definite answer). */
function expectedAvailable(initial: number, ops: Op[]): number {
  let balance = initial;
  for (const op of ops) {
    if (!op.definite || op.definite.status >= 300) continue;
    if (op.kind === 'withdraw' || op.kind === 'refund') balance -= op.amount;
    if (op.kind === 'pay' && op.definite.json?.status === 'APPROVED') balance += op.amount;
  }
  return balance;
}

const idOf = (op: Op, a: Answer): string | null => {
  if (op.kind === 'withdraw') return a.json?.data?.[0]?.identifier ?? null; // a batch of it (the answer names batches)
  if (op.kind === 'charge' || op.kind === 'pay') return a.json?.id ?? null;
  if (op.kind === 'refund') return a.json?.refunds?.[0]?.id ?? null; // one refund per charge in this campaign
  return null;
};

/** Waits until every batch and refund of the account has left PENDING (the rail answered and the outcome is stored). */
export async function settled(sql: postgres.Sql, accountId: string, deadline: number): Promise<boolean> {
  for (;;) {
    try {
      const [r] = await sql`SELECT (SELECT count(*) FROM withdrawal_batches WHERE account_id = ${accountId} AND status = 'PENDING')
        + (SELECT count(*) FROM refunds WHERE account_id = ${accountId} AND status = 'PENDING') AS pending`;
      if (Number(r.pending) === 0) return true;
    } catch { /* the database may still be coming back */ }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm run audit` (scripts/audit.ts) against the campaign's PostgreSQL: its exit code and output. */
function audit(url: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/audit.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c) => { out += c.toString(); });
    child.stderr!.on('data', (c) => { out += c.toString(); });
    child.once('exit', (code) => resolve({ code, out }));
  });
}

/** The sandbox rail's journal (server/domain/rails/sandbox-journal.ts): what it decided per batch and refund, and how often it was asked again. */
export function readJournal(dir: string) {
  const decided = new Map<string, { kind: string; outcome: { status: string; endToEndId?: string | null } }>();
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((n) => /^(batch|refund)-.+\.json$/.test(n))) {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { kind: string; id: string; outcome: { status: string; endToEndId?: string | null } };
      decided.set(r.id, r);
    }
  }
  const calls = existsSync(join(dir, 'calls.log')) ? readFileSync(join(dir, 'calls.log'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')) : [];
  return { decided, calls };
}

/**
 * The round's checks, once every op has a definite answer and the account's batches and refunds settled:
 * acknowledged writes stored exactly once (through the API and in the database), nothing half-applied
 * (each row with its ledger entries, the balance the answers add up to), a retry with the same key answers
 * the same bytes, the ledger audit clean, and the rail paid nothing twice and nothing the database does
 * not say it paid. Returns the checks and how many rail calls were repeats (answered from the journal).
 */
export async function roundChecks(o: {
  sql: postgres.Sql; url: string; base: string; token: string; accountId: string; initial: number; ops: Op[]; unresolved: Op[]; journalDir: string;
}): Promise<{ checks: Check[]; resent: number }> {
  const { sql, accountId, ops } = o;
  const checks: Check[] = [];
  const check = (name: string, problems: string[]) => checks.push({ name, ok: problems.length === 0, detail: problems.slice(0, 3).join('; ') + (problems.length > 3 ? ` (+${problems.length - 3} more)` : '') });

  // every write got a definite answer, and an acknowledged one kept its answer (same id) through the retries
  const problems: string[] = o.unresolved.map((op) => `${op.kind} ${op.key ?? op.path}: no definite answer after retries (${op.attempts.slice(-1).map((a) => (isFailure(a) ? a.error : a.status)).join()})`);
  for (const op of ops) {
    if (op.definite && op.definite.status >= 300) problems.push(`${op.kind} ${op.key ?? op.path}: refused ${op.definite.status} (request ${op.definite.requestId}) ${op.definite.text.slice(0, 100)}`);
    if (op.acked && op.definite && idOf(op, op.acked) !== idOf(op, op.definite)) problems.push(`${op.kind} ${op.key}: acknowledged as ${idOf(op, op.acked)} but settled as ${idOf(op, op.definite)}`);
  }
  check('answered', problems);

  // a retry with the same key answers the acknowledged bytes again (the stored answer, replayed)
  const replays: string[] = [];
  const acked = ops.filter((x) => x.key && x.acked);
  // a few at a time: many replays of one merchant at once would only queue behind each other
  for (let i = 0; i < acked.length; i += 8) {
    await Promise.all(acked.slice(i, i + 8).map(async (op) => {
      const again = await send(o.base, o.token, { ...op, attempts: [], acked: null, definite: null }, 15_000);
      if (isFailure(again)) replays.push(`${op.kind} ${op.key}: replay failed (${again.error})`);
      else if (again.text !== op.acked!.text || !again.replayed) replays.push(`${op.kind} ${op.key}: replay answered ${again.status} replayed=${again.replayed}`);
    }));
  }
  check('replay', replays);

  // stored exactly once: each settled write is found through the API and is one row in the database, and the
  // account holds no row the client was not answered for
  const once: string[] = [];
  const settledOps = ops.filter((op) => op.definite && op.definite.status < 300);
  const withdrawalsDone = settledOps.filter((op) => op.kind === 'withdraw');
  const chargesDone = settledOps.filter((op) => op.kind === 'charge');
  const refundsDone = settledOps.filter((op) => op.kind === 'refund');
  const rows = {
    withdrawals: await sql<{ id: string; amount: number; external_ref: string | null; batch_ids: string[] }[]>`
      SELECT w.id, w.amount::int AS amount, w.external_ref, array_agg(b.id) AS batch_ids
      FROM withdrawals w JOIN withdrawal_batches b ON b.withdrawal_id = w.id WHERE w.account_id = ${accountId} GROUP BY w.id`,
    transactions: await sql<{ id: string; status: string }[]>`SELECT id, status FROM transactions WHERE account_id = ${accountId}`,
    refunds: await sql<{ id: string; transaction_id: string }[]>`SELECT id, transaction_id FROM refunds WHERE account_id = ${accountId}`,
  };
  const byBatch = new Map<string, string>();
  for (const w of rows.withdrawals) for (const b of w.batch_ids) byBatch.set(b, w.id);
  const seenWithdrawals = new Set<string>();
  for (const op of withdrawalsDone) {
    const batch = idOf(op, op.definite!);
    const wd = batch ? byBatch.get(batch) : undefined;
    if (!wd) { once.push(`withdrawal of batch ${batch}: not in the database`); continue; }
    if (seenWithdrawals.has(wd)) once.push(`withdrawal ${wd}: answered to two requests`);
    seenWithdrawals.add(wd);
    const viaApi = await get(o.base, o.token, `/withdraw?identifier=${encodeURIComponent(batch!)}`);
    if (viaApi.status !== 200 || viaApi.json?.id !== wd || viaApi.json?.amount !== op.amount) once.push(`GET /withdraw?identifier=${batch}: ${viaApi.status} ${JSON.stringify(viaApi.json).slice(0, 100)}`);
    if (op.externalRef && rows.withdrawals.filter((w) => w.external_ref === op.externalRef).length !== 1) once.push(`external_ref ${op.externalRef}: not exactly one row`);
  }
  if (rows.withdrawals.length !== withdrawalsDone.length) once.push(`${rows.withdrawals.length} withdrawals stored, ${withdrawalsDone.length} answered 2xx`);
  const txIds = new Set(rows.transactions.map((t) => t.id));
  const chargeIds = new Set(chargesDone.map((op) => idOf(op, op.definite!)));
  for (const id of chargeIds) {
    if (!id || !txIds.has(id)) { once.push(`charge ${id}: not in the database`); continue; }
    const viaApi = await get(o.base, o.token, `/transaction?id=${encodeURIComponent(id)}`);
    if (viaApi.status !== 200 || viaApi.json?.id !== id) once.push(`GET /transaction?id=${id}: ${viaApi.status}`);
  }
  if (rows.transactions.length !== chargesDone.length || chargeIds.size !== chargesDone.length) once.push(`${rows.transactions.length} charges stored, ${chargesDone.length} answered 2xx (${chargeIds.size} distinct)`);
  const refundIds = new Set(rows.refunds.map((r) => r.id));
  for (const op of refundsDone) if (!refundIds.has(idOf(op, op.definite!) ?? '')) once.push(`refund ${idOf(op, op.definite!)}: not in the database`);
  if (rows.refunds.length !== refundsDone.length) once.push(`${rows.refunds.length} refunds stored, ${refundsDone.length} answered 2xx`);
  check('stored once', once);

  // nothing half-applied: every row has exactly the ledger entries its state calls for, no entry points at
  // nothing, and the balance is what the answers add up to (API and book)
  const whole: string[] = [];
  const entries = await sql<{ kind: string; resource_id: string | null; n: number }[]>`
    SELECT kind, resource_id, count(*)::int AS n FROM ledger_entries WHERE account_id = ${accountId} GROUP BY kind, resource_id`;
  const count = (kind: string, id: string) => entries.find((e) => e.kind === kind && e.resource_id === id)?.n ?? 0;
  for (const w of rows.withdrawals) if (count('withdrawal_requested', w.id) !== 1) whole.push(`withdrawal ${w.id}: ${count('withdrawal_requested', w.id)} withdrawal_requested entries`);
  const batches = await sql<{ id: string; status: string; amount: number; end_to_end: string | null; withdrawal_id: string }[]>`
    SELECT id, status, amount::int AS amount, end_to_end, withdrawal_id FROM withdrawal_batches WHERE account_id = ${accountId}`;
  for (const w of rows.withdrawals) {
    const sum = batches.filter((b) => b.withdrawal_id === w.id).reduce((a, b) => a + b.amount, 0);
    if (sum !== w.amount) whole.push(`withdrawal ${w.id}: batches sum to ${sum}, not ${w.amount}`);
  }
  for (const b of batches) {
    const want = b.status === 'PAID' ? ['withdrawal_paid', 1] : b.status === 'FAILED' ? ['withdrawal_failed', 1] : null;
    if (want && count(want[0] as string, b.id) !== want[1]) whole.push(`batch ${b.id} ${b.status}: ${count(want[0] as string, b.id)} ${want[0]} entries`);
  }
  for (const t of rows.transactions) {
    const n = count('transaction_credit', t.id);
    if (n !== (t.status === 'APPROVED' ? 1 : 0)) whole.push(`charge ${t.id} ${t.status}: ${n} credits`);
  }
  const refundRows = await sql<{ id: string; status: string; end_to_end: string | null }[]>`SELECT id, status, end_to_end FROM refunds WHERE account_id = ${accountId}`;
  for (const r of refundRows) {
    if (count('refund_requested', r.id) !== 1) whole.push(`refund ${r.id}: ${count('refund_requested', r.id)} refund_requested entries`);
    if (r.status === 'PAID' && count('refund_paid', r.id) !== 1) whole.push(`refund ${r.id} PAID: ${count('refund_paid', r.id)} refund_paid entries`);
  }
  const known = new Set([...rows.withdrawals.map((w) => w.id), ...batches.map((b) => b.id), ...txIds, ...refundIds]);
  for (const e of entries) if (e.kind !== 'sandbox_topup' && (!e.resource_id || !known.has(e.resource_id))) whole.push(`ledger entry ${e.kind} on ${e.resource_id}: no such row of the account`);
  const want = expectedAvailable(o.initial, ops);
  const balance = await get(o.base, o.token, '/balance');
  if (balance.json?.available !== want) whole.push(`GET /balance available ${balance.json?.available}, the answers add up to ${want}`);
  const [book] = await sql<{ balance: number }[]>`SELECT balance::bigint AS balance FROM ledger_books WHERE account_id = ${accountId} AND kind = 'available'`;
  if (Number(book?.balance) !== want) whole.push(`available book ${book?.balance}, the answers add up to ${want}`);
  check('whole', whole);

  const audited = await audit(o.url);
  check('audit', audited.code === 0 ? [] : [audited.out.split('\n').filter((l) => /BREAK|error/i.test(l)).join(' | ') || `exit ${audited.code}`]);

  // the rail: every batch and refund the database says PAID was paid by the rail once, with the id stored; the
  // rail paid nothing the database does not say it paid (money out twice: paid, yet FAILED or returned)
  const rail: string[] = [];
  const { decided, calls } = readJournal(o.journalDir);
  const ours = new Set([...batches.map((b) => b.id), ...refundRows.map((r) => r.id)]);
  for (const b of batches) {
    const d = decided.get(b.id);
    if (b.status === 'PAID' && (d?.outcome.status !== 'PAID' || d.outcome.endToEndId !== b.end_to_end)) rail.push(`batch ${b.id} PAID (${b.end_to_end}) but the rail says ${JSON.stringify(d?.outcome ?? null)}`);
    if (b.status !== 'PAID' && d?.outcome.status === 'PAID') rail.push(`batch ${b.id} is ${b.status} but the rail paid it`);
  }
  for (const r of refundRows) {
    const d = decided.get(r.id);
    if (r.status === 'PAID' && (d?.outcome.status !== 'PAID' || (d.outcome.endToEndId ?? null) !== r.end_to_end)) rail.push(`refund ${r.id} PAID but the rail says ${JSON.stringify(d?.outcome ?? null)}`);
    if (r.status !== 'PAID' && d?.outcome.status === 'PAID') rail.push(`refund ${r.id} is ${r.status} but the rail paid it`);
  }
  const firsts = new Map<string, number>();
  for (const [, id, how] of calls) if (how === 'first' && ours.has(id)) firsts.set(id, (firsts.get(id) ?? 0) + 1);
  for (const [id, n] of firsts) if (n > 1) rail.push(`${id}: decided ${n} times by the rail`);
  check('rail once', rail);
  const resent = calls.filter(([, id, how]) => how === 'again' && ours.has(id)).length;
  return { checks, resent };
}
