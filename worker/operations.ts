/**
 * The operations endpoints at the root (api-v1.md "Operations"): `/healthz` says the worker runs
 * (no authentication, no storage, nothing stored), `/readyz` that storage answers too, and
 * `/metrics` the Prometheus text (metrics.ts), behind the administrator's scrape token.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../core/contract/errors.js';
import { registry, retention } from '../core/stubs.js';
import type { AppEnv } from './handlers/types.js';
import { countRequest, renderMetrics } from './metrics.js';

/**
 * Counts every answer by method, route pattern (never the raw path, so the label set stays
 * bounded) and status class, and its duration.
 */
/** The bench's request header (core/env.ts BENCH_METRICS_SWITCH); ignored everywhere else. */
export const BENCH_METRICS_HEADER = 'x-switchboard-bench-metrics';

/** True only for a bench request that asked not to be counted. */
export function uncounted(c: Context<AppEnv>): boolean {
  return c.env.BENCH_METRICS_SWITCH === '1' && c.req.header(BENCH_METRICS_HEADER) === 'off';
}

export const requestMetrics = createMiddleware<AppEnv>(async (c, next) => {
  // A tool call of `/mcp` is no request of a client's: the `/mcp` request is counted (its events,
  // countEvents, are counted as the operation's).
  if (c.get('inProcess') || uncounted(c)) return next();
  const started = performance.now();
  try {
    await next();
  } finally {
    const route = c.req.routePath;
    countRequest(
      c.req.method,
      route.includes('*') ? 'unmatched' : route,
      c.res.status,
      (performance.now() - started) / 1000,
    );
  }
});

export function mountOperations(app: OpenAPIHono<AppEnv>): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await registry(c.env).ready();
      return c.json({ status: 'ready' });
    } catch {
      return c.json({ status: 'unavailable' }, 503);
    }
  });
  app.get('/metrics', async (c) => {
    const bearer = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? null;
    const answer = await registry(c.env).scrapeMetrics(bearer);
    if (answer.state === 'off')
      throw new ApiError('not_found', 'Metrics are off: an administrator creates a metrics token.');
    if (answer.state === 'refused') {
      c.header('WWW-Authenticate', 'Bearer');
      throw new ApiError('unauthenticated', 'A valid metrics token is required (Authorization: Bearer <token>).');
    }
    const store = retention(c.env);
    const [cleanup, catalog, backlog] = await Promise.all([
      store.cleanupStatus(),
      store.catalogTotals(),
      store.fleetBacklog(1),
    ]);
    return c.body(renderMetrics({ agents: answer.agents, refusals: answer.refusals, cleanup, catalog, backlog }), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
    });
  });
}
