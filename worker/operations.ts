/**
 * The operations endpoints at the root (api-v1.md "Operations"): `/healthz` says the worker runs
 * (no authentication, no storage, nothing stored), `/readyz` that storage answers too.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { registry } from '../core/lib/settings-cache.js';
import type { AppEnv } from './handlers/types.js';

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
}
