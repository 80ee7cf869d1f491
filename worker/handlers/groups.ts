/**
 * The group routes. Every decision about who may do what is the group channel's (it applies
 * core/domain/groups.ts inside its own transactions); these handlers look accounts up in the
 * registry, pick the channel and shape the answers.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../../core/contract/errors.js';
import {
  type createGroup,
  type getGroup,
  type InvitationResult,
  type inviteToGroup,
  type joinGroup,
  type leaveGroup,
  type listGroups,
  SendGroupMessageBody,
  type sendGroupMessage,
} from '../../core/contract/operations/groups.js';
import { collapseTargets, validateContent } from '../../core/domain/content.js';
import { GROUP_ACCESS, type GroupAction, type GroupView, type InvitationOutcome } from '../../core/domain/groups.js';
import { requireReplyInChannel } from '../../core/domain/threads.js';
import type { Env } from '../../core/env.js';
import { newId } from '../../core/lib/crypto.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { agentObject, channelObject, registry } from '../../core/stubs.js';
import { isMultipart } from '../body/index.js';
import { isKnownChannel } from './channel-access.js';
import { readSendRequest } from './messaging/upload.js';
import type { AppEnv, Handler } from './types.js';

type Result = z.infer<typeof InvitationResult>;

const REJECTION_TEXT: Partial<Record<ErrorCode, string>> = {
  unknown_agent: 'No agent has this ID.',
  agent_disabled: 'This agent is disabled and cannot be invited.',
  already_member: 'Already an active member of the group.',
  group_full: 'The group has max_group_members members and pending invitations.',
};

const STRANGER_TEXT: Partial<Record<ErrorCode, string>> = {
  not_found: 'No such group.',
  not_invited: 'You have no pending invitation to this group; knowing its ID is not enough.',
};

/**
 * A group the agent's index does not know is one it is a stranger to (or that does not exist):
 * answered here with the stranger's verdict of the authorization matrix, exactly what the group
 * would answer, without opening its object (which would create it). See channel-access.ts.
 */
async function requireKnownGroup(
  c: Context<AppEnv>,
  env: Env,
  agentId: string,
  groupId: string,
  action: GroupAction,
): Promise<void> {
  if (await isKnownChannel(c, env, agentId, groupId)) return;
  const code = GROUP_ACCESS[action].stranger as ErrorCode;
  throw new ApiError(code, STRANGER_TEXT[code] ?? 'Not allowed.', { target: groupId });
}

/** What the registry knows about each target (absent: unknown), in one registry call. */
async function accountsOf(env: Env, targets: readonly string[]): Promise<[string, { enabled: boolean }][]> {
  const found = await registry(env).getAgents(targets.filter((t) => t.startsWith('agt_')));
  return found.map((a) => [a.agent_id, { enabled: a.enabled }]);
}

function results(outcomes: InvitationOutcome[], maxMembers: number): Result[] {
  return outcomes.map((o) =>
    o.status === 'rejected'
      ? {
          target_agent_id: o.target_agent_id,
          status: 'rejected',
          error: {
            code: o.code,
            message: REJECTION_TEXT[o.code],
            ...(o.code === 'group_full' && { limit: maxMembers }),
          },
        }
      : { target_agent_id: o.target_agent_id, status: o.status },
  );
}

const newestFirst = (a: GroupView, b: GroupView) =>
  b.created_at.localeCompare(a.created_at) || a.group_id.localeCompare(b.group_id);

/**
 * GET /groups: the agent's inbox index names the groups it is in or invited to (learned through
 * the groups' outboxes, never by scanning groups); each named group then answers for itself, so a
 * stale index entry can never show a group the agent has left or a member list it may not see.
 */
export const listGroupsHandler: Handler<typeof listGroups> = async ({ env, agent }) => {
  const entries = await agentObject(env, agent.agent_id).groupMemberships();
  const views = await Promise.all(entries.map((e) => channelObject(env, e.group_id).groupView(agent.agent_id)));
  const memberships: GroupView[] = [];
  const invitations: GroupView[] = [];
  for (const view of views) {
    if (view?.relation === 'owner' || view?.relation === 'member') memberships.push(view.group);
    else if (view?.relation === 'invitee') invitations.push(view.group);
  }
  return { memberships: memberships.sort(newestFirst), invitations: invitations.sort(newestFirst) };
};

/** Invitees per request are capped like message targets (max_recipients), before any lookup. */
function checkInviteeCount(targets: readonly string[], field: string, limit: number): void {
  if (targets.length > limit) {
    throw new ApiError('too_many_recipients', `${targets.length} distinct invitees; at most ${limit} per request.`, {
      field,
      limit,
    });
  }
}

