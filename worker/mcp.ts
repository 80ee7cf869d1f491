/**
 * `/mcp`: the remote MCP server (mcp/remote.ts) on the worker, authenticated exactly like the API
 * (requireAgent: the bearer key and the host's source addresses, the same 401/403 bodies). Each
 * tool call is one request to this same app, made in-process with the caller's key, client address
 * and (self-hosted) front secret: no network hop, and every rule of the API applies unchanged.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { type ApiCall, handleRemoteMcp } from '../mcp/remote.js';
import type { AppEnv } from './handlers/types.js';
import { requireAgent } from './middleware/auth.js';
import { FRONT_SECRET_HEADER } from './middleware/request-context.js';
import { sameOriginWrites } from './middleware/same-origin.js';
import { API_BASE } from './openapi.js';

export const MCP_PATH = '/mcp';

function inProcessApi(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>): ApiCall {
  const outer = c.req.raw;
  let ctx: ExecutionContext | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // No execution context (the app called directly in a test).
  }
  return (method, path, body) => {
    const headers = new Headers();
    const authorization = outer.headers.get('authorization');
    if (authorization) headers.set('authorization', authorization);
    // The address the outer request was authenticated from, canonical (requestContext).
    headers.set('cf-connecting-ip', c.get('clientIp'));
    const secret = outer.headers.get(FRONT_SECRET_HEADER);
    if (secret) headers.set(FRONT_SECRET_HEADER, secret);
    let payload: BodyInit | undefined;
    if (body && 'json' in body) {
      headers.set('content-type', 'application/json');
      payload = JSON.stringify(body.json);
    } else if (body) {
      payload = body.form;
    }
    const request = new Request(new URL(API_BASE + path, outer.url), { method, headers, body: payload });
    return Promise.resolve(app.fetch(request, c.env, ctx));
  };
}

/**
 * A 401 names the one scheme we take, with no OAuth parameters: a client that finds no
 * `resource_metadata` here does not start an OAuth flow and shows our `unauthenticated` error.
 */
const bearerChallenge = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status === 401) c.res.headers.set('WWW-Authenticate', 'Bearer');
});

export function mountRemoteMcp(app: OpenAPIHono<AppEnv>): void {
  // Tool calls change state, so a foreign browser Origin is refused as on every API write (the
  // MCP specification asks servers to check Origin against DNS rebinding); MCP clients that are
  // not browsers send none.
  app.all(MCP_PATH, bearerChallenge, sameOriginWrites, requireAgent, (c) =>
    handleRemoteMcp(c.req.raw, inProcessApi(app, c)),
  );
}
