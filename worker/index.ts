/**
 * The Switchboard worker: the API under /api/v1 (generated from the operation registry), the
 * remote MCP server at /mcp, the operations endpoints (/healthz, /readyz, /metrics), and the admin
 * console: its files (served by the asset layer before the worker runs), its page for each of its
 * client-side routes, and a 404 JSON answer for every other path. The same bundle runs on
 * Cloudflare and, self-hosted, inside Miniflare behind the Node front (server).
 */

import { WorkerEntrypoint } from 'cloudflare:workers';
import { isConsolePage, isWorkerPath } from '../core/domain/console-pages.js';
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
    const url = new URL(request.url);
    // The asset layer has already answered every file of dist/admin; what reaches here is a worker
    // path, a console route (its page is index.html) or nothing we serve (the app's 404 JSON).
    if (isWorkerPath(url.pathname) || !env.ASSETS || !isConsolePage(url.pathname)) {
      return app.fetch(request, env, ctx);
    }
    return env.ASSETS.fetch(new Request(new URL('/', url), request));
  },
} satisfies ExportedHandler<Env>;

/**
 * The API alone, as a named entrypoint. Self-hosted, the Node front sends the worker's own paths
 * (core/domain/console-pages.ts, wrangler.toml `run_worker_first`) to a Miniflare direct socket bound to this entrypoint (server/
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
