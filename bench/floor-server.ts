/**
 * The floor: what a withdrawal costs with nothing of our framework in the way. A bare node:http server
 * with raw better-sqlite3 (no drizzle on the request path, no tRPC, no zod, no logging) over a database
 * made by the product's own migrations and pragmas (db/client.ts: WAL, synchronous=FULL, foreign_keys,
 * busy_timeout), doing per request exactly the SQL our server runs (the statements' text is drizzle's, as
 * logged from a real request):
 *
 * - POST: the access-token lookup on the read connection (SHA-256 of the bearer, as server/domain/secrets.ts
 *   hashes it), then one write job on a group-commit writer like db/writer.ts (BEGIN IMMEDIATE, a SAVEPOINT
 *   per job, one COMMIT per group of requests that arrived meanwhile, the answer after COMMIT): the ledger
 *   transfer of server/domain/ledger.ts (the entry, the two book lookups, the two lines whose triggers move
 *   the balances and refuse an overdraft), the withdrawal (its trigger fills the name words), its batches,
 *   and the `withdraw.requested` event with the withdrawal's view as payload.
 * - GET /withdraw?identifier=: the token lookup and GET /withdraw's one statement (server/domain/withdrawals
 *   view.ts: the batch, its withdrawal and that withdrawal's batches), answered as that view.
 *
 * It does NOT settle: our server also settles every withdrawal about 2 s later (a rail call, the batch and
 * withdrawal updates, a second ledger entry, an event), and marks each group's events dispatched after its
 * COMMIT; none of that is here, so the floor is generous. With an `Idempotency-Key` header (the bench sends
 * one per request) it also does the key's SQL of server/domain/idempotency.ts: the lookup on the read
 * connection, then in the job the slot's row and the stored answer. No validation beyond JSON.parse, no
 * request fingerprint, no rate limit.
 *
 * Seeded at start with the product's own domain functions: one account with a large available balance and
 * an access token. Usage: tsx bench/floor-server.ts <dbPath>
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { systemClock } from '../server/clock';

// the floor is SQLite's (the product's default engine), whatever this process's environment says
process.env.DATABASE_URL = '';
const { openDatabase } = await import('../db');
const { openConnection } = await import('../db/client');
const { createAccount, issueAccessToken } = await import('../server/domain/accounts');
const { hashSecret } = await import('../server/domain/secrets');
const { newId } = await import('../server/domain/ids');
const { splitIntoBatches } = await import('../server/domain/withdrawals/rules');
const { withdrawalWithBatchesQuery } = await import('../db/stores/withdrawals');
const { drizzleOver } = await import('../db/client');

const [path = '/tmp/floor.db'] = process.argv.slice(2);
const MAX_BATCH_CENTS = 1_500_000; // PIX_MAX_BATCH_CENTS's default
const SETTLEMENT_DELAY_MS = 2000; // the bench's SANDBOX_SETTLEMENT_DELAY_MS: only the batches' due_at

// the seed, with the product's own code: migrations, an account with its books and a top-up, a token
const seeding = openDatabase(path);
const services = { db: seeding, masterKey: randomBytes(32), clock: systemClock };
const creds = await createAccount(services, { name: 'Floor', balance: 100_000_000_000 });
const issued = await issueAccessToken(services, creds.code, creds.token);
if (!issued) throw new Error('the seeded account was refused a token');
await seeding.close();

const writeConn = openConnection(path);
writeConn.pragma('temp_store = MEMORY'); // as db/writer.ts: the jobs' savepoint journal in memory
const readConn = openConnection(path, { readonly: true });

// server/domain/accounts.ts accountForAccessToken (on the read connection)
const tokenByHash = readConn.prepare(`select "account_id", "token_hash" from "access_tokens" where ("access_tokens"."token_hash" = ? and "access_tokens"."revoked_at" is null and "access_tokens"."expires_at" > ?)`);
// server/domain/withdrawals/view.ts withdrawalLookups (on the read connection)
// the very statement GET /withdraw?identifier=wdb_… runs (view.ts): the batch, its withdrawal and the withdrawal's batches in one
const withdrawalByBatch = readConn.prepare(withdrawalWithBatchesQuery(drizzleOver(readConn), 'batch').toSQL().sql).raw(true);

// the idempotency key's statements, as drizzle writes them (server/domain/idempotency.ts)
const { idempotencyKeys } = await import('../db/schema');
const { and, eq, sql } = await import('drizzle-orm');
const slotWhere = () => and(eq(idempotencyKeys.accountId, sql.placeholder('a')), eq(idempotencyKeys.operation, sql.placeholder('o')), eq(idempotencyKeys.key, sql.placeholder('k')));
const readDrizzle = drizzleOver(readConn);
const keyLookup = readConn.prepare(readDrizzle.select({ expiresAt: idempotencyKeys.expiresAt }).from(idempotencyKeys).where(slotWhere()).toSQL().sql);
const idempotencyFind = readDrizzle.select().from(idempotencyKeys).where(slotWhere()).toSQL().sql;
const idempotencyInsert = readDrizzle.insert(idempotencyKeys).values({ accountId: '', operation: 'withdrawal.create', key: '', fingerprint: '', result: '', createdAt: '', expiresAt: '' }).toSQL().sql;

// the write job's statements (server/domain/ledger.ts, withdrawals/create.ts, events.ts; on the writer's connection)
const w = {
  savepoint: writeConn.prepare('SAVEPOINT job'),
  release: writeConn.prepare('RELEASE job'),
  rollback: writeConn.prepare('ROLLBACK TO job'),
  insertEntry: writeConn.prepare(`insert into "ledger_entries" ("id", "account_id", "kind", "resource_id", "description", "created_at") values (?, ?, ?, ?, ?, ?)`),
  merchantBook: writeConn.prepare(`select "id" from "ledger_books" where ("ledger_books"."account_id" = ? and "ledger_books"."kind" = ?)`).pluck(),
  insertLine: writeConn.prepare(`insert into "ledger_lines" ("id", "entry_id", "book_id", "amount", "balance_after", "created_at") values (null, ?, ?, ?, (SELECT "ledger_books"."balance" FROM "ledger_books" WHERE "ledger_books"."id" = ?) + ?, max(?, (SELECT "ledger_books"."updated_at" FROM "ledger_books" WHERE "ledger_books"."id" = ?)))`),
  insertWithdrawal: writeConn.prepare(`insert into "withdrawals" ("id", "account_id", "status", "amount", "key", "key_type", "description", "details_name", "details_document", "postback", "external_ref", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
  insertBatch: writeConn.prepare(`insert into "withdrawal_batches" ("id", "withdrawal_id", "account_id", "seq", "amount", "status", "due_at", "claimed_by", "end_to_end", "receiver_name", "receiver_bank", "receiver_bank_ispb", "failure_code", "failure_reason", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, null, null, ?, ?)`),
  findKey: writeConn.prepare(idempotencyFind),
  insertKey: writeConn.prepare(idempotencyInsert),
  insertEvent: writeConn.prepare(`insert into "events" ("seq", "id", "account_id", "type", "category", "resource_id", "payload", "created_at", "dispatched_at", "request_id") values (null, ?, ?, ?, ?, ?, ?, ?, null, ?) returning "seq"`).pluck(),
};

interface WithdrawalBody { amount: number; key: string; key_type: string; description?: string | null; details: { name: string; document: string }; postback?: string | null; external_ref?: string | null }

function receipt(id: string, amount: number) {
  return { status: 'PENDING', endtoend: null, identifier: id, amount, receiver_name: null, receiver_bank: null, receiver_bank_ispb: null, failure_code: null, failure_reason: null };
}

/** One withdrawal's write job: the SQL of createWithdrawal for a request without an idempotency key. */
function createWithdrawal(accountId: string, body: WithdrawalBody, requestId: string, key: string | null) {
  const at = new Date();
  if (key !== null && w.findKey.get(accountId, 'withdrawal.create', key)) throw new Error('replays are not part of the floor');
  const iso = at.toISOString();
  const id = newId('withdrawal');
  // ledger.ts transfer → postEntry: the entry, the books (debit first), the lines (triggers apply them)
  const entryId = newId('ledgerEntry');
  w.insertEntry.run(entryId, accountId, 'withdrawal_requested', id, 'Pix withdrawal requested', iso);
  const from = w.merchantBook.get(accountId, 'available') as string;
  const to = w.merchantBook.get(accountId, 'withdrawals_in_flight') as string;
  w.insertLine.run(entryId, from, -body.amount, from, -body.amount, iso, from);
  w.insertLine.run(entryId, to, body.amount, to, body.amount, iso, to);
  const description = body.description ?? null;
  const postback = body.postback ?? null;
  const externalRef = body.external_ref ?? null;
  w.insertWithdrawal.run(id, accountId, 'REQUESTED', body.amount, body.key, body.key_type, description, body.details.name, body.details.document, postback, externalRef, iso, iso);
  const dueAt = new Date(at.getTime() + SETTLEMENT_DELAY_MS).toISOString();
  const batches = splitIntoBatches(body.amount, MAX_BATCH_CENTS).map((amount, seq) => ({ id: newId('batch'), seq, amount }));
  for (const b of batches) w.insertBatch.run(b.id, id, accountId, b.seq, b.amount, 'PENDING', dueAt, iso, iso);
  const view = {
    id, status: 'REQUESTED', amount: body.amount,
    operation: { amount: body.amount, key: body.key, key_type: body.key_type, description, details: { name: body.details.name, document: body.details.document }, postback, external_ref: externalRef },
    receipt: batches.map((b) => receipt(b.id, b.amount)),
    created_at: iso, updated_at: iso,
  };
  w.insertEvent.get(newId('event'), accountId, 'withdraw.requested', 'withdraw', id, JSON.stringify(view), iso, requestId);
  const answer = { statusCode: 201, message: 'WITHDRAW_REQUEST', data: batches.map((b) => ({ amount: b.amount, event: 'WITHDRAWAL', identifier: b.id, status: 'PENDING', timestamp: iso })), timestamp: iso };
  if (key !== null) w.insertKey.run(accountId, 'withdrawal.create', key, 'fingerprint', JSON.stringify(answer), iso, new Date(at.getTime() + 24 * 3600 * 1000).toISOString());
  return answer;
}

