/**
 * GET /inbox and POST /inbox/claim over the agent's inbox index. Only channels the index marks as
 * pending are asked (in parallel); the authentication call already answered which ones
 * (middleware/auth-extras.ts). A channel that turns out to have nothing unread for the agent has
 * its hint cleared by compare-and-delete on the generation read, so a message that arrived
 * meanwhile keeps it; the clear rides on the agent's next authentication (lib/stale-hints.ts). With
 * a channel_id filter the channel is asked directly: no hint needed.
 */
import type { Context } from 'hono';
import { ApiError } from '../../../core/contract/errors.js';
import type { claimMessages, getInbox } from '../../../core/contract/operations/messaging.js';
import { type ClaimCandidate, compareCandidates, planClaims } from '../../../core/domain/claim-plan.js';
import { type ChannelKind, channelKindOf } from '../../../core/domain/ids.js';
import type { Env } from '../../../core/env.js';
import { currentSettings } from '../../../core/lib/settings-cache.js';
import { agentObject } from '../../../core/stubs.js';
import { deferClears } from '../../lib/stale-hints.js';
import { isKnownChannel } from '../channel-access.js';
import type { AppEnv, Handler } from '../types.js';
import { ChannelCalls } from './stubs.js';

interface Candidate {
  channel_id: string;
  kind: ChannelKind;
  /** The hint's generation, or null when the channel was named by the caller (no hint involved). */
  gen: number | null;
}

async function candidateChannels(
  c: Context<AppEnv>,
  env: Env,
  agentId: string,
  filter: { kind?: ChannelKind; channel_id?: string },
): Promise<Candidate[]> {
  if (filter.channel_id) {
    const kind = channelKindOf(filter.channel_id);
    if (!kind || (filter.kind && kind !== filter.kind)) return [];
    // A channel the agent was never in is not opened (that would create it): not_found, as it would say.
    if (!(await isKnownChannel(c, env, agentId, filter.channel_id))) throw notFound(filter.channel_id);
    return [{ channel_id: filter.channel_id, kind, gen: null }];
  }
  // Answered by the authentication call on the served routes; asked here otherwise.
  const pending = c.get('pendingChannels') ?? (await agentObject(env, agentId).pendingChannels());
  return pending.filter((p) => !filter.kind || p.kind === filter.kind);
}

function notFound(channelId: string): ApiError {
  return new ApiError('not_found', 'No such channel.', { field: 'channel_id', target: channelId });
}

/** Clears hints of channels found without unread deliveries (compare-and-delete on `gen`), on the agent's next call. */
function clearStale(agentId: string, stale: Candidate[]): void {
  deferClears(
    agentId,
    stale.flatMap((c) => (c.gen === null ? [] : [{ channel_id: c.channel_id, gen: c.gen }])),
  );
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const getInboxHandler: Handler<typeof getInbox> = async ({ env, input, agent, c }) => {
  const [candidates, { limits }] = await Promise.all([
    candidateChannels(c, env, agent.agent_id, input.query),
    currentSettings(env),
  ]);
  const calls = new ChannelCalls(env);
  const answers = await Promise.all(
    candidates.map(async (candidate) => ({
      candidate,
      counts: await calls.channel(candidate.channel_id).counts(agent.agent_id, limits.max_deliveries),
    })),
  );
  calls.report(c);
  if (input.query.channel_id && answers.length === 1 && !answers[0]!.counts) throw notFound(input.query.channel_id);
  clearStale(
    agent.agent_id,
    answers.filter((a) => !a.counts || a.counts.unread === 0).map((a) => a.candidate),
  );

  const channels = answers
    .flatMap(({ candidate, counts }) =>
      counts && counts.unread > 0
        ? [
            {
              channel_id: candidate.channel_id,
              kind: candidate.kind,
              unread: counts.unread,
              claimable: counts.claimable,
              leased: counts.leased,
              parked: counts.parked,
              oldest_unread_at: iso(counts.oldest_unread_at),
            },
          ]
        : [],
    )
    .sort(
      (a, b) =>
        (a.oldest_unread_at ?? '').localeCompare(b.oldest_unread_at ?? '') || a.channel_id.localeCompare(b.channel_id),
    );
  const sum = (key: 'unread' | 'claimable' | 'leased' | 'parked') => channels.reduce((n, ch) => n + ch[key], 0);
  return {
    unread: sum('unread'),
    claimable: sum('claimable'),
    leased: sum('leased'),
    parked: sum('parked'),
    channels,
  };
};

export const claimMessagesHandler: Handler<typeof claimMessages> = async ({ env, input, agent, c }) => {
  const { limits } = await currentSettings(env);
  const limit = Math.min(input.body.limit ?? 1, limits.max_claim_batch);
  const order = input.body.order ?? 'oldest';
  // claim {parked: true} takes parked deliveries only; without it they are never offered.
  const which = { pool: input.body.parked ? 'parked' : 'claimable', maxDeliveries: limits.max_deliveries } as const;
  const candidates = await candidateChannels(c, env, agent.agent_id, input.body);
  const calls = new ChannelCalls(env);

  // One candidate needs no merge: claim straight away (one channel call).
  let plan = new Map<string, number>();
  if (candidates.length === 1) {
    plan.set(candidates[0]!.channel_id, limit);
  } else if (candidates.length > 1) {
    const peeks = await Promise.all(
      candidates.map(async (candidate) => ({
        candidate,
        peek: await calls.channel(candidate.channel_id).claimCandidates(agent.agent_id, limit, order, which),
      })),
    );
    clearStale(
      agent.agent_id,
      peeks.filter((p) => !p.peek || p.peek.unread === 0).map((p) => p.candidate),
    );
    const pool: ClaimCandidate[] = peeks.flatMap(({ candidate, peek }) =>
      (peek?.candidates ?? []).map((x) => ({ channel_id: candidate.channel_id, ...x })),
    );
    plan = planClaims(pool, limit, order);
  }

  const claimed = await Promise.all(
    [...plan].map(async ([channelId, count]) => ({
      channelId,
      answer: await calls.channel(channelId).claim(agent.agent_id, count, order, limits.claim_seconds, which),
    })),
  );
  calls.report(c);
  const only = candidates.length === 1 ? candidates[0]! : null;
  if (only && only.gen === null && !claimed[0]?.answer) throw notFound(only.channel_id);
  // A channel that had nothing for the agent, not even a leased delivery, no longer needs its hint.
  const drained = new Set(claimed.flatMap((x) => (!x.answer || x.answer.nothing_unread ? [x.channelId] : [])));
  clearStale(
    agent.agent_id,
    candidates.filter((candidate) => drained.has(candidate.channel_id)),
  );
  const claims = claimed.flatMap((x) => x.answer?.claims ?? []);
  const key = (claim: (typeof claims)[number]): ClaimCandidate => ({
    channel_id: claim.message.channel_id,
    seq: claim.message.seq,
    created_at: Date.parse(claim.message.created_at),
  });
  claims.sort((a, b) => compareCandidates(key(a), key(b), order));
  return { claims };
};
