import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** HAProxy in front of the instances on 127.0.0.1: `npm run cluster` (scripts/cluster.ts) and `npm run chaos` (scripts/chaos.ts). */
export const HAPROXY = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';

export type Balance = 'credentials' | 'roundrobin';

/** HAProxy from Debian: installed with apt when missing and we are root, otherwise one clear line. */
export function requireHaproxy() {
  if (existsSync(HAPROXY)) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log("Installing Debian's haproxy for the cluster's load balancer…");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const ok = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env }).status === 0
      && spawnSync('apt-get', ['install', '-y', '-qq', 'haproxy'], { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
    if (ok && existsSync(HAPROXY)) return;
  }
  console.error(`this command needs HAProxy (${HAPROXY}): sudo apt-get update && sudo apt-get install -y haproxy`);
  process.exit(1);
}

export function haproxyConfig(o: { port: number; statsPort: number; instances: number[]; balance: Balance }): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-request 10s',
    // the client's address reaches the instances (they trust 127.0.0.1 through TRUSTED_PROXIES)
    '  option forwardfor',
    'frontend api',
    `  bind 127.0.0.1:${o.port}`,
    '  default_backend instances',
    'backend instances',
    // by credentials: a consistent hash keeps a merchant on its instance while others join or leave
    ...(o.balance === 'credentials' ? ['  balance hdr(authorization)', '  hash-type consistent'] : ['  balance roundrobin']),
    '  option httpchk',
    '  http-check send meth GET uri /healthz',
    '  http-check expect status 200',
    ...o.instances.map((p, i) => `  server i${i + 1} 127.0.0.1:${p} check inter 1s fall 2 rise 1`),
    // per-instance counters (requests, state) for a person or a test on this machine; not the API's port
    'listen stats',
    `  bind 127.0.0.1:${o.statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '  stats refresh 5s',
    '',
  ].join('\n');
}

/** Each output line of a child, prefixed with its name. */
export function relay(child: ChildProcess, name: string) {
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (c: Buffer) => {
      const lines = (rest + c.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) process.stdout.write(`[${name}] ${l}\n`);
    });
  }
}

/** Waits until HAProxy's health checks see every instance UP. */
export async function allUp(statsCsv: string, count: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const csv = await (await fetch(statsCsv)).text();
      const up = csv.split('\n').filter((l) => /^instances,i\d+,/.test(l) && l.split(',')[17] === 'UP').length;
      if (up === count) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error('HAProxy did not see every instance healthy within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}
