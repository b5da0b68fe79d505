// Who the credential limits count. The limits themselves (their shape and numbers: contract/rate-limits.ts)
// live with the engine they run on, in memory on SQLite and as rows on PostgreSQL: db/stores/limits.ts
// opens the ones of this process (server/services.ts).
import ipaddr from 'ipaddr.js';

/**
 * What credential limits count a client address under. An IPv6 client is handed a whole /64 (often
 * far more) and can pick any address in it, so per-address limits on single IPv6 addresses would be no
 * limit at all: IPv6 counts per /64. IPv4 (and IPv4-mapped IPv6, the same client) counts per address.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  if (a.kind() === 'ipv4') return a.toString();
  const parts = (a as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
