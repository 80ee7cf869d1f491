import type { releaseClaims } from '../../../core/contract/operations/leases.js';
import type { Handler } from '../types.js';
import { checkBatch, perChannel } from './claim-items.js';

/** POST /inbox/release: each lease ends now; the deliveries are claimable (or parked) at once. */
export const releaseClaimsHandler: Handler<typeof releaseClaims> = async ({ env, input, agent, c }) => {
  const { items } = input.body;
  await checkBatch(env, items.length, 'items');
  const results = await perChannel(
    c,
    env,
    agent.agent_id,
    items,
    (channel, batch) => channel.release(agent.agent_id, batch),
    (outcome) => ({ message_id: outcome.message_id, status: 'released' as const }),
  );
  return { results };
};
