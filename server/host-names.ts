/**
 * The names this server answers to, handed to the worker's Host and Origin checks
 * (core/lib/host-names.ts, docs/security.md "Host and Origin"): the host it is bound to, every
 * address of this machine and its host name, and the names an operator lists in
 * SWITCHBOARD_ALLOWED_HOSTS (a DNS name of the machine, a reverse proxy's public name). The
 * loopback names are always accepted by the worker itself.
 */
import { hostname, networkInterfaces } from 'node:os';

export function serverNames(boundHost: string, configured: string | undefined): string[] {
  const names = new Set<string>();
  const add = (name: string | undefined) => {
    const trimmed = name?.trim().toLowerCase();
    if (trimmed) names.add(trimmed);
  };
  add(boundHost);
  const machine = hostname();
  add(machine);
  if (!machine.includes('.')) add(`${machine}.local`);
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) add(entry.address.replace(/%.*$/, ''));
  }
  for (const item of (configured ?? '').split(/[\s,]+/)) add(item);
  return [...names];
}
