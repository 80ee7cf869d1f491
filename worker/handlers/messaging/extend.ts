import { ApiError } from '../../../core/contract/errors.js';
import type { extendClaims } from '../../../core/contract/operations/leases.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import type { Handler } from '../types.js';
import { checkBatch, perChannel } from './claim-items.js';

/**
 * POST /inbox/extend: new expiry now + seconds (1..claim_seconds, default claim_seconds). A request
 * over the setting is refused whole before any channel is asked, so it changes no lease.
 */
export const extendClaimsHandler: Handler<typeof extendClaims> = async ({ env, input, agent, c }) => {
  const { items } = input.body;
  await checkBatch(env, items.length, 'items');
  const { limits } = await currentSettings(env);
  const seconds = input.body.seconds ?? limits.claim_seconds;
  if (seconds > limits.claim_seconds) {
    throw new ApiError('validation_failed', `seconds is at most claim_seconds (${limits.claim_seconds}).`, {
      field: 'seconds',
      limit: limits.claim_seconds,
    });
  }
  const results = await perChannel(
    c,
    env,
    agent.agent_id,
    items,
    (channel, batch) => channel.extend(agent.agent_id, batch, seconds),
    (outcome) => ({
      message_id: outcome.message_id,
      status: 'extended' as const,
      claim_expires_at: new Date('claim_expires_at' in outcome ? outcome.claim_expires_at : 0).toISOString(),
    }),
  );
  return { results };
};
