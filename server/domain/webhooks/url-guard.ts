import { promises as dnsPromises, lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressClass = 'public' | 'private';

/**
 * Parses a host as an IP literal the way WHATWG URL (and inet_aton) read IPv4: 1–4 dot-separated
 * parts, each decimal, `0x` hex or leading-zero octal, the last part filling the remaining bytes
 * (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`). IPv6 may be bracketed. Returns the
 * canonical address (dotted quad or compressed IPv6) or null when the host is not an IP literal.
 */
export function parseHostLiteral(host: string): string | null {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.includes(':')) {
    if (!isIPv6(h)) return null;
    return ipaddr.IPv6.parse(h).toString();
  }
  const parts = h.split('.');
  // WHATWG tolerates one trailing dot ("127.0.0.1.").
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Number(part);
    if (n === null) return null;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function parseIPv4Number(part: string): number | null {
  if (part === '') return null;
  let s = part;
  let radix = 10;
  if (/^0x/i.test(s)) {
    s = s.slice(2);
    radix = 16;
  } else if (s.length > 1 && s.startsWith('0')) {
    s = s.slice(1);
    radix = 8;
  }
  if (s === '') return 0; // WHATWG: "0x" alone is 0
  const digits = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!digits.test(s)) return null;
  const n = parseInt(s, radix);
  // Anything beyond 2^32 is rejected by the caller; guard against precision games anyway.
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/**
 * 'public' only for globally routable unicast (allow-list: everything ipaddr.js does not call
 * plain 'unicast' — loopback, RFC 1918, link-local, CGNAT, multicast, broadcast, reserved,
 * unique-local, documentation, 6to4/teredo, … — is 'private'). IPv4-mapped / translated / NAT64
 * IPv6 addresses are judged by the IPv4 address inside. Unparseable input is 'private' (fail closed).
 */
export function classifyAddress(ip: string): AddressClass {
  const literal = parseHostLiteral(ip);
  if (literal === null) return 'private';
  const addr = ipaddr.parse(literal);
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast' ? 'public' : 'private';
  const v6 = addr as ipaddr.IPv6;
  const p = v6.parts;
  const range = v6.range();
  const embeddedV4 = () => `${p[6] >> 8}.${p[6] & 255}.${p[7] >> 8}.${p[7] & 255}`;
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated) reach the IPv4 host directly.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return classifyAddress(embeddedV4());
  // 64:ff9b::/96 is the well-known NAT64 prefix; a local NAT64 gateway would forward to the v4 inside.
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return classifyAddress(embeddedV4());
  }
  // ::/96 (incl. ::, ::1 and deprecated IPv4-compatible ::a.b.c.d) is never a public target.
  if (p.slice(0, 6).every((x) => x === 0)) return 'private';
  return range === 'unicast' ? 'public' : 'private';
}

export type CheckResult = { ok: true; url: URL } | { ok: false; reason: string };

export interface CheckOptions {
  allowPrivate: boolean;
  /** Resolver override (tests); defaults to dns.promises.lookup(host, {all: true}). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

const defaultResolve = (host: string) => dnsPromises.lookup(host, { all: true });

/**
 * Registration-time check of a webhook/postback URL. Scheme and credential rules always apply;
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_URLS) only skips the address checks.
 */
export async function checkWebhookUrl(raw: string, opts: CheckOptions): Promise<CheckResult> {
  let url: URL;
  try {
    // WHATWG parsing already canonicalises decimal/hex/octal/short IPv4 hosts to dotted quads.
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'only http and https URLs are allowed' };
  }
  // Userinfo would be sent as Basic auth and shown in listings; refuse it outright.
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  if (url.hostname === '') return { ok: false, reason: 'hostname required' };
  if (opts.allowPrivate) return { ok: true, url };

  const literal = parseHostLiteral(url.hostname);
  if (literal !== null) {
    return classifyAddress(literal) === 'public'
      ? { ok: true, url }
      : { ok: false, reason: 'URL points to a private or reserved address' };
  }
  let addrs: LookupAddress[];
  try {
    addrs = await (opts.resolve ?? defaultResolve)(url.hostname);
  } catch {
    return { ok: false, reason: 'hostname does not resolve' };
  }
  if (addrs.length === 0) return { ok: false, reason: 'hostname does not resolve' };
  // ANY private answer refuses: the connect could pick that one (and round-robin DNS tricks).
  if (addrs.some((a) => classifyAddress(a.address) !== 'public')) {
    return { ok: false, reason: 'hostname resolves to a private or reserved address' };
  }
  return { ok: true, url };
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export type GuardedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for net/http(s) `request` that refuses (code EPRIVATEADDRESS) when any resolved
 * address is not public, so the policy holds at connect time even if DNS changed since
 * registration (rebinding). Honours `options.all` because Node 20's autoSelectFamily asks for it.
 * Note: Node never calls `lookup` for IP-literal hosts; callers must check those themselves.
 */
export function guardedLookup(allowPrivate: boolean): GuardedLookup {
  return (hostname, options, callback) => {
    const opts: LookupOptions = typeof options === 'object' && options !== null ? options : {};
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, opts.all ? [] : '', undefined);
      if (addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`no addresses for host`);
        e.code = 'ENOTFOUND';
        return callback(e, opts.all ? [] : '', undefined);
      }
      if (!allowPrivate && addresses.some((a) => classifyAddress(a.address) !== 'public')) {
        const e: NodeJS.ErrnoException = new Error('refused: host resolves to a private or reserved address');
        e.code = 'EPRIVATEADDRESS';
        return callback(e, opts.all ? [] : '', undefined);
      }
      if (opts.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
