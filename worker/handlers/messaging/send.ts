import type { z } from '@hono/zod-openapi';
import { ApiError, type ErrorCode, reviveApiError } from '../../../core/contract/errors.js';
import type { Limits } from '../../../core/contract/models.js';
import { SendDirectBody, type SendResult, type sendDirect } from '../../../core/contract/operations/messaging.js';
import { collapseTargets, validateContent } from '../../../core/domain/content.js';
import { dmChannelId } from '../../../core/domain/ids.js';
import type { StagedFile } from '../../../core/domain/principals.js';
import { requireReplyInChannel, requireSingleReplyTarget } from '../../../core/domain/threads.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import { registry } from '../../../core/stubs.js';
import type { Handler } from '../types.js';
import { ChannelCalls } from './stubs.js';
import { readSendRequest } from './upload.js';

type Result = z.infer<typeof SendResult>;

const REJECTION_TEXT: Partial<Record<ErrorCode, string>> = {
  self_send_forbidden: 'An agent cannot send a message to itself.',
  unknown_agent: 'No agent has this ID.',
  agent_disabled: 'This agent is disabled and cannot receive messages.',
  unavailable: 'The message could not be stored just now; retry (a retry is deduplicated).',
};

function rejected(target: string, code: ErrorCode): Result {
  return { target_agent_id: target, status: 'rejected', error: { code, message: REJECTION_TEXT[code] } };
}

/**
 * POST /messages/direct. The content is checked once for the whole request; then each target is
 * independent: its own channel, its own message (with its own copy of the file), its own dedup
 * and retention, its own result.
 */
export const sendDirectHandler: Handler<typeof sendDirect> = async (ctx) => {
  const { limits } = await currentSettings(ctx.env);
  // A multipart request is checked as soon as its metadata arrives, before the file is staged.
  const upload = await readSendRequest(ctx.c, SendDirectBody, ctx.input.body, (early) => {
    validateContent(early.body, true, limits.max_body_code_points);
    checkRecipients(early.to_agent_ids, limits);
    requireSingleReplyTarget(early.reply_to, collapseTargets(early.to_agent_ids).length);
  });
  try {
    return await sendToTargets(ctx, limits, upload.body, upload.file);
  } finally {
    // Every target has its own copy by now (or failed): the staged upload goes.
    await upload.release();
  }
};

function checkRecipients(ids: readonly string[], limits: Limits): void {
  const count = collapseTargets(ids).length;
  if (count > limits.max_recipients) {
    throw new ApiError(
      'too_many_recipients',
      `${count} distinct targets; at most ${limits.max_recipients} per request.`,
      {
        field: 'to_agent_ids',
        limit: limits.max_recipients,
      },
    );
  }
}

async function sendToTargets(
  { env, c, agent, requestId }: Parameters<Handler<typeof sendDirect>>[0],
  limits: Limits,
  request: z.infer<typeof SendDirectBody>,
  file: StagedFile | null,
) {
  validateContent(request.body, file !== null, limits.max_body_code_points);
  checkRecipients(request.to_agent_ids, limits);
  const targets = collapseTargets(request.to_agent_ids);
  // A reply goes to the one private channel its reply_to belongs to (threads.ts); a reply to
  // yourself is refused per target below, like any message to yourself.
  const replyTo = request.reply_to;
  requireSingleReplyTarget(replyTo, targets.length);
  if (replyTo !== undefined && targets[0] !== agent.agent_id) {
    requireReplyInChannel(replyTo, await dmChannelId(agent.agent_id, targets[0]!));
  }

  const others = targets.filter((t) => t !== agent.agent_id);
  const found = await registry(env).getAgents(others);
  const agents = new Map(found.map((a) => [a.agent_id, a]));

  const calls = new ChannelCalls(env);
  const results = await Promise.all(
    targets.map(async (target): Promise<Result> => {
      if (target === agent.agent_id) return rejected(target, 'self_send_forbidden');
      const recipient = agents.get(target);
      if (!recipient) return rejected(target, 'unknown_agent');
      if (!recipient.enabled) return rejected(target, 'agent_disabled');
      const channelId = await dmChannelId(agent.agent_id, target);
      try {
        const outcome = await calls.channel(channelId).sendDirect({
          channel_id: channelId,
          sender_id: agent.agent_id,
          sender_name: agent.display_name,
          ...(replyTo !== undefined && { reply_to: replyTo }),
          recipient_id: target,
          content: { body: request.body, attachment: null },
          max_messages: limits.max_messages_per_channel,
          max_files: limits.max_files_per_channel,
          ...(file && { file }),
        });
        return {
          target_agent_id: target,
          status: outcome.status,
          message_id: outcome.message_id,
          channel_id: channelId,
          thread_id: outcome.thread_id,
          reply_to: outcome.reply_to,
          ...(outcome.status === 'sent' &&
            outcome.reply_to_purged !== undefined && { reply_to_purged: outcome.reply_to_purged }),
        };
      } catch (error) {
        // A reply_to the channel does not know stores nothing and fails the (single-target) request.
        const revived = reviveApiError(error);
        if (revived instanceof ApiError && revived.code === 'reply_to_not_found') throw revived;
        // One target's failure must not sink the others; a retry is safe because it is deduplicated.
        console.error('send to channel failed', channelId, error instanceof Error ? error.message : error);
        return rejected(target, 'unavailable');
      }
    }),
  );
  calls.report(c);
  return { request_id: requestId, results };
}
