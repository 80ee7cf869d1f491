import { describe, expect, it } from 'vitest';
import { agentLabel, channelQuery } from '../../admin-ui/src/lib/channel-filters.js';

const A = 'agt_alice';
const B = 'agt_bob';
const C = 'agt_carol';

describe('channel filters (REQ-58, REQ-59)', () => {
  it('keeps identity filters and content search apart', () => {
    expect(channelQuery({ tab: 'private', participants: [A], owner: '', text: '  deploy failed ' })).toEqual({
      ok: true,
      query: { kind: 'private', participant: A, q: 'deploy failed' },
    });
    expect(channelQuery({ tab: 'group', participants: [B, C], owner: A, text: '' })).toEqual({
      ok: true,
      query: { kind: 'group', participant: `${B},${C}`, owner: A },
    });
  });

  it('asks for nothing but the tab when no filter is set, and carries the cursor', () => {
    expect(channelQuery({ tab: 'private', participants: [], owner: '', text: '   ' })).toEqual({
      ok: true,
      query: { kind: 'private' },
    });
    expect(channelQuery({ tab: 'group', participants: [], owner: '', text: '' }, 'abc')).toEqual({
      ok: true,
      query: { kind: 'group', cursor: 'abc' },
    });
  });

  it('drops the owner filter on the private tab (private channels have no owner)', () => {
    expect(channelQuery({ tab: 'private', participants: [], owner: A, text: '' })).toEqual({
      ok: true,
      query: { kind: 'private' },
    });
  });

  it('collapses repeated participants and refuses a third one for a private channel', () => {
    expect(channelQuery({ tab: 'private', participants: [A, ` ${A} `, B], owner: '', text: '' })).toEqual({
      ok: true,
      query: { kind: 'private', participant: `${A},${B}` },
    });
    expect(channelQuery({ tab: 'private', participants: [A, B, C], owner: '', text: '' })).toEqual({
      ok: false,
      problem: 'too_many_participants',
    });
    expect(channelQuery({ tab: 'group', participants: [A, B, C], owner: '', text: '' }).ok).toBe(true);
  });

  it('refuses names where agent IDs belong (names are not identities)', () => {
    expect(channelQuery({ tab: 'private', participants: ['alice'], owner: '', text: '' })).toEqual({
      ok: false,
      problem: 'not_an_agent_id',
    });
    expect(channelQuery({ tab: 'group', participants: [], owner: 'agt_a,agt_b', text: '' })).toEqual({
      ok: false,
      problem: 'not_an_agent_id',
    });
  });
});

describe('agent labels in channel summaries', () => {
  const agents = new Map([
    [A, { name: 'alice', display_name: 'Alice Liddell' }],
    [B, { name: 'bob', display_name: 'bob' }],
  ]);
  it('shows display name and name, the name alone when they agree, the ID for unknown agents', () => {
    expect(agentLabel(A, agents)).toBe('Alice Liddell (alice)');
    expect(agentLabel(B, agents)).toBe('bob');
    expect(agentLabel(C, agents)).toBe(C);
  });
});
