import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import ipaddr from 'ipaddr.js';

/**
 * Who is on the other end (docs/decisions.md "Client addresses"). The socket's peer address, unless that peer
 * is a proxy listed in TRUSTED_PROXIES: then the right-most address of X-Forwarded-For that is not
 * itself a trusted proxy (the left part of the header is whatever the client chose to send), and
 * X-Forwarded-Proto says whether the request came over https. Otherwise both headers are ignored, so a
 * client cannot pick its own address or claim https.
 */
export interface TrustedProxies {
  /** The entries as configured, for messages. */
  readonly entries: readonly string[];
  has(address: string): boolean;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses TRUSTED_PROXIES: comma-separated addresses or CIDRs; throws on anything else. */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const entries = (raw ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  const ranges: Range[] = entries.map((e) => {
    try {
      if (e.includes('/')) {
        const [addr, bits] = ipaddr.parseCIDR(e);
        return [normalize(addr), addr.kind() === 'ipv6' && normalize(addr).kind() === 'ipv4' ? bits - 96 : bits];
      }
      const addr = normalize(ipaddr.parse(e));
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new Error(`TRUSTED_PROXIES: "${e}" is not an IP address or CIDR`);
    }
  });
  return {
    entries,
    has(address: string) {
      const a = parse(address);
      return !!a && ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net as never, bits));
    },
  };
}

/** IPv4-mapped IPv6 (::ffff:10.0.0.1, as dual-stack sockets report IPv4 peers) is the IPv4 address. */
function normalize(a: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // X-Forwarded-For hops may carry a port or IPv6 brackets ("[2001:db8::1]:443", "203.0.113.7:5000")
  let a = address.trim();
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracket) a = bracket[1];
  else if (/^[\d.]+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  if (!ipaddr.isValid(a)) return null;
  return normalize(ipaddr.parse(a));
}

function canonical(address: string): string {
  return parse(address)?.toString() ?? address;
}

function peerIsTrusted(req: IncomingMessage, trusted: TrustedProxies): boolean {
  return trusted.entries.length > 0 && !!req.socket.remoteAddress && trusted.has(req.socket.remoteAddress);
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(',') : v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

// A keep-alive connection carries many requests from one peer: its canonical address is worked out once
// (parsing an IPv4-mapped IPv6 peer costs about 12 µs, on every request otherwise).
const canonicalPeers = new WeakMap<object, string>();

function canonicalPeer(req: IncomingMessage): string {
  let known = canonicalPeers.get(req.socket);
  if (known === undefined) {
    known = canonical(req.socket.remoteAddress ?? 'unknown');
    if (req.socket.remoteAddress) canonicalPeers.set(req.socket, known);
  }
  return known;
}

/** The client address of a request, canonical (IPv4 dotted, IPv6 compressed). */
export function clientAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (!peerIsTrusted(req, trusted)) return canonicalPeer(req);
  let client = peer;
  const hops = headerValues(req, 'x-forwarded-for');
  for (let i = hops.length - 1; i >= 0; i--) {
    // a hop that is not an address is not something a trusted proxy wrote: stop at the last good one
    if (!parse(hops[i])) break;
    client = hops[i];
    if (!trusted.has(hops[i])) break;
  }
  return canonical(client);
}

/** Whether the request reached us over https: our own TLS socket, or a trusted proxy that says so. */
export function cameOverHttps(req: IncomingMessage, trusted: TrustedProxies): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  if (!peerIsTrusted(req, trusted)) return false;
  // the nearest proxy's word: the right-most value
  const proto = headerValues(req, 'x-forwarded-proto').at(-1)?.toLowerCase();
  return proto === 'https';
}
