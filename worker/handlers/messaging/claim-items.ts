/**
 * The one path of ACK, extend and release: items may span channels, and each message ID names its
 * channel, so the items are grouped and every channel checks and writes its own in one
 * transaction. Channels the agent was never in are not opened (that would create them): their
 * items answer not_found, as the channel would. Results keep the request's order.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../../../core/contract/errors.js';
import type { AckItem, AckResult } from '../../../core/contract/operations/messaging.js';
import { channelOfMessageId } from '../../../core/domain/ids.js';
import type { Env } from '../../../core/env.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import { knownChannels } from '../channel-access.js';
import type { AppEnv } from '../types.js';
import { ChannelCalls, type ChannelStub } from './stubs.js';

export type ClaimItem = z.infer<typeof AckItem>;

/** A rejected item: the ACK result's shape, which extend and release share. */
export type Rejected = Omit<z.infer<typeof AckResult>, 'status' | 'error'> & {
  status: 'rejected';
  error: NonNullable<z.infer<typeof AckResult>['error']>;
};

const REJECTION_TEXT: Partial<Record<ErrorCode, string>> = {
  claim_expired: 'The claim ended (expired or released); claim the message again.',
  claim_replaced: 'The message was claimed again since; this token is no longer valid.',
  invalid_claim_token: 'This token was not issued for this message to this agent.',
  already_read: 'The message was already ACKed as read.',
  message_purged: 'The message was deleted by retention.',
  not_found: 'No such message in your channels.',
  not_group_member: 'You are no longer a member of this group.',
  unavailable: 'The channel could not be reached; retry this item.',
};

export function rejected(messageId: string, code: ErrorCode): Rejected {
  return { message_id: messageId, status: 'rejected', error: { code, message: REJECTION_TEXT[code] } };
}

/** Refuses a batch over max_claim_batch before anything is asked: nothing is changed. */
export async function checkBatch(env: Env, count: number, field: string): Promise<void> {
  const { limits } = await currentSettings(env);
  if (count > limits.max_claim_batch) {
    throw new ApiError('validation_failed', `At most ${limits.max_claim_batch} items per request.`, {
      field,
      limit: limits.max_claim_batch,
    });
  }
}

/**
 * Runs `call` on each channel named by the items, with that channel's items, and maps each
 * outcome (a rejection code, or the success result) to a result in the request's order.
 */
export async function perChannel<O extends { message_id: string; status: string }, R>(
  c: Context<AppEnv>,
  env: Env,
  agentId: string,
  items: readonly ClaimItem[],
  call: (
    channel: ChannelStub,
    items: ClaimItem[],
  ) => Promise<(O | { message_id: string; status: 'rejected'; code: ErrorCode })[]>,
  success: (outcome: O) => R,
): Promise<(R | Rejected)[]> {
  const results: (R | Rejected)[] = new Array(items.length);
  const byChannel = new Map<string, number[]>();
  items.forEach((item, i) => {
    const channelId = channelOfMessageId(item.message_id);
    if (!channelId) results[i] = rejected(item.message_id, 'not_found');
    else byChannel.set(channelId, [...(byChannel.get(channelId) ?? []), i]);
  });
  const known = await knownChannels(c, env, agentId, [...byChannel.keys()]);
  for (const [channelId, indexes] of byChannel) {
    if (known.has(channelId)) continue;
    for (const i of indexes) results[i] = rejected(items[i]!.message_id, 'not_found');
    byChannel.delete(channelId);
  }
  const calls = new ChannelCalls(env);
  await Promise.all(
    [...byChannel].map(async ([channelId, indexes]) => {
      try {
        const outcomes = await call(
          calls.channel(channelId),
          indexes.map((i) => items[i]!),
        );
        outcomes.forEach((outcome, k) => {
          const i = indexes[k]!;
          results[i] =
            'code' in outcome && outcome.status === 'rejected'
              ? rejected(outcome.message_id, outcome.code)
              : success(outcome as O);
        });
      } catch (error) {
        console.error('claim items in channel failed', channelId, error instanceof Error ? error.message : error);
        for (const i of indexes) results[i] = rejected(items[i]!.message_id, 'unavailable');
      }
    }),
  );
  calls.report(c);
  return results;
}
