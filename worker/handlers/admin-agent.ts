/**
 * The console's agent page (core/contract/operations/admin-agent.ts). The registry answers first,
 * so an unknown agent ID is not_found and never opens (and so creates) an agent object. The inbox
 * depth asks only the channels the agent's index marks as pending, as GET /inbox does, but changes
 * no hint: an administrator's look must not alter what the agent's next poll sees.
 */
import { ApiError } from '../../core/contract/errors.js';
import type * as ops from '../../core/contract/operations/admin-agent.js';
import type { Env } from '../../core/env.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import type { AgentView } from '../../core/rpc.js';
import { agentObject, registry } from '../../core/stubs.js';
import { ChannelCalls } from './messaging/stubs.js';
import type { Handler } from './types.js';

/** Channels listed on the page; the total is given beside them. */
const CHANNELS_SHOWN = 200;

async function requireAgent(env: Env, agentId: string): Promise<AgentView> {
  const agent = await registry(env).getAgent(agentId);
  if (!agent) throw new ApiError('not_found', 'No such agent.', { target: agentId });
  return agent;
}

export const getAdminAgentHandler: Handler<typeof ops.getAdminAgent> = async ({ env, input, c }) => {
  const agentId = input.params.agent_id;
  const agent = await requireAgent(env, agentId);
  const index = agentObject(env, agentId);
  const [host, channels, memberships, pending, { limits }] = await Promise.all([
    registry(env).getHost(agent.host_id),
    index.listChannels(),
    index.groupMemberships(),
    index.pendingChannels(),
    currentSettings(env),
  ]);
  const calls = new ChannelCalls(env);
  // Parked deliveries count as unread, so their channels keep the hint: the pending list has them all.
  const counted = await Promise.all(
    pending.map(async (p) => ({
      channel_id: p.channel_id,
      counts: await calls.channel(p.channel_id).counts(agentId, limits.max_deliveries),
    })),
  );
  calls.report(c);
  const depth = new Map(counted.flatMap((x) => (x.counts ? [[x.channel_id, x.counts] as const] : [])));
  const sum = (key: 'unread' | 'claimable' | 'leased' | 'parked') =>
    [...depth.values()].reduce((n, d) => n + d[key], 0);

  const shown = channels.slice(0, CHANNELS_SHOWN);
  const peerIds = [...new Set(shown.flatMap((ch) => (ch.peer_agent_id ? [ch.peer_agent_id] : [])))];
  const peers = new Map((await registry(env).getAgents(peerIds)).map((a) => [a.agent_id, a.name]));
  return {
    agent,
    host,
    inbox: { unread: sum('unread'), claimable: sum('claimable'), leased: sum('leased'), parked: sum('parked') },
    channels: shown.map((ch) => ({
      ...ch,
      ...(ch.peer_agent_id && { peer_name: peers.get(ch.peer_agent_id) ?? null }),
      unread: depth.get(ch.channel_id)?.unread ?? 0,
      leased: depth.get(ch.channel_id)?.leased ?? 0,
      parked: depth.get(ch.channel_id)?.parked ?? 0,
    })),
    channels_total: channels.length,
    invitations: memberships.filter((m) => m.state === 'pending').map((m) => m.group_id),
  };
};

export const listAgentRejectionsHandler: Handler<typeof ops.listAgentRejections> = async ({ env, input }) => {
  await requireAgent(env, input.params.agent_id);
  return { rejections: await agentObject(env, input.params.agent_id).listRejections() };
};
