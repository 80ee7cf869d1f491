import { z } from '@hono/zod-openapi';
import { FIELD_LIMITS } from '../../lib/limits.js';
import { PREVIEWABLE_MEDIA_TYPES } from '../../lib/media-types.js';
import {
  AgentId,
  ChannelId,
  ChannelKind,
  Cursor,
  FileId,
  Message,
  MessageId,
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

/**
 * The fleet view: figures kept where the writes already go (the registry's agents table, the
 * channel catalog), so a page view asks neither any agent's nor any channel's object.
 */
/** Only a part of Fleet: the channel list's own model is AdminChannelSummary. */
const FleetChannel = z
  .object({
    channel_id: ChannelId,
    kind: ChannelKind,
    message_count: z.number().int().nonnegative(),
    file_count: z.number().int().nonnegative(),
    last_message_at: NullableTimestamp,
  })
  .openapi('FleetChannel');

const Count = z.number().int().nonnegative();
const RefusalsByReason = z
  .object({ wrong_key: Count, key_revoked: Count, agent_disabled: Count, wrong_address: Count })
  .openapi({ description: 'Refused requests that named an agent, by reason.' });
const RefusalWindow = z.object({ total: Count, by_reason: RefusalsByReason });

/** An agent's unread deliveries over all its channels (leased and parked are among the unread). */
const FleetBacklogFigures = z.object({
  unread: Count,
  leased: Count,
  parked: Count,
  oldest_unread_at: NullableTimestamp,
});

export const FleetRefusals = z
  .object({
    last_hour: RefusalWindow,
    last_day: RefusalWindow,
    lower_bound_reasons: z.array(z.enum(['wrong_key', 'key_revoked', 'agent_disabled', 'wrong_address'])).openapi({
      description:
        'Reasons whose counts are lower bounds ("at least"): a key without this server\'s mark is refused by the ' +
        'worker itself, which records at most one such refusal per agent per 10 s.',
    }),
    top_agents: z.array(z.object({ agent_id: AgentId, name: z.string().nullable(), count: Count })).openapi({
      description: 'The agents named by the most refused requests over the last day (name null: since deleted).',
    }),
    top_addresses: z.array(z.object({ address: z.string(), count: Count })).openapi({
      description: 'The source addresses of the most refused requests over the last day.',
    }),
  })
  .openapi('FleetRefusals');

export const FleetBacklog = FleetBacklogFigures.extend({
  top_agents: z
    .array(FleetBacklogFigures.extend({ agent_id: AgentId, name: z.string().nullable() }))
    .openapi({ description: 'The agents with the most unread deliveries, then the oldest.' }),
}).openapi('FleetBacklog');

export const Fleet = z
  .object({
    agents: z.object({
      total: z.number().int().nonnegative(),
      enabled: z.number().int().nonnegative(),
      disabled: z.number().int().nonnegative(),
      by_key_state: z.object({
        active: z.number().int().nonnegative(),
        revoked: z.number().int().nonnegative(),
        none: z.number().int().nonnegative(),
      }),
      by_last_access: z.object({
        never: z.number().int().nonnegative(),
        over_a_day: z.number().int().nonnegative(),
        over_an_hour: z.number().int().nonnegative(),
        active: z.number().int().nonnegative(),
      }),
    }),
    limits: z.object({
      max_messages_per_channel: z.number().int().positive(),
      max_files_per_channel: z.number().int().positive(),
    }),
    /** The channels with the most retained messages, then files: the ones nearest the limits. */
    channels_nearest_limits: z.array(FleetChannel),
    refusals: FleetRefusals.openapi({
      description:
        "Last hour: the current minute and the 59 before it; last day: 1,440 minutes. Counted by the agents' " +
        'objects and reported to the registry within about 10 s.',
    }),
    backlog: FleetBacklog.openapi({
      description:
        'Unread deliveries (leased and parked among them) over every channel, as each channel last reported them ' +
        '(within about 30 s of a send, claim, ACK, extend, release or a lease ending).',
    }),
    generated_at: Timestamp,
  })
  .openapi('Fleet');

export const getFleet = defineOperation({
  id: 'getFleet',
  method: 'get',
  path: '/admin/fleet',
  role: 'admin',
  summary:
    'Fleet figures: agents by key state and last access, refused requests, inbox backlog, channels nearest their limits',
  description:
    'Agents are counted by one query over the registry (last access: never, over a day ago, over an hour ago, ' +
    "within the hour). Refused requests are the registry's per-minute counts of what the agents' objects " +
    'counted. Channels and the backlog come from the channel catalog, as each channel last reported its figures ' +
    '(within about 30 s of a change); no agent or channel object is asked.',
  tags,
  response: Fleet,
  errors: ADMIN_ERRORS,
  cli: { command: 'admin fleet' },
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

/**
 * Where a content search hit in a channel: its newest matching message, cut around the first
 * occurrence. Three plain strings, never markup, so a client highlights `match` by putting it in
 * an element of its own and no text of a message is ever read as HTML.
 */
export const AdminSearchSnippet = z
  .object({
    message_id: MessageId,
    seq: z.number().int().positive(),
    before: z.string().openapi({ description: 'Text before the match; starts with … when cut.' }),
    match: z.string().openapi({
      description:
        'The matched text as written in the message (its case and accents). Empty when the match could not be ' +
        'located exactly (the index folds more than the cut does); then before holds the start of the message.',
    }),
    after: z.string().openapi({ description: 'Text after the match; ends with … when cut.' }),
  })
  .openapi('AdminSearchSnippet');

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
    matching_messages: z.number().int().positive().optional().openapi({
      description: 'With q: how many retained messages contain the text (of those examined: see search_complete).',
    }),
    search_complete: z
      .boolean()
      .optional()
      .openapi({
        description:
          'With q and a match: false when the channel was too large to search to its oldest message in one ' +
          'request (a bound on the characters and messages examined, newest first): matching_messages then counts ' +
          'the newest messages only, and the channel holds at least that many.',
      }),
    snippet: AdminSearchSnippet.optional().openapi({
      description: 'With q and at least one match: the newest matching message, cut around the match.',
    }),
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
    'number of channels (`scanned`; fewer with a content search): with a content search, a page can hold fewer ' +
    'matches than `limit`, or none, and still carry a `next_cursor` to continue from. The content search of one ' +
    'channel examines a bounded number of its messages and characters, newest first: see search_complete and ' +
    'not_searched_to_end. Dissolved groups are left out. Reading changes nothing.',
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
    not_searched_to_end: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .openapi({
        description:
          'With q: channels examined for this page whose search stopped at the bound before their oldest message ' +
          'and found no match in the newer messages; older messages of these channels may still hold the text ' +
          '(read their history).',
      }),
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
  query: SeqPageQuery.extend({
    thread_id: MessageId.optional().openapi({ description: "Only this thread (a message's thread_id)." }),
  }),
  response: z.object({
    channel: AdminChannelSummary,
    messages: z.array(Message),
    replied_to: z.array(z.object({ message_id: MessageId, seq: z.number().int().nullable() })).openapi({
      description:
        'Every message a message of this page answers (reply_to): its seq while retained, null once deleted.',
    }),
    next_cursor: z.string().nullable(),
  }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin channels messages', positionals: ['channel_id'] },
  mcp: false,
});

export const downloadAdminChannelFile = defineOperation({
  id: 'downloadAdminChannelFile',
  method: 'get',
  path: '/admin/channels/{channel_id}/files/{file_id}',
  role: 'admin',
  summary: "Download a retained attachment of any channel (administrators; the agent download's safe headers)",
  description:
    'The bytes with the media type the sender declared and the same headers as the agent download: ' +
    'X-Content-Type-Options: nosniff, Content-Disposition: attachment with the file name (RFC 6266 filename*), a ' +
    'sandboxing Content-Security-Policy, no caching. disposition=inline asks for a preview and is honoured only for ' +
    `${PREVIEWABLE_MEDIA_TYPES.join(', ')} (Content-Disposition: inline, the same CSP); any other type, SVG and ` +
    'HTML included, is unsupported_media_type, so no uploaded document is ever rendered inline. A file that is not ' +
    'in this channel, or was deleted, is not_found. Reading changes nothing: no claim, no read mark.',
  tags,
  params: z.object({
    channel_id: ChannelId,
    file_id: FileId.openapi({ description: "From a message's attachment in this channel." }),
  }),
  query: z.object({
    disposition: z
      .enum(['attachment', 'inline'])
      .optional()
      .openapi({ description: 'attachment (default) or inline, for image previews only.' }),
  }),
  rawResponse: {
    mediaType: '*/*',
    description: 'The file bytes, with the media type the sender gave (application/octet-stream when none).',
  },
  errors: [...ADMIN_ERRORS, 'not_found', 'unsupported_media_type'],
  cli: { command: 'admin channels download', positionals: ['channel_id', 'file_id'] },
  mcp: false,
});
