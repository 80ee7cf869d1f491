import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/contract/errors.js';
import { answersTo, parseHostList } from '../../core/lib/host-names.js';
import type { AppEnv } from '../handlers/types.js';

let parsedFrom: string | undefined;
let parsed: readonly string[] | undefined;

/** The names the server answers to (core/lib/host-names.ts), parsed once per isolate. */
function allowedHosts(c: Context<AppEnv>): readonly string[] | undefined {
  const text = c.env.ALLOWED_HOSTS;
  if (text !== parsedFrom) {
    parsed = parseHostList(text);
    parsedFrom = text;
  }
  return parsed;
}

/** The request's Host is one of the server's own names (DNS rebinding sends a foreign one). */
function checkHost(c: Context<AppEnv>): void {
  if (!answersTo(new URL(c.req.url).host, allowedHosts(c))) {
    throw new ApiError(
      'forbidden',
      'This server does not answer to that host name (a self-hosted server lists its names in SWITCHBOARD_ALLOWED_HOSTS).',
    );
  }
}

/**
 * A browser's Origin must be this server's own, scheme included: its scheme and Host, with Host
 * one of the server's names. Comparing Origin with Host alone proves nothing under DNS
 * rebinding, where the attacker's name is in both.
 */
function checkOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header('origin');
  if (origin === undefined) return;
  let theirs: string | null = null;
  try {
    theirs = origin === 'null' ? null : new URL(origin).origin;
  } catch {
    theirs = null;
  }
  if (theirs !== new URL(c.req.url).origin) {
    throw new ApiError('forbidden', 'Cross-origin requests may not change state.');
  }
  checkHost(c);
}

/**
 * Cross-site request forgery guard for state-changing requests: a browser always sends Origin on
 * a cross-site POST/PATCH/DELETE, so a foreign Origin is refused. Agents (no browser) send none.
 */
export const sameOriginWrites = createMiddleware<AppEnv>(async (c, next) => {
  checkOrigin(c);
  await next();
});

/**
 * `/mcp`: the MCP specification asks servers to guard against DNS rebinding, so Host is checked
 * on every request, with or without a browser's Origin, and Origin (when sent) as for writes.
 */
export const ownHostAndOrigin = createMiddleware<AppEnv>(async (c, next) => {
  checkHost(c);
  checkOrigin(c);
  await next();
});
