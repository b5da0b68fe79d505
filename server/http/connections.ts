import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError } from '../errors';
import { log } from '../log';
import { addressKey } from '../rate-limit';
import type { TrustedProxies } from './client-address';
import { restErrorBody } from './presenter';

/**
 * How often Node looks for connections past headersTimeout or requestTimeout. Node 20 checks on an
 * interval (connectionsCheckingInterval, 30 s by default), so a 10 s headers timeout really let a
 * slow-header client hold its socket up to 40 s. A tenth of the shorter timeout, between 50 and 500 ms,
 * keeps both within half a second of what is configured; the check walks only the connections still
 * reading a request, in C++, so running it twice a second costs nothing noticeable.
 */
export function connectionsCheckingInterval(headersTimeoutMs: number, requestTimeoutMs: number): number {
  const shorter = Math.min(...[headersTimeoutMs, requestTimeoutMs].filter((t) => t > 0));
  return Number.isFinite(shorter) ? Math.min(500, Math.max(50, Math.floor(shorter / 10))) : 500;
}

export interface ConnectionCaps {
  /** MAX_CONNECTIONS: open connections in total; past it a new one is answered 503. */
  total: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address (an IPv6 /64); past it, 429. */
  perAddress: number;
  /**
   * Peers exempt from the per-address cap: the trusted proxies (TRUSTED_PROXIES). Every connection
   * through a proxy comes from the proxy's address, so capping it would cap all its clients together;
   * they still count toward the total, and the proxy is where per-client connection limits belong.
   */
  trusted: TrustedProxies;
  now: () => Date;
}

/** How long a refused socket may stay open for its answer to reach the client before it is destroyed. */
const REFUSED_LINGER_MS = 1_000;
/** At most one log line per this long about refused connections (an attack would otherwise flood the log). */
const REFUSAL_LOG_EVERY_MS = 10_000;

/**
 * Caps the open connections of `server`, in total and per client address, before HTTP sees them. A
 * refused connection gets one answer in the payments error envelope, written without reading its
 * request (429 past the per-address cap, 503 past the total, both `retry-after: 1` and
 * `connection: close`), and never reaches the request handler. Node's own `maxConnections` would
 * only drop the socket, which a client cannot tell from a network fault.
 *
 * The per-address cap keys on the socket's peer (an IPv6 client per /64, as the credential limits do):
 * the X-Forwarded-For of a request is not known when the connection opens.
 */
export function capConnections(server: Server, caps: ConnectionCaps): { open: () => number; openFrom: (address: string) => number } {
  // Refusing before HTTP means taking over the 'connection' event from http.Server's own listener,
  // calling it only for the sockets admitted. Stop at start if Node ever registers it differently.
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) throw new Error(`capConnections: expected http.Server's one connection listener, found ${listeners.length}`);
  const [http] = listeners as ((socket: Socket) => void)[];
  server.removeListener('connection', http);

  let open = 0;
  const perAddress = new Map<string, number>();
  let refusedSinceLog = 0;
  let lastLog = 0;

  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const key = addressKey(peer);
    const exempt = caps.trusted.entries.length > 0 && caps.trusted.has(peer);
    const fromPeer = perAddress.get(key) ?? 0;
    if (open >= caps.total) return refuse(socket, new DomainError('TOO_MANY_CONNECTIONS', `the server has ${caps.total} connections open, its limit; retry shortly`, { retryAfterSeconds: 1 }), key);
    if (!exempt && fromPeer >= caps.perAddress) {
      return refuse(socket, new DomainError('RATE_LIMITED', `at most ${caps.perAddress} open connections per client address; close one (or reuse it with keep-alive) and retry`, { retryAfterSeconds: 1 }), key);
    }
    open += 1;
    perAddress.set(key, fromPeer + 1);
    socket.once('close', () => {
      open -= 1;
      const left = (perAddress.get(key) ?? 1) - 1;
      if (left > 0) perAddress.set(key, left); else perAddress.delete(key);
    });
    http.call(server, socket);
  });

  function refuse(socket: Socket, err: DomainError, key: string) {
    const body = JSON.stringify(restErrorBody(err, 'payments', caps.now()));
    const reason = err.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
    socket.on('error', () => {}); // a client that resets while we answer is no news
    // read and drop whatever the client sends, so closing does not reset the connection before it reads the answer
    socket.resume();
    socket.end(`HTTP/1.1 ${err.status} ${reason}\r\ncontent-type: application/json\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\n`
      + `retry-after: ${err.extra.retryAfterSeconds}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    // http.Server allows half-open sockets: without this a client that never closes would keep it
    const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
    refusedSinceLog += 1;
    const now = Date.now();
    if (now - lastLog >= REFUSAL_LOG_EVERY_MS) {
      log.warn({ refused: refusedSinceLog, open, from: key, status: err.status, max_connections: caps.total, max_connections_per_address: caps.perAddress }, 'connections refused: over the cap');
      lastLog = now;
      refusedSinceLog = 0;
    }
  }

  return { open: () => open, openFrom: (address) => perAddress.get(addressKey(address)) ?? 0 };
}
