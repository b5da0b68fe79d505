/**
 * `npm run cluster [-- --instances N] [--keep-going] [--balance credentials|roundrobin]`: the service scaled out on one machine, for trying
 * it and for the multi-instance tests. PostgreSQL (DATABASE_URL, else a throwaway one from
 * scripts/lib/throwaway-postgres.ts, migrated once here), N instances of server/main.ts on their own 127.0.0.1 ports,
 * and HAProxy (Debian's) in front on 127.0.0.1, health-checked on /healthz, setting
 * X-Forwarded-For (the instances trust 127.0.0.1). Prints the balancer's address and the demo
 * credentials; stops everything on Ctrl-C/SIGTERM, or when any process of the cluster dies — except,
 * with --keep-going, an instance: it stays down and the balancer routes around it (a failover drill).
 *
 * --balance credentials (the default) routes a request by a consistent hash of its Authorization header, so
 * one merchant's writes tend to meet on one instance (and in one write group there); requests without one
 * (sign-in, pages) go round-robin, as all do with --balance roundrobin. Correctness never depends on it:
 * the multi-instance tests spread one account over every instance on purpose (roundrobin).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migratePostgres } from '../db/pg/migrate';
import { allUp, HAPROXY, haproxyConfig, relay, requireHaproxy, type Balance } from './lib/haproxy';
import { freePort, startThrowawayPostgres, type ThrowawayPostgres } from './lib/throwaway-postgres';

const ROOT = new URL('..', import.meta.url).pathname;

function parseInstances(argv: string[]): number {
  const i = argv.indexOf('--instances');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--instances='))?.slice('--instances='.length);
  if (raw === undefined) return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16) {
    console.error(`--instances must be a whole number from 1 to 16, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

function parseBalance(argv: string[]): Balance {
  const i = argv.indexOf('--balance');
  const raw = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--balance='))?.slice('--balance='.length) ?? 'credentials';
  if (raw !== 'credentials' && raw !== 'roundrobin') {
    console.error(`--balance must be credentials or roundrobin, got "${raw}"`);
    process.exit(2);
  }
  return raw;
}

async function main() {
  const count = parseInstances(process.argv.slice(2));
  const keepGoing = process.argv.includes('--keep-going');
  const balance = parseBalance(process.argv.slice(2));
  requireHaproxy();
  const dir = mkdtempSync(join(tmpdir(), 'pix-cluster-'));
  const children: { name: string; child: ChildProcess }[] = [];
  let pg: ThrowawayPostgres | null = null;
  let stopping: Promise<void> | null = null;

  const stop = (code: number, why?: string) => {
    stopping ??= (async () => {
      if (why) console.error(why);
      console.log('stopping the cluster…');
      // the balancer first (no new requests), then the instances (they finish what is in flight), then the database
      const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
      const end = async (list: ChildProcess[]) => {
        await Promise.all(list.filter((c) => !exited(c)).map((c) => new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
          // an instance that does not finish its drain in time is killed
          setTimeout(() => { if (!exited(c)) c.kill('SIGKILL'); }, 20_000).unref();
        })));
      };
      await end(children.filter((c) => c.name === 'haproxy').map((c) => c.child));
      await end(children.filter((c) => c.name !== 'haproxy').map((c) => c.child));
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
      console.log('cluster stopped');
      process.exit(code);
    })();
    return stopping;
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  const watch = (name: string, child: ChildProcess) => {
    children.push({ name, child });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // a failover drill: the others carry on, HAProxy's health checks take the dead one out
      if (keepGoing && name.startsWith('instance ')) console.error(`${name} exited (${signal ?? `code ${code}`}): the others carry on (--keep-going)`);
      else void stop(1, `${name} exited (${signal ?? `code ${code}`}): stopping the whole cluster`);
    });
  };

  try {
    let databaseUrl = process.env.DATABASE_URL?.trim();
    if (!databaseUrl) {
      console.log('No DATABASE_URL: starting a throwaway PostgreSQL on 127.0.0.1…');
      pg = await startThrowawayPostgres({ durable: true, database: 'payments' });
      databaseUrl = pg.url;
    }
    // once here, so the instances do not race each other to migrate
    await migratePostgres(databaseUrl);

    const env = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      // one DATABASE_PATH for all: the secrets key beside it (secrets.key) must be the same in every
      // instance. A throwaway database gets a throwaway key; a real DATABASE_URL keeps the usual place.
      ...(pg ? { DATABASE_PATH: join(dir, 'payments.db') } : {}),
      TRUSTED_PROXIES: '127.0.0.1',
      // pages need a production build (npm start makes one); without it the instances serve the API only
      DASHBOARD: process.env.DASHBOARD ?? (existsSync(join(ROOT, '.next/BUILD_ID')) ? 'true' : 'false'),
    };
    const startInstance = (n: number) => new Promise<{ port: number; pid: number; banner: string[] }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: ROOT,
        // every instance dispatches events and delivers webhooks and postbacks: the dispatcher runs under
        // an advisory lock and the sender claims each delivery with a lease (server/domain/webhooks)
        env: { ...env, PORT: '0', RUN_DISPATCHER: process.env.RUN_DISPATCHER ?? 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      relay(child, `i${n}`);
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c.toString();
        const m = /listening on http:\/\/[\d.]+:(\d+)/.exec(out);
        // the demo account's one-time banner: the plain (not JSON) lines before "listening"
        if (m) { resolve({ port: Number(m[1]), pid: child.pid!, banner: out.split('\n').filter((l) => l.startsWith('    ')) }); out = ''; }
      });
      child.once('exit', (code) => reject(new Error(`instance ${n} exited at start (code ${code})`)));
      watch(`instance ${n}`, child);
    });
    // the first alone: on an empty database it creates the demo account (and the secrets key), once
    const first = await startInstance(1);
    const started = [first, ...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => startInstance(i + 2))))];
    const ports = started.map((s) => s.port);

    const port = await freePort();
    const statsPort = await freePort();
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig({ port, statsPort, instances: ports, balance }));
    const check = spawnSync(HAPROXY, ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`HAProxy refused its configuration: ${check.stderr || check.stdout}`);
    const haproxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    relay(haproxy, 'haproxy');
    watch('haproxy', haproxy);
    await allUp(`http://127.0.0.1:${statsPort}/stats;csv`, count);

    console.log('');
    console.log(`  Cluster ready: ${count} instance(s) behind HAProxy`);
    console.log(`    balancer      http://127.0.0.1:${port}`);
    console.log(`    instances     ${ports.map((p) => `http://127.0.0.1:${p}`).join(' ')}`);
    console.log(`    pids          ${started.map((s, i) => `i${i + 1}=${s.pid}`).join(' ')}`);
    console.log(`    haproxy stats http://127.0.0.1:${statsPort}/stats`);
    if (pg) console.log(`    DATABASE_URL  ${pg.url}   (throwaway, removed on stop)`);
    if (first.banner.length) {
      console.log('  Demo account created (shown once; store it now):');
      for (const l of first.banner) console.log(l);
    }
    console.log('  Ctrl-C stops everything.');
    console.log('');
  } catch (err) {
    await stop(1, `cluster failed to start: ${(err as Error).message}`);
  }
}

await main();
