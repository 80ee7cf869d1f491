/**
 * The administrators' channel routes (REQ-54, REQ-58, REQ-59). The list pages through the
 * retention object's channel catalog (Durable Objects cannot be enumerated) and asks each channel
 * for its summary, a bounded number at a time; identity filters and the content search run inside
 * the channels, so only matches travel back. Reading never claims and never changes read state.
 */
import { ApiError } from '../../core/contract/errors.js';
import type * as ops from '../../core/contract/operations/admin-console.js';
import { type ChannelAdminSummary, parseParticipants } from '../../core/domain/admin-channels.js';
import type { Env } from '../../core/env.js';
import { decodeSeqCursor, encodeCursor, pageSize } from '../../core/lib/cursor.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { channelObject, registry, retention } from '../../core/stubs.js';
import { scanCatalogPage } from '../lib/ordered-scan.js';
import type { Handler } from './types.js';

/**
 * Catalog entries one list page examines at most. With a content search every examined channel
 * runs the search, so this bounds a page's time (docs/benchmarks.md: `npm run bench:admin-search`);
 * without one the page usually stops much earlier, at `limit` matches.
 */
export const CHANNELS_SCANNED_PER_PAGE = 500;
/**
 * Catalog entries a page with a content search examines at most. Each channel searches at most
 * SEARCH_BUDGET (rows and characters) in one call, newest first, so no call holds the one thread
 * long; this bounds how many such calls one request makes.
 */
export const CONTENT_SEARCHED_PER_PAGE = 50;
/** Channel summaries asked for at the same time. */
export const SUMMARY_CONCURRENCY = 16;

type Names = Map<string, { name: string; display_name: string }>;

/** The names of every agent taking part in `summaries`, in one registry call. */
async function namesOf(env: Env, summaries: readonly ChannelAdminSummary[]): Promise<Names> {
  const ids = [...new Set(summaries.flatMap((s) => s.participants.map((p) => p.agent_id)))];
  if (ids.length === 0) return new Map();
  const agents = await registry(env).getAgents(ids);
  return new Map(agents.map((a) => [a.agent_id, { name: a.name, display_name: a.display_name }]));
}

function wireSummary(s: ChannelAdminSummary, names: Names) {
  const group = s.kind === 'group';
  const owner = group ? s.participants.find((p) => p.role === 'owner') : undefined;
  return {
    channel_id: s.channel_id,
    kind: s.kind,
    ...(group ? { name: s.name ?? '', status: s.status } : {}),
    // Private channels have two equal participants: state and role only mean something in groups.
    participants: s.participants.map((p) => ({
      agent_id: p.agent_id,
      name: names.get(p.agent_id)?.name ?? null,
      display_name: names.get(p.agent_id)?.display_name ?? null,
      ...(group ? { state: p.state, role: p.role } : {}),
    })),
    ...(owner ? { owner_id: owner.agent_id } : {}),
    message_count: s.message_count,
    file_count: s.file_count,
    last_message_at: s.last_message_at === null ? null : new Date(s.last_message_at).toISOString(),
    created_at: new Date(s.created_at).toISOString(),
    ...(s.matching_messages ? { matching_messages: s.matching_messages } : {}),
    ...(s.search_complete !== undefined && s.matching_messages ? { search_complete: s.search_complete } : {}),
    ...(s.snippet ? { snippet: s.snippet } : {}),
  };
}

/** GET /admin/channels */
export const listAdminChannelsHandler: Handler<typeof ops.listAdminChannels> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const query = input.query;
  const limit = pageSize(query.limit, limits.max_page_size);
  const before = decodeSeqCursor(query.cursor, 1);
  // Only groups have owners: an owner filter on the private tab selects nothing.
  if (query.owner && query.kind === 'private') return { channels: [], next_cursor: null, scanned: 0 };
  const kind = query.owner ? 'group' : query.kind;
  const filter = { participants: parseParticipants(query.participant), owner: query.owner, q: query.q };

  const scan = query.q === undefined ? CHANNELS_SCANNED_PER_PAGE : CONTENT_SEARCHED_PER_PAGE;
  const page = await retention(env).adminCatalogPage({ before, kind, limit: scan });
  let notSearchedToEnd = 0;
  const { found, next, scanned } = await scanCatalogPage(
    page,
    limit,
    SUMMARY_CONCURRENCY,
    (entry): Promise<ChannelAdminSummary | null> =>
      channelObject(env, entry.channel_id)
        .adminSummary(filter)
        .catch((error: unknown) => {
          console.error('admin channel summary failed', entry.channel_id, String(error));
          throw new ApiError('unavailable', `Channel ${entry.channel_id} did not answer; try again.`, {
            target: entry.channel_id,
            retryAfterMs: 1_000,
          });
        }),
    // A group dissolved since the catalog last heard of it is left out, as the catalog would.
    (summary) => {
      if (summary?.status !== 'active') return false;
      if (!summary.matches && summary.search_complete === false) notSearchedToEnd++;
      return summary.matches;
    },
  );
  const kept = found.filter((s): s is ChannelAdminSummary => s !== null);
  const names = await namesOf(env, kept);
  return {
    channels: kept.map((s) => wireSummary(s, names)),
    next_cursor: next === null ? null : encodeCursor([next]),
    scanned,
    ...(query.q === undefined ? {} : { not_searched_to_end: notSearchedToEnd }),
  };
};

/** GET /admin/channels/{channel_id}/messages: history without the membership check. */
export const listAdminChannelMessagesHandler: Handler<typeof ops.listAdminChannelMessages> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const order = input.query.order ?? 'asc';
  const afterSeq = decodeSeqCursor(input.query.cursor);
  // An ID the catalog does not know is not opened (that would create a channel object).
  if (!(await retention(env).catalogHas(input.params.channel_id))) {
    throw new ApiError('not_found', 'No such channel.', { target: input.params.channel_id });
  }
  const stub = channelObject(env, input.params.channel_id);
  const [summary, page] = await Promise.all([
    stub.adminSummary({ participants: [] }),
    stub.adminHistory(afterSeq, pageSize(input.query.limit, limits.max_page_size), order, input.query.thread_id),
  ]);
  if (!summary || !page) throw new ApiError('not_found', 'No such channel.', { target: input.params.channel_id });
  const names = await namesOf(env, [summary]);
  return {
    channel: wireSummary(summary, names),
    messages: page.messages,
    replied_to: page.replied,
    next_cursor: page.next_seq === null ? null : encodeCursor([page.next_seq]),
  };
};
