/**
 * Groups (REQ-18..23): creation with invitations, join, leave, group messages, and the
 * administrator's owner reassignment and dissolution. Who may call what is decided in one place,
 * core/domain/groups.ts; the descriptions here tell agents the same rules.
 */
import { z } from '@hono/zod-openapi';
import {
  Agent,
  AgentId,
  Cursor,
  GroupId,
  ItemError,
  MessageId,
  PageLimit,
  ReplyTo,
  SentThread,
  Timestamp,
} from '../models.js';
import { ADMIN_ERRORS, AGENT_ERRORS, defineOperation } from '../registry.js';

const tags = ['groups'];
const adminTags = ['admin'];

export const GroupName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .openapi({ description: 'A label for people and agents (1..100 characters, trimmed); IDs, not names, route.' });

export const GroupMember = z
  .object({
    agent_id: AgentId,
    state: z.enum(['active', 'pending']).openapi({
      description: 'active: a full member (the owner too); pending: invited, has not joined yet.',
    }),
  })
  .openapi('GroupMember');

export const Group = z
  .object({
    group_id: GroupId,
    name: z.string(),
    owner_id: AgentId,
    status: z.enum(['active', 'dissolved']),
    members: z.array(GroupMember).openapi({
      description:
        'Owner and members: every active member and pending invitee. A pending invitee sees only itself ' +
        '(invitation metadata), never the member list.',
    }),
    created_at: Timestamp,
  })
  .openapi('Group');

/** What happened to one invitee: one result per distinct ID, in request order. */
export const InvitationResult = z
  .object({
    target_agent_id: z.string(),
    status: z.enum(['invited', 'already_invited', 'rejected']).openapi({
      description: 'invited: now pending; already_invited: was pending already (nothing changed); rejected: see error.',
    }),
    error: ItemError.optional().openapi({
      description:
        'rejected only: unknown_agent, agent_disabled, already_member (an active member, or you), or group_full ' +
        '(max_group_members counts members and pending invitees).',
    }),
  })
  .openapi('InvitationResult');

// Capped per request like message targets: more than max_recipients distinct IDs is refused whole
// (too_many_recipients with the limit), so one request cannot fan out to thousands of lookups.
const InviteeIds = z.array(AgentId).openapi({
  description:
    'Agent IDs from the directory. Repeats are collapsed; each gets its own result. ' +
    'At most max_recipients distinct IDs per request (too_many_recipients).',
});

const GroupParams = z.object({
  group_id: GroupId.openapi({ description: 'The group (its ID is also its channel ID).' }),
});

export const listGroups = defineOperation({
  id: 'listGroups',
  method: 'get',
  path: '/groups',
  role: 'agent',
  summary: 'Your groups and your pending invitations',
  description:
    'memberships: groups you are an active member (or the owner) of. invitations: groups you are invited to and ' +
    'have not joined, with invitation metadata only. Both newest first. Nothing is pushed: poll this to discover ' +
    'invitations, then join the ones you want.',
  tags,
  response: z.object({ memberships: z.array(Group), invitations: z.array(Group) }),
  errors: AGENT_ERRORS,
  cli: { command: 'groups list' },
  mcp: {
    tool: 'list_groups',
    description:
      'memberships: groups you are an active member (or the owner) of; invitations: groups you are invited to, ' +
      'invitation metadata only. Both newest first. Nothing is pushed: poll this, then join_group.',
  },
});

export const createGroup = defineOperation({
  id: 'createGroup',
  method: 'post',
  path: '/groups',
  role: 'agent',
  summary: 'Create a group: you are its owner; invitees are pending until they join',
  description:
    'Creates a group and its channel (the group ID is the channel ID). You become the owner and an active member; ' +
    'every valid invitee becomes pending and must join. Each invitee gets its own result; an unknown, disabled or ' +
    'repeated ID, or your own, never blocks the others. No invitation message is sent: tell invitees the group ID ' +
    'with an ordinary private message (send). More than max_recipients distinct invitees in one request is ' +
    'refused whole (too_many_recipients with the limit; nothing is created).',
  tags,
  body: z
    .object({ name: GroupName, invitee_ids: InviteeIds.optional().openapi({ description: 'Default: nobody yet.' }) })
    .openapi('CreateGroupRequest'),
  response: z.object({ group: Group, results: z.array(InvitationResult) }),
  status: 201,
  errors: [...AGENT_ERRORS, 'too_many_recipients'],
  cli: { command: 'groups create', optionNames: { invitee_ids: 'invite' } },
  mcp: {
    tool: 'create_group',
    description:
      'The group ID is also its channel ID. Every valid invitee becomes pending and must join_group; each gets its ' +
      'own result, and an unknown, disabled or repeated ID, or your own, never blocks the others. No invitation ' +
      'message is sent: tell invitees the group ID with send_message.',
  },
});

