/**
 * GET /search: the caller's channels only. The agent's inbox index names them (private channels
 * and the groups it is an active member of); nothing else is ever asked, and each channel checks
 * again, with history's rule, that the caller is an active participant before touching its index.
 */

import { ApiError } from '../../../core/contract/errors.js';
import type { searchMessages } from '../../../core/contract/operations/search.js';
import { budgetShare } from '../../../core/domain/search.js';
import { decodeCursor, encodeCursor, pageSize } from '../../../core/lib/cursor.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import type { ChannelSearchPage } from '../../../core/rpc.js';
import { agentObject } from '../../../core/stubs.js';
import { scanInOrder } from '../../lib/ordered-scan.js';
import type { Handler } from '../types.js';
import { ChannelCalls } from './stubs.js';

/** Channels asked at once: enough to hide latency, few enough not to flood one isolate. */
const SEARCH_CONCURRENCY = 8;

/** Results are ordered newest first: created_at desc, then channel_id desc, then seq desc. */
interface Position {
  created_at: number;
  channel_id: string;
  seq: number;
}

function parseCursor(cursor: string | undefined): Position | null {
  const value = decodeCursor(cursor);
  if (value === null) return null;
  const [createdAt, channelId, seq] = value;
  if (
    value.length !== 3 ||
    typeof createdAt !== 'number' ||
    !Number.isSafeInteger(createdAt) ||
    typeof channelId !== 'string' ||
    typeof seq !== 'number' ||
    !Number.isSafeInteger(seq)
  ) {
    throw new ApiError('validation_failed', 'The cursor is not one this server issued.', { field: 'cursor' });
  }
  return { created_at: createdAt, channel_id: channelId, seq };
}

/** What "after the cursor" means inside one channel, whose ID is fixed (see Position's order). */
function beforeIn(channelId: string, after: Position | null): { created_at: number; seq: number } | null {
  if (!after) return null;
  if (channelId === after.channel_id) return { created_at: after.created_at, seq: after.seq };
  // A channel sorting before the cursor's channel still has its hits at the cursor's time to give.
  return { created_at: after.created_at, seq: channelId < after.channel_id ? Number.MAX_SAFE_INTEGER : 0 };
}

function compare(a: Position, b: Position): number {
  return (
    b.created_at - a.created_at ||
    (a.channel_id < b.channel_id ? 1 : a.channel_id > b.channel_id ? -1 : 0) ||
    b.seq - a.seq
  );
}

/** Where a channel stopped examining, as a position in the merged order; null: at its end. */
function stopOf(channelId: string, page: ChannelSearchPage | null): Position | null {
  return page?.resume ? { created_at: page.resume.created_at, channel_id: channelId, seq: page.resume.seq } : null;
}

export const searchMessagesHandler: Handler<typeof searchMessages> = async ({ env, input, agent, c }) => {
  const { q, channel_id, kind } = input.query;
  const after = parseCursor(input.query.cursor);
  const { limits } = await currentSettings(env);
  const limit = pageSize(input.query.limit, limits.max_page_size, 20);
  const calls = new ChannelCalls(env);
  const listed: { channel_id: string; kind: 'private' | 'group' }[] = await agentObject(
    env,
    agent.agent_id,
  ).listChannels(kind);
  // Only channels the index names: a foreign or made-up ID reaches no channel object at all.
  const channels = channel_id === undefined ? listed : listed.filter((ch) => ch.channel_id === channel_id);
  if (channel_id !== undefined && channels.length === 0) {
    calls.report(c);
    throw new ApiError('not_found', 'No such channel.', { field: 'channel_id', target: channel_id });
  }
  // The request's work is bounded in total: each channel examines its share of the budget.
  const budget = budgetShare(channels.length);
  const answers: { channel_id: string; kind: 'private' | 'group'; page: ChannelSearchPage | null }[] = [];
  await scanInOrder(
    channels,
    SEARCH_CONCURRENCY,
    async (ch) => ({
      channel_id: ch.channel_id,
      kind: ch.kind,
      // limit + 1 from each: the merge then knows whether anything follows its page.
      page: await calls
        .channel(ch.channel_id)
        .search(agent.agent_id, q, beforeIn(ch.channel_id, after), limit + 1, budget),
    }),
    (answer) => {
      answers.push(answer);
      return true;
    },
  );
  // The merge is complete only up to the newest position where a channel stopped: past it, that
  // channel may have hits it did not examine. The page ends there, however few hits it holds.
  let frontier: Position | null = null;
  for (const a of answers) {
    const stop = stopOf(a.channel_id, a.page);
    if (stop && (!frontier || compare(stop, frontier) < 0)) frontier = stop;
  }
  // A channel that answers null is one the index still lists but the caller no longer reads.
  const merged = answers
    .flatMap((a) => (a.page?.hits ?? []).map((hit) => ({ ...hit, kind: a.kind })))
    .sort(compare)
    .filter((hit) => !frontier || compare(hit, frontier) <= 0);
  const page = merged.slice(0, limit);
  const last = page.at(-1);
  const next =
    merged.length > limit || (frontier && page.length === limit)
      ? last && encodeCursor([last.created_at, last.channel_id, last.seq])
      : frontier && encodeCursor([frontier.created_at, frontier.channel_id, frontier.seq]);
  calls.report(c);
  return {
    hits: page.map((hit) => ({
      channel_id: hit.channel_id,
      kind: hit.kind,
      message_id: hit.message_id,
      sender_id: hit.sender_id,
      created_at: new Date(hit.created_at).toISOString(),
      seq: hit.seq,
      snippet: hit.snippet,
    })),
    next_cursor: next || null,
  };
};
