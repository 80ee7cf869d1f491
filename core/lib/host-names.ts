/**
 * The names a self-hosted server answers to (docs/security.md, "Host and Origin"): a browser page
 * on a name the attacker controls can resolve it to this server (DNS rebinding), and then its
 * requests carry that name in Host and in Origin, so comparing one with the other proves nothing.
 * The launcher passes the list (bound host, machine addresses and name, configured names); the
 * loopback names are always in it. On Cloudflare there is no list: the edge routes only the
 * names the zone serves, so the request URL's host is trustworthy there.
 */
import { canonicalIp } from './ip.js';

/** The host name of a Host header or URL host (`[::1]:8787` -> `::1`), lower case; null if malformed. */
export function hostnameOf(host: string): string | null {
  const value = host.trim().toLowerCase();
  if (value === '') return null;
  let name: string;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || (end + 1 < value.length && !/^:\d{1,5}$/.test(value.slice(end + 1)))) return null;
    name = value.slice(1, end);
  } else {
    const colon = value.indexOf(':');
    if (colon >= 0 && (value.indexOf(':', colon + 1) >= 0 || !/^\d{1,5}$/.test(value.slice(colon + 1)))) return null;
    name = colon >= 0 ? value.slice(0, colon) : value;
  }
  name = name.replace(/\.$/, '');
  return name === '' ? null : (canonicalIp(name) ?? name);
}

/** localhost, any name under .localhost (RFC 6761), 127.0.0.0/8 and ::1. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The configured list as the worker receives it: names or addresses, comma- or space-separated. */
export function parseHostList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(/[\s,]+/)
    .map((item) => hostnameOf(item))
    .filter((item): item is string => item !== null);
}

/** Whether `host` (a Host header) names this server: always, when there is no list (Cloudflare). */
export function answersTo(host: string | undefined, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  if (host === undefined) return false;
  const name = hostnameOf(host);
  if (name === null) return false;
  return isLoopbackName(name) || allowed.includes(name);
}
