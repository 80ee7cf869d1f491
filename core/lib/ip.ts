/**
 * Exact IP addresses, the only host identity Switchboard accepts: no CIDR ranges, no DNS names,
 * no zone IDs. Every address is stored and compared in one canonical text form (RFC 5952 for
 * IPv6), and an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is the IPv4 address it carries.
 *
 * Hand-written rather than `ipaddr.js` (2.5.0, evaluated; it would run in workerd,
 * the CLI and the launcher, being plain JavaScript). Compared on the same inputs
 * (test/node/ip.test.ts), it reads `::1.2.3.4` as `::ffff:1.2.3.4`, folding a distinct IPv6
 * address onto an IPv4 host of the allowlist, and accepts leading zeros and hex inside an
 * embedded dotted quad (`::ffff:010.2.3.4` becomes 10.2.3.4), which our leading-zero rule exists
 * to refuse. Guarding both means parsing the address ourselves first, i.e. this module again,
 * plus 38 KB of library in the worker bundle.
 */

function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    // No leading zeros: "010" means 8 to some parsers and 10 to others.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    bytes.push(n);
  }
  return bytes;
}

function parseIpv6(text: string): number[] | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(piece)) return null;
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return null;
  // A dotted quad may only end the address.
  if (halves.length === 2 && (halves[0] as string).includes('.')) return null;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    groups = head;
  }
  return groups.length === 8 ? groups : null;
}

function formatIpv6(groups: number[]): string {
  // RFC 5952: compress the longest run (length >= 2) of zero groups, the first one on ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/**
 * The canonical form of an exact IP address, or null when `text` is not one. `[::1]` brackets
 * are accepted (clients and URLs use them); CIDR suffixes, zone IDs and host names are not.
 */
export function canonicalIp(text: string): string | null {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  if (value === '') return null;
  if (!value.includes(':')) {
    const v4 = parseIpv4(value);
    return v4 ? v4.join('.') : null;
  }
  const groups = parseIpv6(value);
  if (!groups) return null;
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return formatIpv6(groups);
}