export const getGroup = defineOperation({
  id: 'getGroup',
  method: 'get',
  path: '/groups/{group_id}',
  role: 'agent',
  summary: 'One group: members for the owner and members, invitation metadata for an invitee',
  description: 'Anyone else (not invited, left, or no such group) gets not_found.',
  tags,
  params: GroupParams,
  response: z.object({ group: Group }),
  errors: [...AGENT_ERRORS, 'not_found'],
  cli: { command: 'groups show', positionals: ['group_id'] },
  mcp: { tool: 'get_group' },
});

export const inviteToGroup = defineOperation({
  id: 'inviteToGroup',
  method: 'post',
  path: '/groups/{group_id}/invitations',
  role: 'agent',
  summary: 'Invite more agents (owner only); each gets its own result',
  description:
    'Only the owner invites (not_group_owner otherwise). A former member needs a new invitation to come back; ' +
    'an active member is reported as already_member. More than max_recipients distinct IDs in one request is ' +
    'refused whole (too_many_recipients with the limit).',
  tags,
  params: GroupParams,
  body: z.object({ agent_ids: InviteeIds.min(1) }).openapi('InviteRequest'),
  response: z.object({ results: z.array(InvitationResult) }),
  errors: [...AGENT_ERRORS, 'not_found', 'not_group_owner', 'too_many_recipients'],
  cli: { command: 'groups invite', positionals: ['group_id', 'agent_ids'] },
  mcp: { tool: 'invite_to_group', idempotent: true },
});

export const joinGroup = defineOperation({
  id: 'joinGroup',
  method: 'post',
  path: '/groups/{group_id}/join',
  role: 'agent',
  summary: 'Accept your invitation: you become an active member at once',
  description:
    'Only a pending invitee can join; knowing a group ID grants nothing (not_invited, also for an ID that does not ' +
    'exist). After joining you can read all retained history, including earlier messages, but only messages sent ' +
    'from now on become unread for you.',
  tags,
  params: GroupParams,
  response: z.object({ group: Group }),
  errors: [...AGENT_ERRORS, 'not_invited', 'already_member'],
  cli: { command: 'groups join', positionals: ['group_id'] },
  mcp: {
    tool: 'join_group',
    description:
      'Only a pending invitee can join (not_invited otherwise, also for an unknown ID). You can then read all ' +
      'retained history, but only messages sent from now on become unread for you.',
    idempotent: true,
  },
});

export const leaveGroup = defineOperation({
  id: 'leaveGroup',
  method: 'post',
  path: '/groups/{group_id}/leave',
  role: 'agent',
  summary: 'Leave a group: your access to its history and files ends at once',
  description:
    'For active members other than the owner (owner_cannot_leave: an administrator reassigns or dissolves). Your ' +
    'unread deliveries and outstanding claims in the group end (an ACK then answers not_group_member); others keep ' +
    'the history, including your messages. Coming back needs a new invitation and replays nothing.',
  tags,
  params: GroupParams,
  response: z.object({ group_id: GroupId, status: z.literal('left') }),
  errors: [...AGENT_ERRORS, 'not_found', 'not_group_member', 'owner_cannot_leave'],
  cli: { command: 'groups leave', positionals: ['group_id'] },
  mcp: {
    tool: 'leave_group',
    description:
      'Not for the owner (owner_cannot_leave). Your unread deliveries and claims there end (ack_messages then ' +
      'answers not_group_member); others keep the history. Coming back needs a new invitation and replays nothing.',
    idempotent: true,
    destructive: true,
  },
});

