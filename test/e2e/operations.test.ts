import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPostgres } from '../../db/dialect';
import { peekDb } from '../support/peek';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, api, finishedLines, logLines as logLinesOf, postgresDatabaseFor, removeDir, startServer, type RunningServer } from '../support/server';
import { waitFor } from '../support/services';
import { APPROVED_CARD, card, txBody } from '../support/transactions';

const METRICS_TOKEN = 'metrics-token-0123456789';

let srv: RunningServer;
let token: string;
/** Where the startup banner ends: everything after it must be log lines, none with a secret. */
let bannerEnd = 0;

beforeAll(async () => {
  srv = await startServer({ env: { METRICS_TOKEN, METRICS_PORT: '0', LOG_LEVEL: 'info' } });
  bannerEnd = srv.output().length;
  token = await accessToken(srv.url, srv.demo.code, srv.demo.token);
});
afterAll(async () => {
  await srv?.stop();
  if (srv) removeDir(srv.dir);
});

/** The JSON log lines printed since the banner. */
function logLines(): Record<string, any>[] {
  return logLinesOf(srv.output().slice(bannerEnd));
}

/** A GET with raw header bytes node's fetch would refuse to send (control characters). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const metrics = async () => (await api(srv.url, '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text;
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : null;
};

describe('health', () => {
  it('answers /healthz and /readyz without credentials and says nothing about accounts', async () => {
    const live = await api(srv.url, '/healthz');
    expect(live.status).toBe(200);
    expect(live.json.status).toBe('ok');
    const ready = await api(srv.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toMatchObject({ status: 'ready', ready: true, failed: null });
    expect(ready.json.checks.map((c: { name: string }) => c.name)).toEqual(['shutdown', 'database', 'migrations', 'writer', 'jobs', 'ledger']);
    expect(ready.json.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
    for (const body of [live.text, ready.text]) expect(body).not.toMatch(/acc_|wd_|txn_|lje_|sk_|pk_/);
    expect((await api(srv.url, '/readyz', { method: 'POST', body: {} })).status).toBe(405);
  });
});

describe('metrics', () => {
  it('refuses /metrics without the token or with a wrong one (401)', async () => {
    expect((await api(srv.url, '/metrics')).status).toBe(401);
    expect((await api(srv.url, '/metrics', { headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status).toBe(401);
    const ok = await api(srv.url, '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('serves /metrics without a token on METRICS_PORT, bound to 127.0.0.1', async () => {
    const line = await waitFor(() => logLinesOf(srv.output()).find((l) => l.msg === 'metrics listening'), { what: 'the metrics line' });
    expect(line?.metrics_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(line!.metrics_url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('process_cpu_seconds_total');
  });

  it('labels requests by route template, never by raw URL or account, and counts outcomes and queues', async () => {
    const closed = 'http://127.0.0.1:9/never';
    const wd = await api(srv.url, '/withdraw/pix', {
      token, headers: { 'x-request-id': 'ops-test-withdrawal' },
      body: { amount: 1500, key: 'ops@example.com', key_type: 'EMAIL', details: { name: 'Fulano', document: '529.982.247-25' }, postback: closed },
    });
    expect(wd.status).toBe(201);
    const id = wd.json.data[0].id ?? wd.json.data[0].identifier;
    expect((await api(srv.url, `/withdraw?identifier=${encodeURIComponent(wd.json.data[0].identifier)}`, { token })).status).toBe(200);
    const hook = await api(srv.url, '/api/webhooks/wh_doesnotexist123', { method: 'DELETE', headers: { 'x-api-key': srv.demo.apiKey, 'x-token': token } });
    expect(hook.status).toBe(404);
    expect((await api(srv.url, '/no/such/path/at/all-12345')).status).toBe(404);

    const text = await waitFor(async () => {
      const t = await metrics();
      const paid = sample(t, 'withdrawals_finished_total{status="PAID"}') ?? 0;
      const attempts = sample(t, 'webhook_delivery_attempts_total{target="postback",outcome="network_error"}') ?? 0;
      return paid >= 1 && attempts >= 1 ? t : null;
    }, { what: 'the withdrawal to settle and its postback to be attempted' });

    expect(text).toMatch(/http_requests_total\{route="\/withdraw\/pix",method="POST",status="201"\} 1/);
    expect(text).toMatch(/http_requests_total\{route="\/withdraw",method="GET",status="200"\} 1/);
    expect(text).toMatch(/http_requests_total\{route="\/api\/webhooks\/\{magic_id\}",method="DELETE",status="404"\} 1/);
    expect(text).toMatch(/http_requests_total\{route="\(unmatched\)",method="GET",status="404"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0.005",route="\/withdraw\/pix",method="POST",status="201"\} \d+/);
    for (const raw of [id, 'wh_doesnotexist123', 'all-12345', srv.demo.accountId, srv.demo.apiKey, 'identifier=']) expect(text).not.toContain(raw);
    // the writer's groups and COMMITs (both engines' writers commit jobs in groups)
    expect(sample(text, 'db_writer_group_jobs_count')).toBeGreaterThan(0);
    expect(sample(text, 'db_writer_commit_duration_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'db_writer_group_jobs_sum')).toBeGreaterThanOrEqual(sample(text, 'db_writer_group_jobs_count')!);
    for (const g of ['withdrawal_batches_pending', 'withdrawal_batches_oldest_pending_age_seconds', 'webhook_deliveries_due', 'webhook_deliveries_oldest_due_age_seconds']) {
      expect(sample(text, g)).not.toBeNull();
    }
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // a card approved at once is a transaction at its final status
    const tx = await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: APPROVED_CARD }) }) });
    expect(tx.status).toBe(201);
    await waitFor(async () => (sample(await metrics(), 'transactions_finished_total{status="APPROVED"}') ?? 0) >= 1, { what: 'the approval to be counted' });

    // the postback's attempt is logged with the request id of the request that made the event
    const attempt = await waitFor(() => logLines().find((l) => l.msg === 'delivery attempt' && l.event_type === 'withdraw.requested'), { what: 'the delivery log line' });
    expect(attempt).toMatchObject({ req_id: 'ops-test-withdrawal', target: 'postback', outcome: 'network_error', job: 'delivery' });
    expect(JSON.stringify(attempt)).not.toContain('127.0.0.1:9');
  });
});

describe('request logs', () => {
  it('logs one JSON line per request with id, route template, status, duration and the account', async () => {
    const res = await api(srv.url, '/balance', { token, headers: { 'x-request-id': 'req-balance-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-balance-1');
    const line = await waitFor(() => logLines().find((l) => l.req_id === 'req-balance-1'), { what: 'the request log line' });
    expect(line).toMatchObject({ level: 'info', method: 'GET', route: '/balance', status: 200, account_id: srv.demo.accountId, msg: 'request' });
    expect(typeof line.time).toBe('string');
    expect(typeof line.duration_ms).toBe('number');
    expect(logLines().filter((l) => l.req_id === 'req-balance-1')).toHaveLength(1);
  });

  it('replaces an x-request-id that is too long or has control characters, and never echoes it', async () => {
    const long = 'x'.repeat(129);
    const a = await api(srv.url, '/healthz', { headers: { 'x-request-id': long } });
    expect(a.headers.get('x-request-id')).not.toBe(long);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await rawGet(srv.url, '/healthz', { 'x-request-id': 'bad\tid' });
    expect(b.status).toBe(200);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const c = await api(srv.url, '/healthz', { headers: { 'x-request-id': 'x'.repeat(128) } });
    expect(c.headers.get('x-request-id')).toBe('x'.repeat(128));
    await waitFor(() => logLines().some((l) => l.req_id === b.headers['x-request-id']));
    expect(srv.output()).not.toContain(long);
    expect(srv.output()).not.toContain('bad\tid');
  });

  it('never logs a credential, password, card number, CVV or webhook secret, even when requests fail', async () => {
    const webhook = await api(srv.url, '/api/webhooks', {
      headers: { 'x-api-key': srv.demo.apiKey, 'x-token': token, 'idempotency-key': 'redaction-1' },
      body: { url: 'http://127.0.0.1:9/hook', events: ['transaction'] },
    });
    expect(webhook.status).toBe(201);
    const whsec = JSON.stringify(webhook.json).match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(whsec).toBeTruthy();
    const password = 'correct-horse-battery-staple';
    await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: srv.demo.token } });
    await api(srv.url, '/auth/token', { body: { code: srv.demo.code, token: 'sk_wrongwrongwrongwrongwrongwrong' } });
    await api(srv.url, '/api/trpc/session.signIn', { body: { email: srv.demo.email, password } });
    await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: '4000000000009995', cvv: '987' }) }) });
    await api(srv.url, '/transaction', { token, body: txBody('CARD', { card: card({ number: '5555555555554444', cvv: 'abcd1' }) }) });
    await api(srv.url, '/withdraw/pix', { token: 'at_notavalidtokenatallbutsecretshaped', body: {} });
    await api(srv.url, '/balance', { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, method: 'GET' });
    await waitFor(() => logLines().some((l) => l.route === '/transaction' && l.status === 400), { what: 'the failed request lines' });

    const after = srv.output().slice(bannerEnd);
    for (const secret of [token, srv.demo.token, srv.demo.apiKey, whsec!, password, '4000000000009995', '5555555555554444', '"987"',
      'sk_wrongwrongwrongwrongwrongwrong', 'at_notavalidtokenatallbutsecretshaped', srv.demo.password]) {
      expect(after, `a log line carries ${secret.slice(0, 6)}…`).not.toContain(secret);
    }
    // every line since the banner is a JSON log line
    for (const l of finishedLines(after).filter(Boolean)) expect(() => JSON.parse(l)).not.toThrow();
  });
});

describe('readiness failures', () => {
  it('answers 503 naming the ledger when the books do not balance, without saying where', async () => {
    const broken = await startServer();
    const dir = broken.dir;
    await broken.stop();
    // forged behind the application's back; on PostgreSQL past its ledger triggers (a superuser's replica role)
    const conn = peekDb(broken.databasePath, { write: true });
    if (onPostgres) await conn.all('SET session_replication_role = replica');
    const book = (await conn.get<{ id: string }>(`SELECT id FROM ledger_books WHERE account_id IS NOT NULL AND kind = 'available'`))!;
    const account = (await conn.get<{ id: string }>('SELECT id FROM accounts'))!;
    await conn.all(`INSERT INTO ledger_entries (id, account_id, kind, created_at) VALUES ('lje_forged', ?, 'forged', '2099-01-01T00:00:00.000Z')`, account.id);
    await conn.all(`INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at) VALUES ('lje_forged', ?, 500, (SELECT balance FROM ledger_books WHERE id = ?) + 500, '2099-01-01T00:00:00.000Z')`, book.id, book.id);
    await conn.close();
    const again = await startServer({ dir });
    try {
      const ready = await api(again.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ status: 'not_ready', ready: false, failed: 'ledger' });
      expect(ready.text).not.toContain('lje_forged');
      expect((await api(again.url, '/healthz')).status).toBe(200);
      const logged = await waitFor(() => again.output().split('\n').find((l) => l.includes('ledger audit found a break')));
      expect(logged).toContain('lje_forged');
    } finally {
      await again.stop();
      removeDir(dir);
    }
  }, 180_000);

  it('turns /readyz to 503 at the start of a graceful shutdown, while still accepting requests', async () => {
    const s = await startServer({ env: { SHUTDOWN_DRAIN_MS: '60000' } });
    try {
      expect((await api(s.url, '/readyz')).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => s.child.on('exit', (code) => resolve(code)));
      s.child.kill('SIGTERM');
      const draining = await waitFor(async () => {
        const r = await api(s.url, '/readyz');
        return r.status === 503 ? r : null;
      }, { what: '/readyz to turn 503' });
      expect(draining.json).toMatchObject({ ready: false, failed: 'shutdown' });
      // still accepting: a new connection gets an answer after readiness turned
      expect((await api(s.url, '/healthz')).status).toBe(200);
      // a second signal (a person insisting, not the start script's copy of the first) ends the drain at once
      s.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await s.kill();
      removeDir(s.dir);
    }
  }, 120_000);

  it('a stop sent to the whole process group (start script and server, as systemd does) keeps draining and refuses no request', async () => {
    // npm start's process tree in a group of its own, signalled the way systemd's KillMode=control-group
    // and a terminal do: every process gets SIGTERM, and scripts/start.mjs forwards its own copy as well
    const dir = mkdtempSync(join(tmpdir(), 'pix-group-stop-'));
    const databasePath = join(dir, 'payments.db');
    const databaseUrl = await postgresDatabaseFor(databasePath);
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: databasePath, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        DASHBOARD: 'false', SHUTDOWN_DRAIN_MS: '60000', LOG_LEVEL: 'info', RATE_LIMIT_RPS: '0',
      },
    });
    let out = '';
    child.stdout!.on('data', (c) => { out += c; });
    child.stderr!.on('data', (c) => { out += c; });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await waitFor(() => /listening on (http:\/\/[\d.]+:\d+)/.exec(out)?.[1], { what: 'the server to listen', timeoutMs: 60_000 });
      process.kill(-child.pid!, 'SIGTERM');
      await waitFor(() => out.includes('stop asked again at once'), { what: `the start script's copy to reach the server; output so far:\n${out}` });
      // both copies have arrived: still draining, /readyz says so, and requests are still served
      expect((await api(url, '/readyz')).status).toBe(503);
      expect((await api(url, '/healthz')).status).toBe(200);
      expect((await api(url, '/withdraw?identifier=wdb_x')).status).toBe(401);
      // the group signalled again: the server's second signal ends the drain; everything exits cleanly
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped cleanly');
    } finally {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
      removeDir(dir);
    }
  }, 120_000);
});
