import { call } from '../api.js';
import { type AgentChoice, MAX_SHOWN } from './agent-search.js';

/** What a picker shows for some typed text: the first matches by name, and how many match in all. */
export interface AgentMatches {
  agents: AgentChoice[];
  total: number;
}

const choice = ({ agent_id, name, display_name }: AgentChoice): AgentChoice => ({ agent_id, name, display_name });

/**
 * The agents matching what an administrator typed, asked of the server (every word, in any order,
 * in a name, display name, description, host or ID): a page lists a fleet of thousands without
 * downloading it. The first MAX_SHOWN by name, and the count of all.
 */
export async function searchAgents(text: string): Promise<AgentMatches> {
  const q = text.trim();
  const page = await call('listAgents', { query: { ...(q && { q }), limit: MAX_SHOWN } });
  return { agents: page.agents.map(choice), total: page.total };
}

/**
 * The names of a few known IDs (a filter's chosen agents, from the address): one light search by
 * ID each (IDs are searchable), at most a filter's worth; an agent that no longer exists is left
 * out (its ID is shown instead).
 */
export async function agentsByIds(ids: readonly string[]): Promise<AgentChoice[]> {
  const found = await Promise.all(
    [...new Set(ids)].map((id) =>
      call('listAgents', { query: { q: id, limit: 5 } }).then(
        (page) => page.agents.find((a) => a.agent_id === id) ?? null,
        () => null,
      ),
    ),
  );
  return found.filter((a) => a !== null).map(choice);
}
