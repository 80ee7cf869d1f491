import { z } from '@hono/zod-openapi';
import { FIELD_LIMITS } from '../../lib/limits.js';
import {
  AgentId,
  ChannelId,
  ChannelKind,
  Cursor,
  Message,
  NullableTimestamp,
  PageLimit,
  Resources,
  SeqPageQuery,
  Timestamp,
} from '../models.js';
import { ADMIN_ERRORS, defineOperation } from '../registry.js';

const tags = ['admin'];

/**
 * What the overview counts. Channels come from the channel catalog (dissolved groups excluded);
 * messages and files are the retained ones as the channels last reported them to the catalog,
 * which they do in their next alarm after a change (within about 30 s), not on every message.
 * The counts of other engines stay optional, so the console never shows a zero it did not measure.
 */
export const OverviewCounts = z
  .object({
    hosts: z.number().int().nonnegative(),
    agents: z.number().int().nonnegative(),
    enabled_agents: z.number().int().nonnegative(),
    channels: z.number().int().nonnegative().optional(),
    private_channels: z.number().int().nonnegative().optional(),
    group_channels: z.number().int().nonnegative().optional(),
    messages: z.number().int().nonnegative().optional(),
    files: z.number().int().nonnegative().optional(),
    cleanup_pending: z.number().int().nonnegative().optional(),
    cleanup_failed: z.number().int().nonnegative().optional(),
  })
  .openapi('OverviewCounts');

export const Overview = z
  .object({
    counts: OverviewCounts,
    resources: Resources,
    generated_at: z.iso.datetime({ precision: 3 }),
  })
  .openapi('Overview');

export const getOverview = defineOperation({
  id: 'getOverview',
  method: 'get',
  path: '/admin/overview',
  role: 'admin',
  summary: 'Counts and server resources (CPU, memory, disk, GPU) for the console overview',
  description:
    'Self-hosted, resources come from the launcher (operating-system interfaces, no extra libraries). ' +
    'A metric the server cannot read (on Cloudflare Workers, or a machine without a GPU) is ' +
    '{available:false, reason}. Channel counts come from the channel catalog; message and file totals are the ' +
    'retained ones as each channel last reported them (a channel reports within about 30 s of a change).',
  tags,
  response: Overview,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin overview' },
  mcp: false,
});

// Channels (REQ-54, REQ-58, REQ-59): administrators read retained content, never read state.

const AgentIdList = z
  .string()
  .max(20 * 70)
  .regex(
    /^agt_[A-Za-z0-9_-]{1,64}(,agt_[A-Za-z0-9_-]{1,64}){0,19}$/,
    'must be up to 20 agent IDs separated by commas (agt_…,agt_…)',
  );

export const AdminChannelParticipant = z
  .object({
    agent_id: AgentId,
    name: z.string().nullable().openapi({ description: 'null when the registry does not know the agent.' }),
    display_name: z.string().nullable(),
    state: z
      .enum(['active', 'pending', 'left'])
      .optional()
      .openapi({ description: 'Groups: active member, pending invitee, or a member who left.' }),
    role: z.enum(['member', 'owner']).optional().openapi({ description: 'Groups only.' }),
  })
  .openapi('AdminChannelParticipant');

export const AdminChannelSummary = z
  .object({
    channel_id: ChannelId,
    kind: ChannelKind,
    name: z.string().optional().openapi({ description: 'Groups: the group name.' }),
    status: z.enum(['active', 'dissolved']).optional().openapi({ description: 'Groups only.' }),
    participants: z.array(AdminChannelParticipant),
    owner_id: AgentId.optional().openapi({ description: 'Groups: the owner.' }),
    message_count: z.number().int().nonnegative().openapi({ description: 'Retained messages.' }),
    file_count: z.number().int().nonnegative().openapi({ description: 'Retained attachments.' }),
    last_message_at: NullableTimestamp,
    created_at: Timestamp,
    matching_messages: z
      .number()
      .int()
      .positive()
      .optional()
      .openapi({ description: 'With q: how many retained messages contain the text.' }),
  })
  .openapi('AdminChannelSummary');

export const listAdminChannels = defineOperation({
  id: 'listAdminChannels',
  method: 'get',
  path: '/admin/channels',
  role: 'admin',
  summary: 'Every private and group channel with readable summaries; identity filters and content search',
  description:
    'Newest channels first. Identity filters (participant, owner) are separate from the content search q, which ' +
    'looks only at retained message bodies (case-insensitive), never at names. A page examines at most a bounded ' +
    'number of channels (`scanned`): with a content search, a page can hold fewer matches than `limit`, or none, and ' +
    'still carry a `next_cursor` to continue from. Dissolved groups are left out. Reading changes nothing.',
  tags,
  query: z.object({
    kind: ChannelKind.optional().openapi({ description: 'Only private or only group channels.' }),
    participant: AgentIdList.optional().openapi({
      description: 'Comma-separated agent IDs: only channels that include all of them (in any state).',
    }),
    owner: AgentId.optional().openapi({ description: 'Only groups this agent owns (implies group channels).' }),
    q: z
      .string()
      .trim()
      .min(1)
      .max(FIELD_LIMITS.content_search)
      .optional()
      .openapi({ description: 'Content search: text contained in a retained message body, case-insensitive.' }),
    cursor: Cursor,
    limit: PageLimit,
  }),
  response: z.object({
    channels: z.array(AdminChannelSummary),
    next_cursor: z.string().nullable(),
    scanned: z.number().int().nonnegative().openapi({ description: 'Channels examined for this page.' }),
  }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin channels list' },
  mcp: false,
});

export const listAdminChannelMessages = defineOperation({
  id: 'listAdminChannelMessages',
  method: 'get',
  path: '/admin/channels/{channel_id}/messages',
  role: 'admin',
  summary: 'Read a channel’s retained messages with attachment metadata (no claim, no read-state change)',
  description:
    'Any private or group channel, whoever takes part in it. Pages by seq, oldest first by default. Nothing is ' +
    'claimed or marked read, and deleted messages cannot be recovered: what retention or dissolution removed is ' +
    'not here. The answer also carries the channel summary.',
  tags,
  params: z.object({ channel_id: ChannelId }),
  query: SeqPageQuery,
  response: z.object({
    channel: AdminChannelSummary,
    messages: z.array(Message),
    next_cursor: z.string().nullable(),
  }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin channels messages', positionals: ['channel_id'] },
  mcp: false,
});
