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
/** The most agents the API's participant filter takes (GET /admin/channels). */
export const MAX_PARTICIPANT_FILTER = 20;
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

export const EMPTY_FILTERS: ChannelFilters = { tab: 'private', participants: [], owner: '', text: '' };

/**
 * The filters as the Channels page's address (`/channels?tab=group&participant=…&q=…`), so a
 * reload, a bookmark or the way back from a channel's messages shows the same list.
 */
export function filtersToSearch(filters: ChannelFilters): string {
  const search = new URLSearchParams({ tab: filters.tab });
  const participants = filters.participants.map((p) => p.trim()).filter(Boolean);
  if (participants.length > 0) search.set('participant', participants.join(','));
  if (filters.tab === 'group' && filters.owner.trim()) search.set('owner', filters.owner.trim());
  if (filters.text.trim()) search.set('q', filters.text);
  return `?${search.toString()}`;
}

/** Reads filters back from the address; anything unexpected falls back to no filter. */
export function filtersFromSearch(text: string): ChannelFilters {
  const search = new URLSearchParams(text);
  const tab: ChannelTab = search.get('tab') === 'group' ? 'group' : 'private';
  const participants = [
    ...new Set(
      (search.get('participant') ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => AGENT_ID.test(p)),
    ),
  ];
  const owner = search.get('owner')?.trim() ?? '';
  return {
    tab,
    participants: tab === 'private' ? participants.slice(0, MAX_PRIVATE_PARTICIPANTS) : participants,
    owner: tab === 'group' && AGENT_ID.test(owner) ? owner : '',
    text: search.get('q') ?? '',
  };
}

/** A participant as the channel summaries name it: display name and name, or the bare ID. */
export function participantLabel(p: { agent_id: string; name: string | null; display_name: string | null }): string {
  if (!p.name) return p.agent_id;
  return p.display_name && p.display_name !== p.name ? `${p.display_name} (${p.name})` : p.name;
}

/** A channel's readable title: the group name, or the two participants of a private channel. */
export function channelTitle(channel: {
  channel_id: string;
  kind: ChannelTab;
  name?: string;
  participants: readonly { agent_id: string; name: string | null; display_name: string | null }[];
}): string {
  if (channel.kind === 'group') return channel.name || channel.channel_id;
  return channel.participants.length > 0 ? channel.participants.map(participantLabel).join(' ↔ ') : channel.channel_id;
}

/** The Groups page's filters: the owner, and a member or invitee (agent IDs, '' for any). */
export interface GroupFilters {
  owner: string;
  participant: string;
}

export const EMPTY_GROUP_FILTERS: GroupFilters = { owner: '', participant: '' };

/** The Groups page's address (`/groups?owner=…&participant=…`). */
export function groupFiltersToSearch(filters: GroupFilters): string {
  const search = new URLSearchParams();
  if (AGENT_ID.test(filters.owner)) search.set('owner', filters.owner);
  if (AGENT_ID.test(filters.participant)) search.set('participant', filters.participant);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Reads the Groups filters back from the address; anything but an agent ID is no filter. */
export function groupFiltersFromSearch(text: string): GroupFilters {
  const search = new URLSearchParams(text);
  const id = (key: string) => {
    const value = search.get(key)?.trim() ?? '';
    return AGENT_ID.test(value) ? value : '';
  };
  return { owner: id('owner'), participant: id('participant') };
}
