import { ApiError } from '../../core/contract/errors.js';
import type * as ops from '../../core/contract/operations/files.js';
import { channelOfFileId } from '../../core/domain/file-id.js';
import { decodeSeqCursor, encodeCursor, pageSize } from '../../core/lib/cursor.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { channelObject } from '../../core/stubs.js';
import { isKnownChannel } from './channel-access.js';
import { fileResponse } from './download-response.js';
import type { Handler } from './types.js';

const notFound = (what: string) => new ApiError('not_found', `No such ${what}.`);

export const listChannelFilesHandler: Handler<typeof ops.listChannelFiles> = async ({ env, input, agent, c }) => {
  const { limits } = await currentSettings(env);
  const { cursor, limit, order } = input.query;
  const afterSeq = decodeSeqCursor(cursor);
  // A channel the agent was never in is not opened (that would create it): not_found, as it would say.
  if (!(await isKnownChannel(c, env, agent.agent_id, input.params.channel_id))) throw notFound('channel');
  const page = await channelObject(env, input.params.channel_id).listFiles(
    agent.agent_id,
    afterSeq,
    pageSize(limit, limits.max_page_size),
    order ?? 'asc',
  );
  if (!page) throw notFound('channel');
  return { files: page.files, next_cursor: page.next_seq === null ? null : encodeCursor([page.next_seq]) };
};

/**
 * Every download asks the channel: the caller must be an active participant now (a member who
 * left, or an agent never in the channel, gets not_found, as for a file that does not exist).
 * The bytes stream from R2; the answer never lets a browser sniff or render them inline.
 */
export const downloadFileHandler: Handler<typeof ops.downloadFile> = async ({ env, input, agent, c }) => {
  const channelId = channelOfFileId(input.params.file_id);
  if (!channelId || !(await isKnownChannel(c, env, agent.agent_id, channelId))) throw notFound('file');
  const stored = await channelObject(env, channelId).fileForDownload(agent.agent_id, input.params.file_id);
  if (!stored) throw notFound('file');
  const object = await env.FILES.get(stored.key);
  // Deleted between the check and the read (retention): as gone as if the check had seen it.
  if (!object) throw notFound('file');
  return fileResponse(stored, object);
};