// db/writer.ts's group commit, without its async plumbing (the jobs here are synchronous)
type Job = { run: () => unknown; done: (err: unknown, value?: unknown) => void };
let queue: Job[] = [];
let scheduled = false;
function write(run: () => unknown, done: Job['done']) {
  queue.push({ run, done });
  if (scheduled) return;
  scheduled = true;
  // setImmediate, as the writer: requests parsed in the same I/O turn join this group
  setImmediate(runGroup);
}
function runGroup() {
  scheduled = false;
  const group = queue;
  queue = [];
  const outcomes: [unknown, unknown][] = [];
  try {
    writeConn.exec('BEGIN IMMEDIATE');
    for (const q of group) {
      try {
        w.savepoint.run();
        const value = q.run();
        w.release.run();
        outcomes.push([null, value]);
      } catch (err) {
        w.rollback.run();
        w.release.run();
        outcomes.push([err, undefined]);
      }
    }
    writeConn.exec('COMMIT');
  } catch (err) {
    if (writeConn.inTransaction) writeConn.exec('ROLLBACK');
    for (const q of group) q.done(err);
    return;
  }
  group.forEach((q, i) => q.done(outcomes[i][0], outcomes[i][1]));
}

/** accountForAccessToken: the bearer's account, or null. */
function authenticate(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (!auth?.startsWith('Bearer at_')) return null;
  const row = tokenByHash.get(hashSecret(auth.slice(7)), new Date().toISOString()) as { account_id: string } | undefined;
  return row?.account_id ?? null;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const out = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
  res.end(out);
}

