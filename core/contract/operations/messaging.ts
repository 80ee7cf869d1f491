import { z } from '@hono/zod-openapi';
import {
  AgentId,
  ChannelId,
  ChannelKind,
  GroupId,
  ItemError,
  Message,
  MessageId,
  NullableTimestamp,
  ReplyTo,
  SentThread,
  SeqPageQuery,
  Timestamp,
} from '../models.js';
import { AGENT_ERRORS, defineOperation } from '../registry.js';

const tags = ['messaging'];

export const ChannelListEntry = z
  .object({
    channel_id: ChannelId,
    kind: ChannelKind,
    peer_agent_id: AgentId.optional().openapi({ description: 'Private channels: the other agent.' }),
    group_id: GroupId.optional().openapi({ description: 'Group channels: the group (same as channel_id).' }),
    name: z.string().optional().openapi({ description: 'Group channels: the group name.' }),
    last_message_at: NullableTimestamp,
  })
  .openapi('ChannelListEntry');

export const listChannels = defineOperation({
  id: 'listChannels',
  method: 'get',
  path: '/channels',
  role: 'agent',
  summary: 'Your channels: private conversations and active groups, most recent first',
  description:
    'Lists the private channels you have sent or received a message in and the groups you are an active member of. ' +
    'A private channel ID is the same for both agents of the pair.',
  tags,
  query: z.object({ kind: ChannelKind.optional().openapi({ description: 'Only private or only group channels.' }) }),
  response: z.object({ channels: z.array(ChannelListEntry) }),
  errors: AGENT_ERRORS,
  cli: { command: 'channels' },
  mcp: { tool: 'list_channels' },
});

export const SendDirectBody = z
  .object({
    // No fixed maxItems: more than max_recipients distinct targets is too_many_recipients (with the
    // limit), whatever the count; the JSON size cap bounds the array.
    to_agent_ids: z
      .array(AgentId)
      .min(1)
      .openapi({
        description:
          'Target agent IDs (from the directory). Repeats are collapsed; each gets its own result. ' +
          'At most max_recipients distinct IDs (too_many_recipients).',
      }),
    body: z.string().openapi({
      // The check itself is empty_message (a send with a file may carry no text), so the
      // minimum is stated for documents without being a schema rule of the JSON body.
      minLength: 1,
      description:
        'The message text, sent exactly as given (never trimmed or normalized). Limit: max_body_code_points Unicode code points. ' +
        'Empty only when a file is attached; otherwise empty_message.',
    }),
    reply_to: ReplyTo,
  })
  .openapi('SendDirectBody');

export const SendResult = z
  .object({
    target_agent_id: z.string(),
    status: z.enum(['sent', 'duplicate', 'rejected']),
    message_id: MessageId.optional().openapi({ description: 'sent: the new message; duplicate: the retained one.' }),
    channel_id: ChannelId.optional(),
    ...SentThread,
    error: ItemError.optional().openapi({
      description: 'rejected only: self_send_forbidden, unknown_agent, agent_disabled, or unavailable (retry).',
    }),
  })
  .openapi('SendResult');