export const createGroupHandler: Handler<typeof createGroup> = async ({ env, input, agent }) => {
  const { limits } = await currentSettings(env);
  const targets = collapseTargets(input.body.invitee_ids ?? []);
  checkInviteeCount(targets, 'invitee_ids', limits.max_recipients);
  const accounts = await accountsOf(
    env,
    targets.filter((t) => t !== agent.agent_id),
  );
  const groupId = newId('grp_');
  const created = await channelObject(env, groupId).createGroup({
    group_id: groupId,
    name: input.body.name,
    owner_id: agent.agent_id,
    targets,
    accounts,
    max_members: limits.max_group_members,
  });
  return { group: created.group, results: results(created.outcomes, limits.max_group_members) };
};

export const getGroupHandler: Handler<typeof getGroup> = async ({ env, input, agent, c }) => {
  await requireKnownGroup(c, env, agent.agent_id, input.params.group_id, 'view');
  const view = await channelObject(env, input.params.group_id).groupView(agent.agent_id);
  if (!view) throw new ApiError('not_found', 'No such group.', { target: input.params.group_id });
  return { group: view.group };
};

export const inviteToGroupHandler: Handler<typeof inviteToGroup> = async ({ env, input, agent, c }) => {
  await requireKnownGroup(c, env, agent.agent_id, input.params.group_id, 'invite');
  const { limits } = await currentSettings(env);
  const targets = collapseTargets(input.body.agent_ids);
  checkInviteeCount(targets, 'agent_ids', limits.max_recipients);
  const outcomes = await channelObject(env, input.params.group_id).invite({
    group_id: input.params.group_id,
    agent_id: agent.agent_id,
    targets,
    accounts: await accountsOf(env, targets),
    max_members: limits.max_group_members,
  });
  return { results: results(outcomes, limits.max_group_members) };
};

export const joinGroupHandler: Handler<typeof joinGroup> = async ({ env, input, agent, c }) => {
  await requireKnownGroup(c, env, agent.agent_id, input.params.group_id, 'join');
  return { group: await channelObject(env, input.params.group_id).join(input.params.group_id, agent.agent_id) };
};

export const leaveGroupHandler: Handler<typeof leaveGroup> = async ({ env, input, agent, c }) => {
  await requireKnownGroup(c, env, agent.agent_id, input.params.group_id, 'leave');
  await channelObject(env, input.params.group_id).leave(input.params.group_id, agent.agent_id);
  return { group_id: input.params.group_id, status: 'left' as const };
};

export const sendGroupMessageHandler: Handler<typeof sendGroupMessage> = async ({
  env,
  input,
  agent,
  c,
  requestId,
}) => {
  const { limits } = await currentSettings(env);
  // A JSON send's text is refused before any object is asked about the group, as a direct send's is.
  if (!isMultipart(c)) validateContent(input.body.body, false, limits.max_body_code_points);
  await requireKnownGroup(c, env, agent.agent_id, input.params.group_id, 'send');
  // Multipart: checked as soon as the metadata arrives, before the file is staged.
  const replyCheck = (replyTo: string | undefined) => {
    if (replyTo !== undefined) requireReplyInChannel(replyTo, input.params.group_id);
  };
  const upload = await readSendRequest(c, SendGroupMessageBody, input.body, (early) => {
    validateContent(early.body, true, limits.max_body_code_points);
    replyCheck(early.reply_to);
  });
  try {
    validateContent(upload.body.body, upload.file !== null, limits.max_body_code_points);
    const replyTo = upload.body.reply_to;
    replyCheck(replyTo);
    const outcome = await channelObject(env, input.params.group_id).sendGroup({
      group_id: input.params.group_id,
      sender_id: agent.agent_id,
      sender_name: agent.display_name,
      ...(replyTo !== undefined && { reply_to: replyTo }),
      content: { body: upload.body.body, attachment: null },
      max_messages: limits.max_messages_per_channel,
      max_files: limits.max_files_per_channel,
      ...(upload.file && { file: upload.file }),
    });
    return {
      request_id: requestId,
      status: outcome.status,
      message_id: outcome.message_id,
      thread_id: outcome.thread_id,
      reply_to: outcome.reply_to,
      ...(outcome.status === 'sent' &&
        outcome.reply_to_purged !== undefined && { reply_to_purged: outcome.reply_to_purged }),
    };
  } finally {
    // The group message has its own copy by now (or failed): the staged upload goes.
    await upload.release();
  }
};
