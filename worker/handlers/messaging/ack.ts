import type { z } from '@hono/zod-openapi';
import { ApiError, type ErrorCode } from '../../../core/contract/errors.js';
import type { AckResult, ackMessages } from '../../../core/contract/operations/messaging.js';
import { channelOfMessageId } from '../../../core/domain/ids.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import { knownChannels } from '../channel-access.js';
import type { Handler } from '../types.js';
import { ChannelCalls } from './stubs.js';

type Result = z.infer<typeof AckResult>;

const REJECTION_TEXT: Partial<Record<ErrorCode, string>> = {
  claim_expired: 'The claim expired before this ACK; claim the message again.',
  claim_replaced: 'The message was claimed again since; this token is no longer valid.',
  invalid_claim_token: 'This token was not issued for this message to this agent.',
  message_purged: 'The message was deleted by retention.',
  not_found: 'No such message in your channels.',
  unavailable: 'The channel could not be reached; retry this item.',
};

function rejected(messageId: string, code: ErrorCode): Result {
  return { message_id: messageId, status: 'rejected', error: { code, message: REJECTION_TEXT[code] } };
}

/**
 * POST /inbox/ack. Items may span channels: each message ID names its channel, so the items are
 * grouped and every channel checks and writes its own in one transaction. Results keep the
 * request's order.
 */
export const ackMessagesHandler: Handler<typeof ackMessages> = async ({ env, input, agent, c }) => {
  const { acks } = input.body;
  const { limits } = await currentSettings(env);
  if (acks.length > limits.max_claim_batch) {
    throw new ApiError('validation_failed', `At most ${limits.max_claim_batch} ACKs per request.`, {
      field: 'acks',
      limit: limits.max_claim_batch,
    });
  }
  const results: Result[] = new Array(acks.length);
  const byChannel = new Map<string, number[]>();
  acks.forEach((item, i) => {
    const channelId = channelOfMessageId(item.message_id);
    if (!channelId) results[i] = rejected(item.message_id, 'not_found');
    else byChannel.set(channelId, [...(byChannel.get(channelId) ?? []), i]);
  });
  // Channels the agent was never in are not opened (that would create them): not_found, as they would say.
  const known = await knownChannels(c, env, agent.agent_id, [...byChannel.keys()]);
  for (const [channelId, indexes] of byChannel) {
    if (known.has(channelId)) continue;
    for (const i of indexes) results[i] = rejected(acks[i]!.message_id, 'not_found');
    byChannel.delete(channelId);
  }
  const calls = new ChannelCalls(env);
  await Promise.all(
    [...byChannel].map(async ([channelId, indexes]) => {
      try {
        const outcomes = await calls.channel(channelId).ack(
          agent.agent_id,
          indexes.map((i) => acks[i]!),
        );
        outcomes.forEach((outcome, k) => {
          const i = indexes[k]!;
          results[i] =
            outcome.status === 'rejected'
              ? rejected(outcome.message_id, outcome.code)
              : { message_id: outcome.message_id, status: outcome.status };
        });
      } catch (error) {
        console.error('ack in channel failed', channelId, error instanceof Error ? error.message : error);
        for (const i of indexes) results[i] = rejected(acks[i]!.message_id, 'unavailable');
      }
    }),
  );
  calls.report(c);
  return { results };
};