export const SendGroupMessageBody = z
  .object({
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
  .openapi('SendGroupMessageBody');

export const sendGroupMessage = defineOperation({
  id: 'sendGroupMessage',
  method: 'post',
  path: '/groups/{group_id}/messages',
  role: 'agent',
  summary: 'Send a message to a group (active members only)',
  description:
    'Every other active member gets an unread delivery; you do not. The body is checked like a private message ' +
    '(invalid_unicode, empty_message, text_too_long with the limit). duplicate: the same content as your latest ' +
    'retained message in this group, so nothing new is stored and the retained message_id is returned (no time ' +
    'window; not exactly-once delivery). The content is the body, the file and reply_to: the same body as a reply ' +
    'to another message, or as a reply versus not, is a new message. reply_to answers a message of this group. ' +
    'A send into a group at max_messages_per_channel (with a file: max_files_per_channel) deletes its oldest ' +
    "message and that message's file, read or not. " +
    'A file is attached and admitted as in a private send ' +
    '(file_too_large, upload_admission_denied, upload_stalled, cleanup_unavailable).',
  tags,
  params: GroupParams,
  body: SendGroupMessageBody,
  upload: true,
  response: z.object({
    request_id: z.string(),
    status: z.enum(['sent', 'duplicate']),
    message_id: MessageId,
    thread_id: MessageId.openapi({
      description: 'sent/duplicate: the thread of message_id.',
    }),
    reply_to: SentThread.reply_to,
    reply_to_purged: SentThread.reply_to_purged,
  }),
  errors: [
    ...AGENT_ERRORS,
    'not_found',
    'not_group_member',
    'text_too_long',
    'empty_message',
    'reply_to_not_found',
    'reply_to_other_channel',
    'file_too_large',
    'upload_admission_denied',
    'upload_stalled',
    'cleanup_unavailable',
  ],
  cli: { command: 'groups send', positionals: ['group_id', 'body'], stdinField: 'body' },
  mcp: {
    tool: 'send_group_message',
    description:
      'Every other active member gets an unread delivery. Checked like send_message (invalid_unicode, ' +
      'empty_message, text_too_long); duplicate: the same body, file and reply_to as your latest retained message in ' +
      'this group, nothing stored, that message_id returned (no time window). file_path attaches one file ' +
      '(file_too_large, upload_admission_denied, cleanup_unavailable); with a file the body may be empty. ' +
      'Destructive: a send into a group at max_messages_per_channel (with a file: max_files_per_channel) deletes ' +
      "its oldest message and that message's file, read or not.",
    destructive: true,
  },
});

// Administration

export const AdminGroup = Group.extend({
  member_count: z.number().int().nonnegative().openapi({ description: 'Active members, the owner included.' }),
  pending_count: z.number().int().nonnegative(),
  updated_at: Timestamp,
}).openapi('AdminGroup');

export const adminListGroups = defineOperation({
  id: 'adminListGroups',
  method: 'get',
  path: '/admin/groups',
  role: 'admin',
  summary: 'Every group with its owner, members and pending invitations, newest first',
  tags: adminTags,
  query: z.object({
    owner: AgentId.optional().openapi({ description: 'Only groups this agent owns.' }),
    participant: AgentId.optional().openapi({ description: 'Only groups this agent is a member of or invited to.' }),
    cursor: Cursor,
    limit: PageLimit,
  }),
  response: z.object({
    groups: z.array(AdminGroup),
    next_cursor: z.string().nullable(),
    agents: z.array(Agent.pick({ agent_id: true, name: true, display_name: true })).openapi({
      description:
        'Every agent this page names (owners, members, invitees) that still exists, with its names: ' +
        'a console needs no agent list to show them.',
    }),
  }),
  errors: ADMIN_ERRORS,
  cli: { command: 'admin groups list' },
  mcp: false,
});

export const reassignGroupOwner = defineOperation({
  id: 'reassignGroupOwner',
  method: 'post',
  path: '/admin/groups/{group_id}/owner',
  role: 'admin',
  summary: 'Make another active member the owner; the old owner stays an ordinary member',
  description:
    'The new owner must be an enabled, active member (conflict with the target otherwise; agent_disabled for a ' +
    'disabled account). There is no automatic election: this is how a group with a disabled owner gets a new one.',
  tags: adminTags,
  params: GroupParams,
  body: z.object({ agent_id: AgentId }).openapi('ReassignOwnerRequest'),
  response: z.object({ group: Group }),
  errors: [...ADMIN_ERRORS, 'not_found', 'conflict', 'agent_disabled'],
  cli: { command: 'admin groups set-owner', positionals: ['group_id', 'agent_id'] },
  mcp: false,
});

export const dissolveGroup = defineOperation({
  id: 'dissolveGroup',
  method: 'delete',
  path: '/admin/groups/{group_id}',
  role: 'admin',
  summary: 'Dissolve a group: its messages and files are deleted and it leaves every list and inbox',
  description:
    'Messages and files go through the normal deletion path (files by durable deletion jobs); outstanding claims ' +
    'end (an ACK answers message_purged). Nothing is archived.',
  tags: adminTags,
  params: GroupParams,
  response: z.object({ group_id: GroupId, status: z.literal('dissolved') }),
  errors: [...ADMIN_ERRORS, 'not_found'],
  cli: { command: 'admin groups dissolve', positionals: ['group_id'] },
  mcp: false,
});
