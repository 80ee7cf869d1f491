import { describe, expect, it } from 'vitest';
import {
  agentLabel,
  channelQuery,
  channelTitle,
  EMPTY_FILTERS,
  filtersFromSearch,
  filtersToSearch,
  MAX_PARTICIPANT_FILTER,
  participantLabel,
} from '../../admin-ui/src/lib/channel-filters.js';

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

describe('the Channels page address', () => {
  it('round-trips the filters of each tab through the query string', () => {
    const group = { tab: 'group' as const, participants: [B, C], owner: A, text: 'disk  full' };
    expect(filtersFromSearch(filtersToSearch(group))).toEqual(group);
    const dm = { tab: 'private' as const, participants: [A], owner: '', text: '' };
    expect(filtersToSearch(dm)).toBe(`?tab=private&participant=${A}`);
    expect(filtersFromSearch(filtersToSearch(dm))).toEqual(dm);
  });

  it('keeps the owner to groups and at most two participants to private channels', () => {
    expect(filtersToSearch({ tab: 'private', participants: [], owner: A, text: '' })).toBe('?tab=private');
    expect(filtersFromSearch(`?tab=private&owner=${A}&participant=${A},${B},${C}`)).toEqual({
      tab: 'private',
      participants: [A, B],
      owner: '',
      text: '',
    });
  });

  it('falls back to no filter on anything it did not write', () => {
    expect(filtersFromSearch('')).toEqual(EMPTY_FILTERS);
    expect(filtersFromSearch('?tab=secret&participant=alice,,agt_x%20&owner=bob')).toEqual({
      tab: 'private',
      participants: ['agt_x'],
      owner: '',
      text: '',
    });
  });

  it('keeps search text with its characters, searching for what was typed', () => {
    const text = '50% & [x]_*?';
    expect(filtersFromSearch(filtersToSearch({ ...EMPTY_FILTERS, text })).text).toBe(text);
  });
});

describe('channel summaries in words', () => {
  const alice = { agent_id: A, name: 'alice', display_name: 'Alice Liddell' };
  const bob = { agent_id: B, name: 'bob', display_name: 'bob' };
  const gone = { agent_id: C, name: null, display_name: null };

  it('names participants by display name and name, or by ID when unknown', () => {
    expect(participantLabel(alice)).toBe('Alice Liddell (alice)');
    expect(participantLabel(bob)).toBe('bob');
    expect(participantLabel(gone)).toBe(C);
  });

  it('titles a private channel by its two participants and a group by its name', () => {
    expect(channelTitle({ channel_id: 'dm_x', kind: 'private', participants: [alice, bob] })).toBe(
      'Alice Liddell (alice) ↔ bob',
    );
    expect(channelTitle({ channel_id: 'grp_x', kind: 'group', name: 'ops', participants: [alice] })).toBe('ops');
    expect(channelTitle({ channel_id: 'grp_x', kind: 'group', name: '', participants: [] })).toBe('grp_x');
  });
});

describe('the participant filter’s size', () => {
  it('matches what GET /admin/channels accepts', async () => {
    const { listAdminChannels } = await import('../../core/contract/operations/admin-console.js');
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `agt_${'x'.repeat(60)}${i}`).join(',');
    const participant = listAdminChannels.query.shape.participant;
    expect(participant.safeParse(ids(MAX_PARTICIPANT_FILTER)).success).toBe(true);
    expect(participant.safeParse(ids(MAX_PARTICIPANT_FILTER + 1)).success).toBe(false);
  });
});
