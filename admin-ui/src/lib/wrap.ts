/**
 * How a name or an address may wrap. Short ones (an IPv4 address, a usual host or agent name)
 * never break: a squeezed table column must not cut `192.168.1.20` in two. A name longer than
 * that may break where it must, or a 64-character agent name or a 100-character host name would
 * push the page sideways; an IPv6 address breaks only after a colon.
 */
export const NO_BREAK_UP_TO = 24;

/** The CSS class for a name: `nobreak` (shared.ts) when short, `token` (break anywhere) when long. */
export function nameClass(text: string): 'nobreak' | 'token' {
  return text.length > NO_BREAK_UP_TO ? 'token' : 'nobreak';
}

/** An address cut into the pieces between which it may break (after each colon of an IPv6 one). */
export function addressPieces(address: string): string[] {
  if (address.length <= NO_BREAK_UP_TO || !address.includes(':')) return [address];
  return address.split(/(?<=:)/);
}
