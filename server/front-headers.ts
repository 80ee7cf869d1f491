/**
 * What the front forwards. The worker trusts `CF-Connecting-IP` for agent authentication, so no
 * client-sent header may name an address, and Miniflare interprets `MF-*` headers (a client
 * `MF-CF-Blob` or `MF-Original-URL` would steer it): every client copy of those is dropped and
 * the front sets its own from the TCP connection.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** The header the worker's frontGuard checks (worker/middleware/request-context.ts). */
export const FRONT_SECRET_HEADER = 'x-switchboard-front';

/** The public scheme on the worker's direct socket (workerd's HttpOptions.forwardedProtoHeader). */
export const FORWARDED_PROTO_HEADER = 'x-forwarded-proto';

/** Client headers that claim a client address or a proxy hop; none of them is believable here. */
const ADDRESS_HEADERS = new Set([
  'x-forwarded-for',
  'x-real-ip',
  'true-client-ip',
  'forwarded',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-client-ip',
]);

/** Connection-level headers (RFC 9110 §7.6.1): they describe one hop and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'http2-settings',
  // The front answers `Expect: 100-continue` itself; Miniflare must not see a second one.
  'expect',
]);

function isDroppedRequestHeader(name: string): boolean {
  return (
    name === 'host' ||
    name === FRONT_SECRET_HEADER ||
    name.startsWith('cf-') ||
    name.startsWith('mf-') ||
    ADDRESS_HEADERS.has(name) ||
    HOP_BY_HOP.has(name)
  );
}

/** Names a `Connection` header lists are hop-by-hop too. */
function connectionListed(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  if (!value) return new Set();
  return new Set(value.split(',').map((token) => token.trim().toLowerCase()));
}

/** `::ffff:a.b.c.d` (an IPv4 client of a dual-stack socket) is the IPv4 address it carries. */
export function peerAddress(remoteAddress: string | undefined): string {
  if (!remoteAddress) return '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress);
  return mapped ? (mapped[1] as string) : remoteAddress;
}

export interface ForwardContext {
  /** The TCP peer of the public connection. */
  remoteAddress: string | undefined;
  /** The per-boot front secret. */
  secret: string;
  /** The Host the client sent (validated by the front). */
  host: string;
  /** The URL the client asked for, as the worker must see it (scheme of the public listener). */
  originalUrl: string;
  /** To the worker's direct socket: no Miniflare entry worker reads `MF-*` headers there, and the
   *  URL the worker sees is built by workerd from Host and FORWARDED_PROTO_HEADER. */
  direct?: boolean;
}

/** The headers sent to Miniflare for one client request (Node lower-cases incoming names). */
export function forwardRequestHeaders(headers: IncomingHttpHeaders, context: ForwardContext): OutgoingHttpHeaders {
  const listed = connectionListed(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isDroppedRequestHeader(name) || listed.has(name)) continue;
    out[name] = value;
  }
  // The worker sees the public URL (so the session cookie is Secure under TLS and the same-origin
  // check compares the browser's Origin with the address the browser used) and the public Host.
  out.host = context.host;
  if (context.direct) {
    // Client copies are dropped above (ADDRESS_HEADERS); workerd builds the URL from this and Host.
    out[FORWARDED_PROTO_HEADER] = context.originalUrl.startsWith('https:') ? 'https' : 'http';
  } else {
    out['mf-original-url'] = context.originalUrl;
    // Miniflare would otherwise answer an uncaught exception with an HTML page showing the stack.
    out['mf-disable-pretty-error'] = 'true';
  }
  out['cf-connecting-ip'] = peerAddress(context.remoteAddress);
  out[FRONT_SECRET_HEADER] = context.secret;
  return out;
}

/** What the worker tells the front for its request log (worker/middleware/request-context.ts). */
export const LOG_HEADERS = { route: 'x-switchboard-log-route', actor: 'x-switchboard-log-actor' } as const;
const LOG_HEADER_PREFIX = 'x-switchboard-log-';

/**
 * Miniflare's answer as sent to the client: hop-by-hop and Miniflare-internal headers removed,
 * and the worker's log headers taken out into `internal` (they are for the front only).
 */
export function forwardResponseHeaders(rawHeaders: string[], internal?: Record<string, string>): [string, string][] {
  const pairs: [string, string][] = [];
  const listed = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'connection') {
      for (const token of (rawHeaders[i + 1] as string).split(',')) listed.add(token.trim().toLowerCase());
    }
  }
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower) || lower === 'transfer-encoding' || lower.startsWith('mf-')) {
      continue;
    }
    if (lower.startsWith(LOG_HEADER_PREFIX)) {
      if (internal) internal[lower] = rawHeaders[i + 1] as string;
      continue;
    }
    pairs.push([name, rawHeaders[i + 1] as string]);
  }
  return pairs;
}
