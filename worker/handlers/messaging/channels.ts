import { ApiError } from '../../../core/contract/errors.js';
import type { listChannels, listMessages } from '../../../core/contract/operations/messaging.js';
import { decodeSeqCursor, encodeCursor, pageSize } from '../../../core/lib/cursor.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import { agentObject } from '../../../core/stubs.js';
import { isKnownChannel } from '../channel-access.js';
import type { Handler } from '../types.js';
import { ChannelCalls } from './stubs.js';

/** GET /channels: straight from the agent's inbox index, no channel is asked. */
export const listChannelsHandler: Handler<typeof listChannels> = async ({ env, input, agent }) => ({
  channels: await agentObject(env, agent.agent_id).listChannels(input.query.kind),
});

/** GET /channels/{id}/messages: a keyset page over seq; the channel checks participation. */
export const listMessagesHandler: Handler<typeof listMessages> = async ({ env, input, agent, c }) => {
  const { limits } = await currentSettings(env);
  const order = input.query.order ?? 'asc';
  const afterSeq = decodeSeqCursor(input.query.cursor);
  // A channel the agent was never in is not opened (that would create it): not_found, as it would say.
  if (!(await isKnownChannel(c, env, agent.agent_id, input.params.channel_id))) {
    throw new ApiError('not_found', 'No such channel.');
  }
  const calls = new ChannelCalls(env);
  const page = await calls
    .channel(input.params.channel_id)
    .history(agent.agent_id, afterSeq, pageSize(input.query.limit, limits.max_page_size), order, input.query.thread_id);
  calls.report(c);
  return {
    messages: page.messages,
    next_cursor: page.next_seq === null ? null : encodeCursor([page.next_seq]),
  };
};
