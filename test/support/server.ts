import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait';

export interface RunningServer {
  url: string;
  dir: string;
  databasePath: string;
  demo: { code: string; token: string; apiKey: string; accountId: string; email: string; password: string; pixClientId: string; pixClientSecret: string; pixKey: string };
  output: () => string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, no cleanup (crash tests). */
  kill(): Promise<void>;
  child: ChildProcess;
}

const ROOT = new URL('../..', import.meta.url).pathname;

/** The throwaway cluster of a file run by vitest.pg.config.ts (test/support/pg-setup.ts), if any. */
export const TEST_POSTGRES = Symbol.for('pix.testPostgres');
const databases = new Map<string, string>();

/**
 * On PostgreSQL, each server's database is its own, as each server's SQLite file is: one database of
 * the file's cluster per DATABASE_PATH (a restart in the same dir finds its data again). Undefined on SQLite.
 */
/** The PostgreSQL database of the server started over `databasePath` (undefined on SQLite). */
export function serverDatabaseUrl(databasePath: string): string | undefined {
  return databases.get(databasePath);
}

/**
 * The environment that points another process (a CLI command, `npm run worker`) at the database of the
 * server started over `databasePath`: its file on SQLite, its own database on PostgreSQL.
 */
export function serverEnv(databasePath: string): { DATABASE_PATH: string; DATABASE_URL?: string } {
  const url = serverDatabaseUrl(databasePath);
  return { DATABASE_PATH: databasePath, ...(url ? { DATABASE_URL: url } : {}) };
}

export async function postgresDatabaseFor(databasePath: string): Promise<string | undefined> {
  const cluster = (globalThis as Record<symbol, { createDatabase(name: string): Promise<string> } | undefined>)[TEST_POSTGRES];
  if (!cluster) return undefined;
  let url = databases.get(databasePath);
  if (!url) {
    url = await cluster.createDatabase(`server_${databases.size + 1}`);
    databases.set(databasePath, url);
  }
  return url;
}

/**
 * The per-test bound for a test that starts (or restarts) a server or CLI process in its body: booting
 * tsx under load on a shared 2-core machine can take tens of seconds, far past vitest's 30 s default.
 * A bound, not a wait: the tests still wait by condition and finish as soon as the condition holds.
 */
export const SERVER_TEST_TIMEOUT_MS = 120_000;

/**
 * Starts the real server process (`server/main.ts`) on a free port over a fresh database.
 * API-only by default (DASHBOARD=false) so API tests do not need a Next build; browser tests pass
 * `pages: true`.
 */
export async function startServer(o: { env?: Record<string, string>; pages?: boolean; dir?: string; timeoutMs?: number } = {}): Promise<RunningServer> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'pix-e2e-'));
  const databasePath = join(dir, 'payments.db');
  const databaseUrl = o.env?.DATABASE_URL ?? await postgresDatabaseFor(databasePath);
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      DASHBOARD: o.pages ? 'true' : 'false',
      RATE_LIMIT_RPS: '0',
      SANDBOX_SETTLEMENT_DELAY_MS: '50',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      JOB_POLL_MS: '25',
      // another instance's (or a restarted process's former self's) batches and events are taken over 2 s after
      // they fall due, not the default 10 s, so restart and failover tests settle within their waits
      JOB_AFFINITY_MS: '2000',
      NODE_ENV: o.pages ? 'production' : 'test',
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => { out += c.toString(); });
  child.stderr!.on('data', (c) => { out += c.toString(); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), o.timeoutMs ?? 60_000);
    const check = () => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${out}`)); });
  });
  const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(out)?.[1] ?? '';
  const dash = /dashboard\s+(\S+) \/ (\S+)/.exec(out);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    url, dir, databasePath, child,
    demo: {
      accountId: field('account_id'), code: field('code'), token: field('token'), apiKey: field('api_key'), email: dash?.[1] ?? '', password: dash?.[2] ?? '',
      pixClientId: field('pix_client_id'), pixClientSecret: field('pix_client_secret'), pixKey: field('pix_key'),
    },
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * The lines of a server's output so far that have ended. Lines leave the server in batches
 * (server/log.ts), and a pipe may hand over a batch in pieces: a line not yet ended by its newline waits
 * for the next look.
 */
export function finishedLines(output: string): string[] {
  return output.slice(0, output.lastIndexOf('\n') + 1).split('\n');
}

/** The JSON log lines of a server's output so far (finished lines only). */
export function logLines(output: string): Record<string, any>[] {
  return finishedLines(output).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/**
 * Waits until every line the server logged so far has reached its output: the line of one more request
 * (GET /healthz under a fresh request id) is written after them. For checks that a line is absent.
 */
export async function logsCaughtUp(srv: RunningServer): Promise<void> {
  const id = `logs-caught-up-${randomUUID()}`;
  await (await fetch(`${srv.url}/healthz`, { headers: { 'x-request-id': id } })).text();
  await waitFor(() => logLines(srv.output()).some((l) => l.req_id === id), { what: "the server's log to catch up" });
}

/** What a process run to its end printed, and how it ended. */
export interface Finished { code: number | null; stdout: string; stderr: string }

/**
 * Runs one of the project's TypeScript entry points (a script, or the server when it is expected to
 * stop on its own) under tsx to its end, in `env` exactly (the caller builds it from process.env).
 * `onSpawn` sees the child at once, for a test that must be able to kill it.
 */
export function runTsx(entry: string, args: string[], env: NodeJS.ProcessEnv, onSpawn?: (child: ChildProcess) => void): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => { stdout += c; });
    child.stderr!.on('data', (c) => { stderr += c; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}

export async function accessToken(url: string, code: string, token: string): Promise<string> {
  const res = await fetch(`${url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, token }) });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** JSON over HTTP with a bearer token; returns status, headers and parsed body. */
export async function api(url: string, path: string, o: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined = o.raw;
  if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json'; }
  const res = await fetch(`${url}${path}`, { method: o.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}
