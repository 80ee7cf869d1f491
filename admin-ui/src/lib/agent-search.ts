/**
 * Matching agents as an administrator types (the agent picker): case-insensitive, in
 * any order of words, over the name, display name and ID, so "lab codex" finds "codex@gpu-lab".
 */

export interface AgentChoice {
  agent_id: string;
  name: string;
  display_name: string;
}

/** The most options a picker renders at once; typing narrows the rest. */
export const MAX_SHOWN = 50;

export function agentMatches(agent: AgentChoice, typed: string): boolean {
  const words = typed.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = `${agent.name} ${agent.display_name} ${agent.agent_id}`.toLocaleLowerCase();
  return words.every((word) => haystack.includes(word));
}
