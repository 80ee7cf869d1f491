import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../contract/errors.js';
import type { AppEnv } from '../handlers/types.js';
import { agentIdOfKey, pepperOf } from '../lib/api-key.js';
import { keyedHash } from '../lib/crypto.js';
import { registry } from '../lib/settings-cache.js';

export const SESSION_COOKIE = 'switchboard_session';

const UNAUTHENTICATED = 'Missing, unknown or revoked API key, or disabled agent.';

/**
 * Agent routes: the bearer key and the client address, both required. The key names its agent,
 * so the check is one call to that agent's Durable Object; a malformed key is checked against a
 * placeholder object so that every key failure costs the same and answers the same body.
 */
export const requireAgent = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('authorization') ?? '';
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
  const agentId = agentIdOfKey(key) ?? 'agt_placeholder';
  const keyHash = await keyedHash(pepperOf(c.env), key);
  const stub = c.env.AGENT.get(c.env.AGENT.idFromName(agentId));
  const result = await stub.authenticate(keyHash, c.get('clientIp'));
  if (result.status === 'unauthenticated') throw new ApiError('unauthenticated', UNAUTHENTICATED);
  if (result.status === 'source_ip_denied') {
    // The address the server saw goes back to the caller (it is the caller's own), so a NAT,
    // proxy or IPv4/IPv6 mix-up is visible without server logs.
    const seen = c.get('clientIp');
    throw new ApiError('source_ip_denied', `This address (${seen}) is not one of the agent's host addresses.`, {
      target: seen,
    });
  }
  c.set('agent', result.agent);
  await next();
});

/** Admin routes: a live session cookie. An agent key never opens them. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) throw new ApiError('unauthenticated', 'Sign in as an administrator.');
  const session = await registry(c.env).touchSession(await keyedHash(pepperOf(c.env), token));
  if (!session) throw new ApiError('unauthenticated', 'The session has ended; sign in again.');
  c.set('admin', session);
  await next();
});
