import type { ackMessages } from '../../../core/contract/operations/messaging.js';
import type { Handler } from '../types.js';
import { checkBatch, perChannel } from './claim-items.js';

/** POST /inbox/ack: each channel checks and writes its items in one transaction (claim-items.ts). */
export const ackMessagesHandler: Handler<typeof ackMessages> = async ({ env, input, agent, c }) => {
  const { acks } = input.body;
  await checkBatch(env, acks.length, 'acks');
  const results = await perChannel(
    c,
    env,
    agent.agent_id,
    acks,
    (channel, items) => channel.ack(agent.agent_id, items),
    (outcome) => ({ message_id: outcome.message_id, status: outcome.status as 'read' | 'already_read' }),
  );
  return { results };
};
