/**
 * Addresses a host would share with another host: allowed, since two machines can sit
 * behind one NAT, but worth a warning, because every agent on either host can then connect from
 * that address. Compared in the canonical form the server stores (core/lib/ip.ts), so
 * `::ffff:10.0.0.5` and `10.0.0.5` are the same address.
 */
import { canonicalIp } from '../../../core/lib/ip.js';

export interface AddressOwner {
  host_id: string;
  name: string;
  addresses: readonly string[];
}

/** Each typed address that another host already has, once, with that host's name. */
export function sharedAddresses(
  typed: readonly string[],
  hosts: readonly AddressOwner[],
  self: string | null,
): { address: string; host: string }[] {
  const owners = new Map<string, string>();
  for (const host of hosts) {
    if (host.host_id === self) continue;
    for (const address of host.addresses) {
      const ip = canonicalIp(address);
      if (ip && !owners.has(ip)) owners.set(ip, host.name);
    }
  }
  const out: { address: string; host: string }[] = [];
  const seen = new Set<string>();
  for (const text of typed) {
    const ip = canonicalIp(text.trim());
    const host = ip ? owners.get(ip) : undefined;
    if (ip && host && !seen.has(ip)) {
      seen.add(ip);
      out.push({ address: ip, host });
    }
  }
  return out;
}
