import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { migratePostgres } from '../../db/pg/migrate';
import { allUp, HAPROXY, haproxyConfig, requireHaproxy } from './haproxy';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';
import { freePort, startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres';

const ROOT = new URL('../..', import.meta.url).pathname;

/** One instance of server/main.ts, with its own TCP proxy to PostgreSQL (so the campaign knows its backends). */
export interface ChaosInstance {
  n: number;
  port: number;
  proxy: TcpProxy;
  child: ChildProcess;
}

/**
 * The cluster a fault campaign runs on (scripts/chaos.ts): a durable throwaway PostgreSQL of its own (the
 * campaign restarts it, so it never touches DATABASE_URL's), N instances each reaching it through a TCP
 * proxy the campaign controls, HAProxy round-robin in front (one merchant's writes meet on every instance),
 * and the sandbox rail's journal shared by the instances. Everything on 127.0.0.1; the instances' output
 * goes to one log file.
 */
export interface ChaosCluster {
  balancer: string;
  stats: string;
  pg: ThrowawayPostgres;
  /** The campaign's own connection to PostgreSQL, not through any proxy. */
  sql: postgres.Sql;
  instances: ChaosInstance[];
  /** DATABASE_PATH of the instances (the shared secrets key lives beside it). */
  databasePath: string;
  journalDir: string;
  logFile: string;
  /** SIGKILL, as a crash: no drain, no cleanup. Resolves once the process is gone. */
  kill(i: ChaosInstance): Promise<void>;
  /** Starts a killed instance again on its port and proxy. */
  restart(i: ChaosInstance): Promise<void>;
  /** Every instance answers /readyz 200 and HAProxy sees every one UP, by `deadline`. */
  ready(deadline: number): Promise<void>;
  stop(): Promise<void>;
}

export const CHAOS_INSTANCE_ENV = {
  NODE_ENV: 'production' as const, HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1', DASHBOARD: 'false', RUN_DISPATCHER: 'true',
  RATE_LIMIT_RPS: '0',
  // batches and refunds settle within the round; a claim whose instance died falls due again after 4 s
  // (a 5 s stall outlives the lease on purpose: another instance may take the batch over meanwhile)
  SANDBOX_SETTLEMENT_DELAY_MS: '100', SANDBOX_RAIL_LATENCY_MS: '20', JOB_POLL_MS: '100', JOB_LEASE_MS: '4000',
  // a killed instance's fresh batches, refunds and events go to the others 2 s after they fall due
  JOB_AFFINITY_MS: '2000',
  SHUTDOWN_DRAIN_MS: '0',
};

export async function startChaosCluster(o: { instances: number; log?: (line: string) => void }): Promise<ChaosCluster> {
  requireHaproxy();
  const dir = mkdtempSync(join(tmpdir(), 'pix-chaos-'));
  const journalDir = join(dir, 'rail-journal');
  const databasePath = join(dir, 'payments.db');
  const logFile = join(dir, 'cluster.log');
  const logStream: WriteStream = createWriteStream(logFile, { flags: 'a' });
  const say = o.log ?? (() => {});
  let haproxy: ChildProcess | null = null;
  const instances: ChaosInstance[] = [];
  let sql: postgres.Sql | null = null;
  let pg: ThrowawayPostgres | null = null;

  const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  const stop = async () => {
    const end = (c: ChildProcess | null, signal: NodeJS.Signals) => new Promise<void>((resolve) => {
      if (!c || exited(c)) return resolve();
      c.once('exit', () => resolve());
      c.kill(signal);
    });
    await end(haproxy, 'SIGTERM');
    await Promise.all(instances.map((i) => end(i.child, 'SIGKILL')));
    await Promise.all(instances.map((i) => i.proxy.close()));
    await sql?.end({ timeout: 1 }).catch(() => {});
    await pg?.stop();
    await new Promise<void>((r) => logStream.end(() => r()));
  };

  try {
    say('starting a durable throwaway PostgreSQL on 127.0.0.1…');
    pg = await startThrowawayPostgres({ durable: true, database: 'payments' });
    await migratePostgres(pg.url);
    sql = postgres(pg.url, { max: 2, onnotice: () => {}, connect_timeout: 5 });
    const pgUrl = new URL(pg.url);

    const spawnInstance = (n: number, port: number, proxy: TcpProxy) => {
      const url = new URL(pgUrl);
      url.port = String(proxy.port);
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        cwd: ROOT,
        env: {
          ...process.env, ...CHAOS_INSTANCE_ENV,
          PORT: String(port), DATABASE_URL: url.toString(), DATABASE_PATH: databasePath, SANDBOX_RAIL_JOURNAL: journalDir,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      for (const s of [child.stdout!, child.stderr!]) s.on('data', (c: Buffer) => { logStream.write(`[i${n}] ${c.toString()}`); });
      return child;
    };
    const listening = (child: ChildProcess, n: number) => new Promise<void>((resolve, reject) => {
      let out = '';
      const onData = (c: Buffer) => {
        out += c.toString();
        if (/listening on http:\/\//.test(out)) { child.stdout!.off('data', onData); resolve(); }
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code, signal) => reject(new Error(`instance ${n} exited at start (${signal ?? code}); see ${logFile}`)));
    });
    const startOne = async (n: number) => {
      const port = await freePort();
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg!.port });
      const child = spawnInstance(n, port, proxy);
      const inst: ChaosInstance = { n, port, proxy, child };
      instances.push(inst);
      await listening(child, n);
      return inst;
    };
    say(`starting ${o.instances} instances…`);
    // the first alone: on an empty database it creates the demo account and the shared secrets key, once
    await startOne(1);
    for (let n = 2; n <= o.instances; n++) await startOne(n);

    const port = await freePort();
    const statsPort = await freePort();
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig({ port, statsPort, instances: instances.map((i) => i.port), balance: 'roundrobin' }));
    const check = spawnSync(HAPROXY, ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`HAProxy refused its configuration: ${check.stderr || check.stdout}`);
    haproxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [haproxy.stdout!, haproxy.stderr!]) s.on('data', (c: Buffer) => { logStream.write(`[haproxy] ${c.toString()}`); });
    const stats = `http://127.0.0.1:${statsPort}/stats`;
    await allUp(`${stats};csv`, o.instances);

    const cluster: ChaosCluster = {
      balancer: `http://127.0.0.1:${port}`,
      stats,
      pg,
      sql,
      instances,
      databasePath,
      journalDir,
      logFile,
      async kill(i) {
        if (exited(i.child)) return;
        const gone = new Promise<void>((r) => i.child.once('exit', () => r()));
        i.child.kill('SIGKILL');
        await gone;
      },
      async restart(i) {
        i.child = spawnInstance(i.n, i.port, i.proxy);
        await listening(i.child, i.n);
      },
      async ready(deadline) {
        for (;;) {
          const answers = await Promise.all(instances.map((i) => fetch(`http://127.0.0.1:${i.port}/readyz`, { signal: AbortSignal.timeout(5_000) })
            .then((r) => r.status, () => 0)));
          if (answers.every((s) => s === 200)) break;
          if (Date.now() > deadline) throw new Error(`instances not ready in time (/readyz: ${answers.join(', ')})`);
          await new Promise((r) => setTimeout(r, 100));
        }
        await allUp(`${stats};csv`, o.instances);
      },
      stop,
    };
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Removes a stopped cluster's directory (its log and journal), once nobody needs them. */
export function removeChaosDir(c: ChaosCluster) {
  rmSync(join(c.databasePath, '..'), { recursive: true, force: true });
}
