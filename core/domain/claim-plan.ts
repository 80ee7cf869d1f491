/**
 * Claiming across channels: each candidate channel reports its best claimable deliveries (at most
 * the requested limit), the lists are merged in the requested order, and each channel is then asked
 * to claim as many as it contributed. Exclusivity comes from the channel's own transaction, not
 * from this plan: a concurrent claimer can only make a channel hand out fewer than planned.
 */

export type ClaimOrder = 'oldest' | 'newest';

export interface ClaimCandidate {
  channel_id: string;
  seq: number;
  /** Milliseconds since the epoch: the message's creation time. */
  created_at: number;
}

/** Total order for the merge: time, then channel ID, then seq, so ties are broken the same way every time. */
export function compareCandidates(a: ClaimCandidate, b: ClaimCandidate, order: ClaimOrder): number {
  const sign = order === 'oldest' ? 1 : -1;
  if (a.created_at !== b.created_at) return sign * (a.created_at - b.created_at);
  if (a.channel_id !== b.channel_id) return sign * (a.channel_id < b.channel_id ? -1 : 1);
  return sign * (a.seq - b.seq);
}

/** How many deliveries to claim from each channel, for the best `limit` candidates overall. */
export function planClaims(
  candidates: readonly ClaimCandidate[],
  limit: number,
  order: ClaimOrder,
): Map<string, number> {
  const chosen = [...candidates].sort((a, b) => compareCandidates(a, b, order)).slice(0, limit);
  const plan = new Map<string, number>();
  for (const c of chosen) plan.set(c.channel_id, (plan.get(c.channel_id) ?? 0) + 1);
  return plan;
}
