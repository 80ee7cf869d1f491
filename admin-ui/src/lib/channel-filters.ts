/**
 * The channel and group filters of the console (REQ-58, REQ-59): identity filters (participants,
 * owner) are separate from the content search, which looks only at retained message text, never
 * at names. These functions turn what the administrator picked into the admin API's query.
 */

export type ChannelTab = 'private' | 'group';

export interface ChannelFilters {
  tab: ChannelTab;
  /** Agent IDs that must all take part (a private channel has two participants). */
  participants: readonly string[];
  /** Groups only: the owner's agent ID. */
  owner: string;
  /** Text searched in retained message bodies. */
  text: string;
}

export const MAX_PRIVATE_PARTICIPANTS = 2;
const AGENT_ID = /^agt_[A-Za-z0-9_-]{1,64}$/;

export type FilterProblem = 'too_many_participants' | 'not_an_agent_id';

/** The list query for GET /admin/channels; participants go comma-separated, deduplicated. */
export function channelQuery(
  filters: ChannelFilters,
  cursor?: string,
): { ok: true; query: Record<string, string> } | { ok: false; problem: FilterProblem } {
  const participants = [...new Set(filters.participants.map((p) => p.trim()).filter(Boolean))];
  if (participants.some((p) => !AGENT_ID.test(p))) return { ok: false, problem: 'not_an_agent_id' };
  if (filters.tab === 'private' && participants.length > MAX_PRIVATE_PARTICIPANTS) {
    return { ok: false, problem: 'too_many_participants' };
  }
  const query: Record<string, string> = { kind: filters.tab };
  if (participants.length > 0) query.participant = participants.join(',');
  const owner = filters.owner.trim();
  if (filters.tab === 'group' && owner) {
    if (!AGENT_ID.test(owner)) return { ok: false, problem: 'not_an_agent_id' };
    query.owner = owner;
  }
  // Whitespace-only searches are no search; inner spacing is kept (it is part of the phrase).
  const text = filters.text.trim();
  if (text) query.q = text;
  if (cursor) query.cursor = cursor;
  return { ok: true, query };
}

/** A readable name for an agent: its display name, else its name, else the bare ID. */
export function agentLabel(
  agentId: string,
  agents: ReadonlyMap<string, { name: string; display_name: string }>,
): string {
  const agent = agents.get(agentId);
  if (!agent) return agentId;
  return agent.display_name && agent.display_name !== agent.name ? `${agent.display_name} (${agent.name})` : agent.name;
}
