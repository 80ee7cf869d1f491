/**
 * One agent seen from the console: what an administrator needs to diagnose a
 * misconfigured agent without server logs. Reading changes nothing: no claim, no read state.
 */
import { z } from '@hono/zod-openapi';
import { Agent, AgentId, GroupId, Host, Timestamp } from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';
import { ChannelListEntry } from './messaging.js';

const tags = ['admin'];
const AgentParams = z.object({ agent_id: AgentId });

export const InboxDepth = z
  .object({
    unread: z.number().int().nonnegative().openapi({ description: 'Deliveries not yet ACKed.' }),
    claimable: z.number().int().nonnegative(),
    leased: z.number().int().nonnegative().openapi({ description: 'Claimed and not yet ACKed or expired.' }),
    parked: z.number().int().nonnegative().openapi({
      description: 'Unread deliveries claimed max_deliveries times without an ACK: no ordinary claim offers them.',
    }),
  })
  .openapi('InboxDepth');

export const AdminAgentChannel = ChannelListEntry.extend({
  peer_name: z.string().nullable().optional().openapi({
    description: 'Private channels: the other agent’s name (null when the registry no longer knows it).',
  }),
  unread: z.number().int().nonnegative(),
  leased: z.number().int().nonnegative(),
  parked: z.number().int().nonnegative(),
}).openapi('AdminAgentChannel');

export const AdminAgentDetail = z
  .object({
    agent: Agent,
    host: Host,
    inbox: InboxDepth,
    channels: z.array(AdminAgentChannel).openapi({
      description: 'Its private channels and active groups, most recent first (at most 200).',
    }),
    channels_total: z.number().int().nonnegative(),
    invitations: z.array(GroupId).openapi({ description: 'Groups it is invited to and has not joined.' }),
  })
  .openapi('AdminAgentDetail');

export const AgentRejection = z
  .object({
    reason: z.enum(['wrong_key', 'key_revoked', 'agent_disabled', 'wrong_address']).openapi({
      description:
        'wrong_key: a key naming this agent that is not its current one (old, mistyped or forged); ' +
        'key_revoked: its key was revoked; agent_disabled: the right key, but the agent is disabled; ' +
        'wrong_address: the right key from an address that is not one of its host’s.',
    }),
    address: z.string().openapi({ description: 'The source address of the refused requests.' }),
    count: z.number().int().positive().openapi({
      description: 'Refusals counted (at least this many: a flood is sampled, never written per request).',
    }),
    first_at: Timestamp,
    last_at: Timestamp,
  })
  .openapi('AgentRejection');

export const getAdminAgent = defineOperation({
  id: 'getAdminAgent',
  method: 'get',
  path: '/admin/agents/{agent_id}',
  role: 'admin',
  summary: 'One agent: key status, host, last access and address, inbox depth, channels and groups',
  description:
    'The inbox depth is counted in the agent’s channels without claiming or marking anything read. Refused ' +
    'requests are at GET /admin/agents/{agent_id}/rejections.',
  tags,
  params: AgentParams,
  response: AdminAgentDetail,
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin agents get', positionals: ['agent_id'] },
  mcp: false,
});

export const listAgentRejections = defineOperation({
  id: 'listAgentRejections',
  method: 'get',
  path: '/admin/agents/{agent_id}/rejections',
  role: 'admin',
  summary: 'Recent refused requests naming this agent: wrong or revoked key, disabled, wrong address',
  description:
    'One entry per reason and source address, newest first, at most 50. A key the server never issued for ' +
    'this agent is counted only when the agent exists; no part of any presented key is kept.',
  tags,
  params: AgentParams,
  response: z.object({ rejections: z.array(AgentRejection) }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin agents rejections', positionals: ['agent_id'] },
  mcp: false,
});
