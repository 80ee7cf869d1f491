import { describe, expect, it } from 'vitest';
import { agentMatches } from '../../admin-ui/src/lib/agent-search.js';

const codex = { agent_id: 'agt_7fq2cd', name: 'codex', display_name: 'Codex at the GPU lab' };

describe('agentMatches (the agent picker)', () => {
  it('matches every typed word, in any order and case, in the name, display name or ID', () => {
    expect(agentMatches(codex, '')).toBe(true);
    expect(agentMatches(codex, '   ')).toBe(true);
    expect(agentMatches(codex, 'CODEX')).toBe(true);
    expect(agentMatches(codex, 'lab codex')).toBe(true);
    expect(agentMatches(codex, '7fq2')).toBe(true);
    expect(agentMatches(codex, 'codex office')).toBe(false);
    expect(agentMatches(codex, 'claude')).toBe(false);
  });
});
