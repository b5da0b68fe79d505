import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/**
 * A throwaway PostgreSQL for tests, benchmarks and `npm run cluster`: Debian's `postgresql` binaries,
 * `initdb` into a fresh temporary directory, the server on 127.0.0.1 only (no Unix socket outside that
 * directory) on a free port, password authentication with a random password, and everything stopped
 * and removed afterwards — by `stop()`, and on the process's exit if nobody called it.
 *
 * PostgreSQL refuses to run as root: started as root, the cluster runs as the unprivileged `postgres`
 * system user that Debian's package creates (or `nobody` where that user is missing).
 */
export interface ThrowawayPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  dir: string;
  /** A new empty database on the same cluster; its URL. */
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown, keeping the data: the database is gone for its clients until `resume()` (tests of an outage). */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port and data. */
  resume(): Promise<void>;
  /**
   * `pg_ctl restart -m <mode>` on the same port and data: `pg_ctl stop -m fast` (open transactions rolled
   * back, clients disconnected, a checkpoint) or `-m immediate` (every process quits at once, as in a crash:
   * the start replays the WAL), then the server is started again under this handle, so `stop()` still ends it.
   */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** Fast shutdown, then the directory is removed. Safe to call twice. */
  stop(): Promise<void>;
  /** What the server logged (for a failing test's message). */
  log(): string;
}

export class PostgresMissingError extends Error {}

const MIN_MAJOR = 15;

/** The newest installed PostgreSQL ≥ 15: PG_BIN, else /usr/lib/postgresql/<major>/bin. */
export function postgresBinaries(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).map(Number).filter((n) => n >= MIN_MAJOR).sort((a, b) => b - a) : [];
  for (const m of majors) if (existsSync(join(root, String(m), 'bin', 'postgres'))) return join(root, String(m), 'bin');
  throw new PostgresMissingError(`PostgreSQL ${MIN_MAJOR} or later is not installed (no ${root}/<version>/bin/postgres): install Debian's package first: sudo apt-get update && sudo apt-get install -y postgresql`);
}

function unprivilegedUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  }
  throw new Error('started as root, PostgreSQL needs an unprivileged user to run as, and neither "postgres" nor "nobody" exists');
}

/** A port on 127.0.0.1 that nothing listens on right now (the cluster script uses it too). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const live = new Set<() => void>();
let exitHookInstalled = false;
function onExitRemove(fn: () => void) {
  live.add(fn);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => { for (const f of live) f(); });
  }
}

export interface StartOptions {
  /** Off for tests (a throwaway cluster needs no crash safety and runs much faster); on for `cluster`. */
  durable?: boolean;
  database?: string;
  maxConnections?: number;
  /** How long to wait for the server to accept connections. */
  timeoutMs?: number;
}

export async function startThrowawayPostgres(o: StartOptions = {}): Promise<ThrowawayPostgres> {
  const bin = postgresBinaries();
  const owner = unprivilegedUser();
  const dir = mkdtempSync(join(tmpdir(), 'pix-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  let child: ChildProcess | null = null;
  let log = '';
  const remove = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  onExitRemove(remove);
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const pwfile = join(dir, 'pw');
    writeFileSync(pwfile, password, { mode: 0o600 });
    if (owner) chownSync(pwfile, owner.uid, owner.gid);
    const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--pwfile', pwfile, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      ...asOwner, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' },
    });
    rmSync(pwfile, { force: true });
    if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);

    const settings = [
      '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
      '-c', `max_connections=${o.maxConnections ?? 200}`, '-c', 'shared_buffers=64MB',
      ...(o.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ];
    // (also used by resume(): the same data directory on the same port)
    const launch = async (fixedPort?: number): Promise<number> => {
      for (let attempt = 0; ; attempt++) {
        const p = fixedPort ?? await freePort();
        log = '';
        const proc = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(p), ...settings], { ...asOwner, stdio: ['ignore', 'pipe', 'pipe'] });
        child = proc;
        proc.stdout!.on('data', (c) => { log += c.toString(); });
        proc.stderr!.on('data', (c) => { log += c.toString(); });
        const ready = await new Promise<boolean>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within ${o.timeoutMs ?? 60_000} ms:\n${log}`)), o.timeoutMs ?? 60_000);
          const check = () => {
            if (/ready to accept connections/.test(log)) { clearTimeout(timer); resolve(true); }
          };
          proc.stdout!.on('data', check);
          proc.stderr!.on('data', check);
          proc.once('exit', () => { clearTimeout(timer); resolve(false); });
        });
        if (ready) return p;
        // another process took the port between our probe and the server's bind: try another one
        if (fixedPort === undefined && /could not bind|Address already in use/.test(log) && attempt < 3) continue;
        throw new Error(`PostgreSQL exited at start:\n${log}`);
      }
    };
    const port = await launch();

    const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    const createDatabase = async (name: string) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name} is not a plain identifier`);
      const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
      try { await admin.unsafe(`CREATE DATABASE ${name}`); } finally { await admin.end({ timeout: 5 }); }
      return `${base}/${name}`;
    };
    const database = o.database ?? 'payments';
    const url = await createDatabase(database);
    let stopping: Promise<void> | null = null;
    const halt = () => new Promise<void>((resolve) => {
      const running = child!;
      if (running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once('exit', () => resolve());
      running.kill('SIGINT'); // fast shutdown: rolls back open transactions, disconnects clients
    });
    return {
      url, port, dir,
      createDatabase,
      log: () => log,
      halt,
      async resume() {
        if (child && child.exitCode === null && child.signalCode === null) return;
        await launch(port);
      },
      async restart(mode) {
        const running = child!;
        const exited = running.exitCode !== null || running.signalCode !== null
          ? Promise.resolve()
          : new Promise<void>((resolve) => running.once('exit', () => resolve()));
        // (not spawnSync: the caller's own clients keep running while the server stops)
        const stopper = spawn(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', mode, '-w', '-t', '60'], { ...asOwner, stdio: ['ignore', 'pipe', 'pipe'] });
        let said = '';
        stopper.stdout!.on('data', (c) => { said += c.toString(); });
        stopper.stderr!.on('data', (c) => { said += c.toString(); });
        const status = await new Promise<number | null>((resolve) => stopper.once('exit', (code) => resolve(code)));
        if (status !== 0) throw new Error(`pg_ctl stop -m ${mode} failed (${status}): ${said}`);
        await exited;
        await launch(port);
      },
      stop() {
        stopping ??= halt().then(() => { remove(); live.delete(remove); });
        return stopping;
      },
    };
  } catch (err) {
    remove();
    live.delete(remove);
    throw err;
  }
}

/** Who the cluster runs as (for messages). */
export function clusterUser(): string {
  return process.getuid?.() === 0 ? 'postgres (or nobody)' : userInfo().username;
}
