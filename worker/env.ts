import type { AgentDO } from '../durable-objects/agent/agent-do.js';
import type { ChannelDO } from '../durable-objects/channel/channel-do.js';
import type { GroupCatalogDO } from '../durable-objects/group-catalog/group-catalog-do.js';
import type { RegistryDO } from '../durable-objects/registry/registry-do.js';
import type { RetentionDO } from '../durable-objects/retention/retention-do.js';

export interface Env {
  /** The one registry: hosts, agents, settings, administrators. Admin traffic and the directory. */
  REGISTRY: DurableObjectNamespace<RegistryDO>;
  /** One per agent: credentials, host addresses, the inbox index. Carries the per-request auth. */
  AGENT: DurableObjectNamespace<AgentDO>;
  /** One per channel (`dm_…` pair or `grp_…` group): messages, deliveries, claims, dedup. */
  CHANNEL: DurableObjectNamespace<ChannelDO>;
  /** One (`groups`): the administrators' list of groups, fed by the group channels' outboxes. */
  GROUPS: DurableObjectNamespace<GroupCatalogDO>;
  /**
   * One (`idFromName('retention')`): upload admission and staged objects, the channel catalog,
   * retroactive cleanup and deletion health.
   */
  RETENTION: DurableObjectNamespace<RetentionDO>;
  /** Attachment bytes: one object per message attachment. */
  FILES: R2Bucket;
  /** The built admin console (wrangler `[assets]`). */
  ASSETS?: Fetcher;
  /** Secret key for the keyed hashes of API keys and tokens. `wrangler secret put KEY_PEPPER`. */
  KEY_PEPPER?: string;
  /**
   * Cloudflare only: a first-run setup token (at least 16 characters) for creating the first
   * administrator at /setup#token=…, since no launcher is there to print one.
   */
  SETUP_TOKEN?: string;
  /**
   * Set only by the self-host launcher: the per-boot secret its Node front adds to every request.
   * When present, requests without it are refused and the front's CF-Connecting-IP is trusted.
   */
  FRONT_SECRET?: string;
  /** Self-host only: the launcher's host metrics service (CPU, memory, disk, GPU). */
  HOST_METRICS?: Fetcher;
}
