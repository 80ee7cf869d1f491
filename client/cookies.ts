/**
 * A minimal cookie jar for the administrator session kept in a profile: the CLI talks to one
 * server per profile, so names are enough (no domain/path matching).
 */

interface SetCookie {
  name: string;
  value: string;
  /** The server asked to delete it (logout) or it is already expired. */
  removed: boolean;
}

export function parseSetCookie(header: string, now = Date.now()): SetCookie | undefined {
  const [pair, ...attributes] = header.split(';');
  const eq = pair?.indexOf('=') ?? -1;
  if (!pair || eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  let removed = value === '';
  for (const attribute of attributes) {
    const [rawKey, ...rest] = attribute.split('=');
    const key = rawKey?.trim().toLowerCase();
    const attrValue = rest.join('=').trim();
    if (key === 'max-age' && Number(attrValue) <= 0) removed = true;
    if (key === 'expires') {
      const at = Date.parse(attrValue);
      if (!Number.isNaN(at) && at <= now) removed = true;
    }
  }
  return { name, value, removed };
}

export function parseCookieHeader(jar: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (jar ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return cookies;
}

/** The jar after a response's Set-Cookie headers; undefined when it ends up empty. */
export function applySetCookies(jar: string | undefined, headers: readonly string[]): string | undefined {
  const cookies = parseCookieHeader(jar);
  for (const header of headers) {
    const cookie = parseSetCookie(header);
    if (!cookie) continue;
    if (cookie.removed) cookies.delete(cookie.name);
    else cookies.set(cookie.name, cookie.value);
  }
  if (cookies.size === 0) return undefined;
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}
