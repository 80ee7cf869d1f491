/**
 * Sign-in throttling policy (docs/design/authentication.md, "Administrators"): pure rules, the registry keeps
 * the counters. Two independent limits, so that an attacker can neither guess fast nor lock the
 * real administrator out:
 *
 * - per source address: a few failures lock that address (only) for the rest of its window;
 * - per account: failures from every address together, with a delay that starts only after a
 *   generous number of failures, grows slowly and is capped low, and that addresses from which
 *   this administrator signed in recently do not wait for at all.
 */

/** Failures per source address within the window before that address waits out the window. */
export const ADDRESS_MAX_FAILURES = 5;
export const ADDRESS_WINDOW_MS = 15 * 60_000;

/** Failures per account (all addresses) before the account delay starts. */
export const ACCOUNT_FREE_FAILURES = 10;
/** The account delay doubles with every further failure from this, up to the cap. */
export const ACCOUNT_BASE_DELAY_MS = 1_000;
export const ACCOUNT_MAX_DELAY_MS = 30_000;
/** An account's counter is forgotten after this long without a failure. */
export const ACCOUNT_RESET_MS = 15 * 60_000;

/** Addresses an administrator signed in from are familiar for this long, at most this many. */
export const KNOWN_ADDRESS_TTL_MS = 30 * 24 * 60 * 60_000;
export const KNOWN_ADDRESSES_PER_ADMIN = 16;

/**
 * Counter rows kept at most: an attacker rotating addresses evicts the oldest address rows rather
 * than growing the table (the account limit still bounds such an attacker).
 */
export const MAX_THROTTLE_ROWS = 10_000;

/** How long an account waits after its latest failure, given its failure count (0 = no wait). */
export function accountDelayMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  const doublings = Math.min(failures - ACCOUNT_FREE_FAILURES, 30);
  return Math.min(ACCOUNT_BASE_DELAY_MS * 2 ** doublings, ACCOUNT_MAX_DELAY_MS);
}

/**
 * The key a source address is counted under: an IPv4 address itself, an IPv6 address by its /64
 * (one host usually owns a whole /64, so counting single IPv6 addresses would let it rotate
 * freely). `address` is canonical (core/lib/ip.ts): IPv4-mapped IPv6 is already IPv4.
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).join(':')}::/64`;
}