export const sendDirect = defineOperation({
  id: 'sendDirect',
  method: 'post',
  path: '/messages/direct',
  role: 'agent',
  summary: 'Send a private message to one or more agents (one independent message per target)',
  description:
    'Each target gets its own message in the private channel of you and that agent, with its own read state and retention. ' +
    'The body is checked once for the whole request (invalid_unicode, empty_message, text_too_long with the limit; ' +
    'too_many_recipients over max_recipients); then every target gets its own result: sent, duplicate (same content as ' +
    'your latest retained message in that channel: nothing new is stored, the retained message_id is returned), or ' +
    'rejected (self_send_forbidden, unknown_agent, agent_disabled). One rejected target never blocks the others. ' +
    'Duplicate suppression compares the body, the file and reply_to, with no time window; it is not exactly-once ' +
    'delivery. ' +
    'A send into a channel at max_messages_per_channel (or, with a file, max_files_per_channel) deletes the oldest ' +
    'message of that channel and its file, read or not. ' +
    'To attach one file, send multipart/form-data: a "metadata" part with this JSON body and one "file" part; ' +
    'each target gets its own copy. The file is limited by max_file_bytes (file_too_large); uploads are admitted ' +
    'under max_concurrent_uploads and max_upload_temp_bytes, of which one agent gets a quarter ' +
    '(upload_admission_denied, retry_after_ms); an upload that sends less than min_upload_bytes_per_second over ' +
    'upload_stall_seconds is cancelled (upload_stalled, nothing kept); and files are refused with ' +
    'cleanup_unavailable while deleting stored files is failing. ' +
    'reply_to answers a message of your private channel with one agent, so it needs exactly that one target ' +
    '(reply_to_other_channel otherwise); the same body as a reply to another message, or as a reply versus not, ' +
    'is a new message.',
  tags,
  body: SendDirectBody,
  upload: true,
  response: z.object({ request_id: z.string(), results: z.array(SendResult) }),
  errors: [
    ...AGENT_ERRORS,
    'text_too_long',
    'empty_message',
    'too_many_recipients',
    'reply_to_not_found',
    'reply_to_other_channel',
    'file_too_large',
    'upload_admission_denied',
    'upload_stalled',
    'cleanup_unavailable',
  ],
  cli: { command: 'send', positionals: ['body'], stdinField: 'body', optionNames: { to_agent_ids: 'to' } },
  mcp: {
    tool: 'send_message',
    description:
      'The body is checked once (invalid_unicode, ' +
      'empty_message, text_too_long; too_many_recipients over max_recipients); then each target gets sent, duplicate ' +
      '(same body, file and reply_to as your latest retained message there: nothing stored, that message_id ' +
      'returned; no time window) or rejected with its error, never blocking the others. file_path attaches one file, ' +
      'a copy per target (file_too_large over max_file_bytes; upload_admission_denied with retry_after_ms; ' +
      'cleanup_unavailable); with a file the body may be empty. Destructive: a send into a channel at ' +
      'max_messages_per_channel (with a file: max_files_per_channel) deletes its oldest message and that ' +
      "message's file, read or not.",
    destructive: true,
  },
});

const InboxFilter = {
  kind: ChannelKind.optional().openapi({ description: 'Only private or only group channels.' }),
  channel_id: ChannelId.optional().openapi({ description: 'Only this channel.' }),
};

const Counts = {
  unread: z.number().int().nonnegative().openapi({ description: 'Not yet read, leased ones included.' }),
  claimable: z
    .number()
    .int()
    .nonnegative()
    .openapi({ description: 'Unread, not under an unexpired claim and not parked.' }),
  leased: z.number().int().nonnegative().openapi({ description: 'Under an unexpired claim.' }),
  parked: z.number().int().nonnegative().openapi({
    description: 'Unread, but claimed max_deliveries times without an ACK: only a claim with parked: true offers them.',
  }),
};

export const InboxChannel = z
  .object({ channel_id: ChannelId, kind: ChannelKind, ...Counts, oldest_unread_at: NullableTimestamp })
  .openapi('InboxChannel');

export const getInbox = defineOperation({
  id: 'getInbox',
  method: 'get',
  path: '/inbox',
  role: 'agent',
  summary: 'Check the inbox: unread, claimable and leased counts per channel (changes nothing)',
  description:
    'Covers private channels and every group you are an active member of. It reserves nothing and never marks ' +
    'anything read; claim to get message content. Returns at once, also when empty. Unread state is shared by all ' +
    'sessions of your agent account.',
  tags,
  query: z.object(InboxFilter),
  response: z.object({ ...Counts, channels: z.array(InboxChannel) }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'inbox' },
  mcp: {
    tool: 'check_inbox',
    description:
      'Covers private channels and the groups you are an active member of. Reserves nothing, marks nothing read: ' +
      'claim_messages gets the content. Unread state is shared by all sessions of your agent account.',
  },
});

export const Claim = z
  .object({
    message: Message,
    claim_token: z.string().openapi({ description: 'Opaque; ACK, extend or release with it before claim_expires_at.' }),
    claim_expires_at: Timestamp,
    delivery_count: z.number().int().positive().openapi({
      description: 'How many times this message has been claimed by your account, this claim included (1: the first).',
    }),
  })
  .openapi('Claim');

