import type { z } from '@hono/zod-openapi';
import { ApiError, type ErrorCode } from '../../contract/errors.js';
import { SendDirectBody, type SendResult, type sendDirect } from '../../contract/operations/messaging.js';
import { collapseTargets, validateContent } from '../../domain/content.js';
import { dmChannelId } from '../../domain/ids.js';
import { currentSettings, registry } from '../../lib/settings-cache.js';
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
 * independent: its own channel, its own message, its own dedup and retention, its own result.
 */
export const sendDirectHandler: Handler<typeof sendDirect> = async ({ env, input, c, agent, requestId }) => {
  const { body: request, attachment } = await readSendRequest(c, SendDirectBody, input.body);
  const { limits } = await currentSettings(env);
  validateContent(request.body, attachment !== null, limits.max_body_code_points);
  const targets = collapseTargets(request.to_agent_ids);
  if (targets.length > limits.max_recipients) {
    throw new ApiError(
      'too_many_recipients',
      `${targets.length} distinct targets; at most ${limits.max_recipients} per request.`,
      { field: 'to_agent_ids', limit: limits.max_recipients },
    );
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
          recipient_id: target,
          content: { body: request.body, attachment },
          max_messages: limits.max_messages_per_channel,
        });
        return {
          target_agent_id: target,
          status: outcome.status,
          message_id: outcome.message_id,
          channel_id: channelId,
        };
      } catch (error) {
        // One target's failure must not sink the others; a retry is safe because it is deduplicated.
        console.error('send to channel failed', channelId, error instanceof Error ? error.message : error);
        return rejected(target, 'unavailable');
      }
    }),
  );
  calls.report(c);
  return { request_id: requestId, results };
};
