/**
 * The Switchboard worker: the API under /api/v1 (generated from the operation registry), the
 * remote MCP server at /mcp, and the admin console's static assets for everything else. The same
 * bundle runs on Cloudflare and, self-hosted, inside Miniflare behind the Node front (server).
 */

import { WorkerEntrypoint } from 'cloudflare:workers';
import type { Env } from '../core/env.js';
import { createApp } from './app.js';

export { AgentDO } from '../durable-objects/agent/agent-do.js';
export { ChannelDO } from '../durable-objects/channel/channel-do.js';
export { GroupCatalogDO } from '../durable-objects/group-catalog/group-catalog-do.js';
export { RegistryDO } from '../durable-objects/registry/registry-do.js';
export { RetentionDO } from '../durable-objects/retention/retention-do.js';

const app = createApp();

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith('/api/') || pathname === '/openapi.json' || pathname === '/mcp' || !env.ASSETS) {
      return app.fetch(request, env, ctx);
    }
    return env.ASSETS.fetch(request);
  },
} satisfies ExportedHandler<Env>;

/**
 * The API alone, as a named entrypoint. Self-hosted, the Node front sends the worker's own paths
 * (`run_worker_first` above) to a Miniflare direct socket bound to this entrypoint (server/
 * worker-runtime.ts), so that those requests skip the three isolates in front of the default
 * entrypoint (Miniflare's `core:entry`, the assets proxy and the assets router). Nothing else is
 * served here: no console asset, and every path, known or not, passes the front-secret check
 * (frontGuard). On Cloudflare nothing routes here.
 */
export class FrontEntrypoint extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Response | Promise<Response> {
    return app.fetch(request, this.env, this.ctx);
  }
}
