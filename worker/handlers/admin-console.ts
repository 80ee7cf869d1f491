import type * as ops from '../../core/contract/operations/admin-console.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { registry, retention } from '../../core/stubs.js';
import { readResources } from '../lib/overview-resources.js';
import type { Handler } from './types.js';

/** Large pages: the overview walks the registry's lists to count them without a second index. */
const COUNT_PAGE = 1000;

async function countAll<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>,
  matches: (item: T) => boolean = () => true,
): Promise<{ total: number; matching: number }> {
  let cursor: string | undefined;
  let total = 0;
  let matching = 0;
  do {
    const { items, next_cursor } = await page(cursor);
    total += items.length;
    for (const item of items) if (matches(item)) matching++;
    cursor = next_cursor ?? undefined;
  } while (cursor);
  return { total, matching };
}

export const getOverviewHandler: Handler<typeof ops.getOverview> = async ({ env }) => {
  const reg = registry(env);
  const [hosts, agents, resources, cleanup, channels] = await Promise.all([
    countAll(async (cursor) => {
      const r = await reg.listHosts(cursor, COUNT_PAGE);
      return { items: r.hosts, next_cursor: r.next_cursor };
    }),
    countAll(
      async (cursor) => {
        const r = await reg.listAgents({}, cursor, COUNT_PAGE);
        return { items: r.agents, next_cursor: r.next_cursor };
      },
      (agent) => agent.enabled,
    ),
    readResources(env.HOST_METRICS),
    retention(env).cleanupStatus(),
    // Kept in the channel catalog, so no channel is asked (see RetentionDO.catalogTotals).
    retention(env).catalogTotals(),
  ]);
  return {
    counts: {
      hosts: hosts.total,
      agents: agents.total,
      enabled_agents: agents.matching,
      channels: channels.private_channels + channels.group_channels,
      private_channels: channels.private_channels,
      group_channels: channels.group_channels,
      messages: channels.messages,
      files: channels.files,
      cleanup_pending: cleanup.pending_jobs,
      cleanup_failed: cleanup.failed_jobs,
    },
    resources,
    generated_at: new Date().toISOString(),
  };
};

/** Channels listed as nearest their limits on the fleet view. */
const FULLEST_CHANNELS = 10;
/** Agents and addresses in each of the fleet view's top lists. */
const FLEET_TOP = 10;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const getFleetHandler: Handler<typeof ops.getFleet> = async ({ env }) => {
  const reg = registry(env);
  const [agents, channels, settings, refusals, backlog] = await Promise.all([
    reg.fleetAgents(),
    retention(env).fullestChannels(FULLEST_CHANNELS),
    currentSettings(env),
    reg.fleetRefusals(FLEET_TOP),
    retention(env).fleetBacklog(FLEET_TOP),
  ]);
  // One batched lookup names the agents of both top lists.
  const ids = [...new Set([...refusals.top_agents, ...backlog.top_agents].map((a) => a.agent_id))];
  const names = new Map((ids.length > 0 ? await reg.getAgents(ids) : []).map((a) => [a.agent_id, a.name]));
  return {
    agents,
    limits: {
      max_messages_per_channel: settings.limits.max_messages_per_channel,
      max_files_per_channel: settings.limits.max_files_per_channel,
    },
    channels_nearest_limits: channels.map((c) => ({
      channel_id: c.channel_id,
      kind: c.kind,
      message_count: c.message_count,
      file_count: c.file_count,
      last_message_at: isoOrNull(c.last_message_at),
    })),
    refusals: {
      last_hour: refusals.last_hour,
      last_day: refusals.last_day,
      lower_bound_reasons: ['wrong_key'],
      top_agents: refusals.top_agents.map((a) => ({ ...a, name: names.get(a.agent_id) ?? null })),
      top_addresses: refusals.top_addresses,
    },
    backlog: {
      unread: backlog.unread,
      leased: backlog.leased,
      parked: backlog.parked,
      oldest_unread_at: isoOrNull(backlog.oldest_unread_at),
      top_agents: backlog.top_agents.map((a) => ({
        agent_id: a.agent_id,
        name: names.get(a.agent_id) ?? null,
        unread: a.unread,
        leased: a.leased,
        parked: a.parked,
        oldest_unread_at: isoOrNull(a.oldest_unread_at),
      })),
    },
    generated_at: new Date().toISOString(),
  };
};