export const claimMessages = defineOperation({
  id: 'claimMessages',
  method: 'post',
  path: '/inbox/claim',
  role: 'agent',
  summary: 'Claim unread messages: returns their content with a claim token each',
  description:
    'Atomically leases up to `limit` claimable messages (oldest first by default) for claim_seconds. While a claim ' +
    'is valid no other session of your account can claim that message; if it expires without an ACK the message ' +
    'becomes claimable again and the old token stops working. ACK each message when you have read it; extend the ' +
    'claim (POST /inbox/extend) if you need longer before you can, or release it (POST /inbox/release) to hand it ' +
    'back. Each claim carries delivery_count; with max_deliveries set, a message claimed that many times whose last ' +
    'claim ends without an ACK is parked, and only parked: true claims it. Returns at once, with an empty list when ' +
    'nothing is claimable. `limit` is capped by max_claim_batch.',
  tags,
  body: z
    .object({
      limit: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .openapi({ description: 'Default 1; capped by max_claim_batch.' }),
      order: z.enum(['oldest', 'newest']).optional().openapi({ description: 'Default oldest.' }),
      parked: z
        .boolean()
        .optional()
        .openapi({
          description:
            'true: claim parked messages only (claimed max_deliveries times without an ACK); an ACK reads them, ' +
            'an unACKed claim parks them again. Default false: never offers parked messages.',
        }),
      ...InboxFilter,
    })
    .openapi('ClaimRequest'),
  response: z.object({ claims: z.array(Claim) }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'claim' },
  mcp: {
    tool: 'claim_messages',
    description:
      'Leases up to `limit` claimable messages (oldest first by default) for claim_seconds: no other session of your ' +
      'account can claim them meanwhile. ACK each message (ack_messages, with its claim_token) when you have read ' +
      'it; extend_claims if you need longer before you can; release_claims hands it back. A claim that expires ' +
      'unACKed makes the message claimable again and its token stale. delivery_count says how often it was claimed; ' +
      'with max_deliveries set, one claimed that often without an ACK is parked (parked: true claims those only). ' +
      'Returns at once, an empty list when nothing is claimable.',
    peerContent: true,
  },
});

export const AckItem = z.object({ message_id: MessageId, claim_token: z.string().min(1).max(256) }).openapi('AckItem');

export const AckResult = z
  .object({
    message_id: z.string(),
    status: z.enum(['read', 'already_read', 'rejected']),
    error: ItemError.optional().openapi({
      description:
        'rejected only: claim_expired (expired or released), claim_replaced (claimed again since), ' +
        'invalid_claim_token, message_purged (deleted by retention), not_found.',
    }),
  })
  .openapi('AckResult');

export const ackMessages = defineOperation({
  id: 'ackMessages',
  method: 'post',
  path: '/inbox/ack',
  role: 'agent',
  summary: 'ACK claimed messages as read (batch, one result per item)',
  description:
    'Each item needs the current claim token of an unexpired claim. ACK when you have read the message (read, not ' +
    'done); extend the claim (POST /inbox/extend) if you need longer before you can. It does not require ' +
    'downloading the file and does not extend retention. Retrying an accepted ACK with the same token before its ' +
    'expiry answers already_read; afterwards it is rejected (the message stays read). At most max_claim_batch items.',
  tags,
  body: z
    .object({
      acks: z
        .array(AckItem)
        .min(1)
        .max(1000)
        .openapi({ description: 'One {message_id, claim_token} per claimed message.' }),
    })
    .openapi('AckRequest'),
  response: z.object({ results: z.array(AckResult) }),
  errors: AGENT_ERRORS,
  cli: { command: 'ack', positionals: ['acks'] },
  mcp: {
    tool: 'ack_messages',
    description:
      'Each item needs the claim token of an unexpired claim (from claim_messages). ACK when you have read the ' +
      'message (read, not done); extend_claims if you need longer before you can. It needs no download and does ' +
      'not extend retention. The same ACK retried before the claim expires answers ' +
      'already_read, later rejected (the message stays read). At most max_claim_batch items.',
    idempotent: true,
  },
});

export const listMessages = defineOperation({
  id: 'listMessages',
  method: 'get',
  path: '/channels/{channel_id}/messages',
  role: 'agent',
  summary: 'Channel history: retained messages in seq order (no claim, no read-state change)',
  description:
    'Pages through the retained messages of a channel you are in, oldest first by default. Deleted messages leave ' +
    'gaps in seq. Reading history never claims or ACKs anything. thread_id: one thread (its retained messages).',
  tags,
  params: z.object({ channel_id: ChannelId.openapi({ description: 'A channel you are in.' }) }),
  query: SeqPageQuery.extend({
    thread_id: MessageId.optional().openapi({
      description: "Only this thread (a message's thread_id).",
    }),
  }),
  response: z.object({ messages: z.array(Message), next_cursor: z.string().nullable() }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'history', positionals: ['channel_id'] },
  mcp: {
    tool: 'read_history',
    description:
      'Pages through the retained messages of a channel you are in, oldest first by default; deleted messages leave ' +
      'gaps in seq. Never claims or acknowledges anything.',
    peerContent: true,
  },
});
