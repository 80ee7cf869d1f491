import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import { ApiError } from '../../core/contract/errors.js';
import { base64url, digestsEqual } from '../../core/lib/crypto.js';
import { canonicalIp } from '../../core/lib/ip.js';
import type { AppEnv } from '../handlers/types.js';

/** The header by which the self-host front proves a request came through it. */
export const FRONT_SECRET_HEADER = 'x-switchboard-front';

/** Worker-to-front headers for the self-host request log (never sent on to a client). */
export const LOG_ROUTE_HEADER = 'x-switchboard-log-route';
export const LOG_ACTOR_HEADER = 'x-switchboard-log-actor';

/** Gives every request an ID (`X-Request-Id`) and its client address. */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  // A tool call of `/mcp` is part of that request: its ID and address (worker/in-process.ts); the
  // headers below are for the front, which never sees the call's answer.
  const inProcess = c.get('inProcess');
  if (inProcess) {
    c.set('requestId', inProcess.requestId);
    c.set('clientIp', inProcess.clientIp);
    await next();
    return;
  }
  const requestId = `req_${base64url(crypto.getRandomValues(new Uint8Array(12)))}`;
  c.set('requestId', requestId);
  // On Cloudflare the edge sets CF-Connecting-IP and a client cannot override it; self-hosted,
  // the Node front strips every client copy and sets it from the TCP peer (see frontGuard).
  c.set('clientIp', canonicalIp(c.req.header('cf-connecting-ip') ?? '') ?? '');
  c.header('X-Request-Id', requestId);
  await next();
  c.header('X-Request-Id', requestId);
  // Self-hosted, the front writes the request log; only the worker knows the route template and
  // who asked. The front removes these headers before the answer leaves (server/front-headers.ts).
  if (c.env.FRONT_SECRET) {
    c.header(LOG_ROUTE_HEADER, routePath(c));
    const agent = c.get('agent');
    const admin = c.get('admin');
    if (agent) c.header(LOG_ACTOR_HEADER, `agent:${agent.agent_id}`);
    else if (admin) c.header(LOG_ACTOR_HEADER, `admin:${admin.username}`);
  }
});

/**
 * Self-hosted, the worker is reachable on Miniflare's loopback port, where a local process could
 * send its own CF-Connecting-IP. The front adds a per-boot secret; without it nothing is served.
 */
export const frontGuard = createMiddleware<AppEnv>(async (c, next) => {
  const secret = c.env.FRONT_SECRET;
  // A tool call of `/mcp` is made by the worker itself, after that request passed this check.
  if (secret && !c.get('inProcess')) {
    const presented = c.req.header(FRONT_SECRET_HEADER) ?? '';
    if (!digestsEqual(presented, secret)) {
      throw new ApiError('forbidden', 'Requests must come through the Switchboard front.');
    }
  }
  await next();
});