/** GET /withdraw?identifier=: the batch's withdrawal and its view (view.ts withdrawalViewByBatch). */
function getWithdrawal(accountId: string, identifier: string) {
  const rows = withdrawalByBatch.all(identifier, accountId, accountId) as unknown[][];
  if (!rows.length) return null;
  const [id, status, amount, key, keyType, description, name, document, postback, externalRef, createdAt, updatedAt] = rows[0];
  return {
    id, status, amount,
    operation: { amount, key, key_type: keyType, description, details: { name, document }, postback, external_ref: externalRef },
    receipt: rows.filter((r) => r[12] !== null).map(([, , , , , , , , , , , , bid, bstatus, bamount, e2e, rname, rbank, rispb, fcode, freason]) => {
      const paid = bstatus === 'PAID';
      const failed = bstatus === 'ERROR';
      return {
        status: bstatus, endtoend: paid ? e2e : null, identifier: bid, amount: bamount,
        receiver_name: paid ? rname : null, receiver_bank: paid ? rbank : null, receiver_bank_ispb: paid ? rispb : null,
        failure_code: failed ? fcode : null, failure_reason: failed ? (freason ?? 'The payment failed; no reason was recorded.') : null,
      };
    }),
    created_at: createdAt, updated_at: updatedAt,
  };
}

const server = createServer((req, res) => {
  const accountId = authenticate(req);
  if (req.method === 'GET') {
    if (!accountId) return send(res, 401, { message: 'unauthorized' });
    const q = req.url!.indexOf('identifier=');
    const view = q < 0 ? null : getWithdrawal(accountId, decodeURIComponent(req.url!.slice(q + 11).split('&')[0]));
    return view ? send(res, 200, view) : send(res, 404, { message: 'not found' });
  }
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (!accountId) return send(res, 401, { message: 'unauthorized' });
    let body: WithdrawalBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { message: 'invalid JSON' });
    }
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    if (key !== null && keyLookup.get(accountId, 'withdrawal.create', key)) return send(res, 409, { message: 'replays are not part of the floor' });
    write(() => createWithdrawal(accountId, body, randomUUID(), key), (err, value) => {
      if (err) send(res, 422, { message: String((err as Error).message ?? err) });
      else send(res, 201, value);
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  // the token for the bench (the same line shape as the server's demo account)
  console.log(`    access_token  ${issued.access_token}`);
  console.log(`listening on http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
});
process.on('SIGTERM', () => { server.close(); readConn.close(); writeConn.close(); process.exit(0); });

