import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A small TCP proxy on 127.0.0.1 that a fault campaign puts between a client and a server (scripts/chaos.ts:
 * between an instance and PostgreSQL), so it can take the network away without touching either process:
 * `pause()` holds every byte in both directions (connections stay open: a stalled network, not a closed
 * one) until `resume()` delivers them in order; `cut()` resets every connection open now. New connections
 * made while paused are accepted and wait for `resume()` before they reach the server.
 */
export interface TcpProxy {
  /** The port clients connect to. */
  port: number;
  pause(): void;
  resume(): void;
  /** Destroys every open connection, on both sides; later connections go through as usual. */
  cut(): void;
  /** The local ports of the proxy's connections to the server: what the server sees as the clients' ports. */
  upstreamPorts(): number[];
  /** Connections open now. */
  open(): number;
  close(): Promise<void>;
}

interface Pair { client: Socket; server: Socket | null; held: { to: 'client' | 'server'; chunk: Buffer }[] }

export function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let paused = false;
  const waiting: (() => void)[] = [];

  const send = (p: Pair, to: 'client' | 'server', chunk: Buffer) => {
    if (paused || p.held.length > 0) { p.held.push({ to, chunk }); return; }
    (to === 'client' ? p.client : p.server!).write(chunk);
  };
  const drop = (p: Pair) => {
    if (!pairs.delete(p)) return;
    p.client.destroy();
    p.server?.destroy();
  };
  const link = (p: Pair) => {
    const server = connect(target.port, target.host);
    p.server = server;
    server.setNoDelay(true);
    server.on('data', (c: Buffer) => send(p, 'client', c));
    server.on('error', () => drop(p));
    server.on('close', () => drop(p));
  };

  const listener: Server = createServer((client) => {
    client.setNoDelay(true);
    const p: Pair = { client, server: null, held: [] };
    pairs.add(p);
    // bytes a client sends before its server connection exists are held like paused ones
    client.on('data', (c: Buffer) => { if (p.server) send(p, 'server', c); else p.held.push({ to: 'server', chunk: c }); });
    client.on('error', () => drop(p));
    client.on('close', () => drop(p));
    if (paused) waiting.push(() => link(p));
    else link(p);
  });

  return new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => {
      const { port } = listener.address() as { port: number };
      resolve({
        port,
        pause() { paused = true; },
        resume() {
          paused = false;
          for (const start of waiting.splice(0)) start();
          for (const p of pairs) {
            if (!p.server) continue;
            for (const { to, chunk } of p.held.splice(0)) (to === 'client' ? p.client : p.server).write(chunk);
          }
        },
        cut() { for (const p of [...pairs]) drop(p); },
        upstreamPorts: () => [...pairs].map((p) => p.server?.localPort).filter((x): x is number => typeof x === 'number'),
        open: () => pairs.size,
        close: () => new Promise<void>((done) => {
          for (const p of [...pairs]) drop(p);
          listener.close(() => done());
        }),
      });
    });
  });
}
