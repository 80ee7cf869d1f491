import { describe, expect, it } from 'vitest';
import {
  access,
  fullView,
  type GroupRecord,
  invitationView,
  memberList,
  occupancy,
  type Participant,
  planInvitations,
  planOwnerChange,
  relationOf,
  viewFor,
} from '../../core/domain/groups.js';

const p = (
  agentId: string,
  state: Participant['state'],
  role: Participant['role'] = 'member',
  since = 1,
): Participant => ({
  agentId,
  state,
  role,
  since,
});

const byId = (...list: Participant[]) => new Map(list.map((x) => [x.agentId, x]));
const enabled = (...ids: string[]) => new Map(ids.map((id) => [id, { enabled: true }]));

const group: GroupRecord = { group_id: 'grp_g', name: 'Builders', status: 'active', created_at: Date.UTC(2026, 0, 2) };

describe('relationOf', () => {
  it('derives the caller relation from its participant row', () => {
    expect(relationOf(p('a', 'active', 'owner'), true)).toBe('owner');
    expect(relationOf(p('a', 'active'), true)).toBe('member');
    expect(relationOf(p('a', 'pending'), true)).toBe('invitee');
    expect(relationOf(p('a', 'left'), true)).toBe('former');
    expect(relationOf(undefined, true)).toBe('stranger');
  });

  it('makes everyone a stranger to a dissolved group', () => {
    expect(relationOf(p('a', 'active', 'owner'), false)).toBe('stranger');
    expect(relationOf(p('a', 'pending'), false)).toBe('stranger');
  });
});

describe('the authorization matrix', () => {
  it('lets only the owner invite, and tells strangers nothing', () => {
    expect(access('invite', 'owner')).toBe('ok');
    expect(access('invite', 'member')).toBe('not_group_owner');
    expect(access('invite', 'invitee')).toBe('not_group_owner');
    expect(access('invite', 'stranger')).toBe('not_found');
  });

  it('lets only a pending invitee join; knowing the ID grants nothing', () => {
    expect(access('join', 'invitee')).toBe('ok');
    expect(access('join', 'stranger')).toBe('not_invited');
    expect(access('join', 'former')).toBe('not_invited');
    expect(access('join', 'member')).toBe('already_member');
    expect(access('join', 'owner')).toBe('already_member');
  });

  it('lets ordinary active members leave, never the owner', () => {
    expect(access('leave', 'member')).toBe('ok');
    expect(access('leave', 'owner')).toBe('owner_cannot_leave');
    expect(access('leave', 'invitee')).toBe('not_group_member');
    expect(access('leave', 'former')).toBe('not_group_member');
  });

  it('lets only active members send, read and ACK', () => {
    for (const action of ['send', 'read', 'ack'] as const) {
      expect(access(action, 'owner')).toBe('ok');
      expect(access(action, 'member')).toBe('ok');
      expect(access(action, 'invitee')).not.toBe('ok');
      expect(access(action, 'former')).not.toBe('ok');
      expect(access(action, 'stranger')).toBe('not_found');
    }
    expect(access('send', 'former')).toBe('not_group_member');
    expect(access('ack', 'former')).toBe('not_group_member');
    expect(access('read', 'invitee')).toBe('not_found');
  });

  it('shows members the group, invitees the invitation, and nobody else anything', () => {
    expect(access('view', 'owner')).toBe('full');
    expect(access('view', 'member')).toBe('full');
    expect(access('view', 'invitee')).toBe('invitation');
    expect(access('view', 'former')).toBe('not_found');
    expect(access('view', 'stranger')).toBe('not_found');
  });
});

describe('planInvitations', () => {
  const owner = p('agt_owner', 'active', 'owner');

  it('gives one outcome per distinct target, in request order', () => {
    const plan = planInvitations({
      targets: ['agt_b', 'agt_c', 'agt_b', 'agt_owner', 'agt_ghost', 'agt_off'],
      participants: byId(owner),
      accounts: new Map([...enabled('agt_b', 'agt_c', 'agt_owner'), ['agt_off', { enabled: false }]]),
      maxMembers: 10,
    });
    expect(plan.outcomes).toEqual([
      { target_agent_id: 'agt_b', status: 'invited' },
      { target_agent_id: 'agt_c', status: 'invited' },
      { target_agent_id: 'agt_owner', status: 'rejected', code: 'already_member' },
      { target_agent_id: 'agt_ghost', status: 'rejected', code: 'unknown_agent' },
      { target_agent_id: 'agt_off', status: 'rejected', code: 'agent_disabled' },
    ]);
    expect(plan.invited).toEqual(['agt_b', 'agt_c']);
  });

  it('reports members and pending invitees without changing them', () => {
    const plan = planInvitations({
      targets: ['agt_m', 'agt_p'],
      participants: byId(owner, p('agt_m', 'active'), p('agt_p', 'pending')),
      accounts: enabled('agt_m', 'agt_p'),
      maxMembers: 10,
    });
    expect(plan.outcomes).toEqual([
      { target_agent_id: 'agt_m', status: 'rejected', code: 'already_member' },
      { target_agent_id: 'agt_p', status: 'already_invited' },
    ]);
    expect(plan.invited).toEqual([]);
  });

  it('re-invites a former member: leaving consumed its invitation, a new one makes it pending again', () => {
    const plan = planInvitations({
      targets: ['agt_x'],
      participants: byId(owner, p('agt_x', 'left')),
      accounts: enabled('agt_x'),
      maxMembers: 10,
    });
    expect(plan.invited).toEqual(['agt_x']);
  });

  it('caps members plus pending invitees at maxMembers; former members do not count', () => {
    const plan = planInvitations({
      targets: ['agt_1', 'agt_2', 'agt_3'],
      participants: byId(owner, p('agt_p', 'pending'), p('agt_gone', 'left')),
      accounts: enabled('agt_1', 'agt_2', 'agt_3'),
      maxMembers: 3,
    });
    expect(plan.outcomes.map((o) => (o.status === 'rejected' ? o.code : o.status))).toEqual([
      'invited',
      'group_full',
      'group_full',
    ]);
  });

  it('does not consult the directory for someone already in the group (a disabled member stays a member)', () => {
    const plan = planInvitations({
      targets: ['agt_m'],
      participants: byId(owner, p('agt_m', 'active')),
      accounts: new Map([['agt_m', { enabled: false }]]),
      maxMembers: 10,
    });
    expect(plan.outcomes).toEqual([{ target_agent_id: 'agt_m', status: 'rejected', code: 'already_member' }]);
  });
});

describe('planOwnerChange', () => {
  const participants = byId(
    p('agt_o', 'active', 'owner'),
    p('agt_m', 'active'),
    p('agt_p', 'pending'),
    p('agt_l', 'left'),
  );

  it('moves the role to an active member and keeps the old owner as an ordinary member', () => {
    const plan = planOwnerChange(participants, 'agt_m');
    expect(plan).toEqual({
      ok: true,
      changes: [
        { agentId: 'agt_o', role: 'member' },
        { agentId: 'agt_m', role: 'owner' },
      ],
    });
  });

  it('refuses a pending invitee, a former member and a stranger', () => {
    for (const id of ['agt_p', 'agt_l', 'agt_nobody'])
      expect(planOwnerChange(participants, id)).toEqual({ ok: false, code: 'conflict' });
  });

  it('changes nothing when the target owns the group already', () => {
    expect(planOwnerChange(participants, 'agt_o')).toEqual({ ok: true, changes: [] });
  });
});

describe('views', () => {
  const participants = [
    p('agt_late', 'active', 'member', 30),
    p('agt_inv', 'pending', 'member', 5),
    p('agt_o', 'active', 'owner', 10),
    p('agt_early', 'active', 'member', 20),
    p('agt_gone', 'left', 'member', 1),
  ];

  it('lists the owner, then members, then invitees, and never former members', () => {
    expect(memberList(participants)).toEqual([
      { agent_id: 'agt_o', state: 'active' },
      { agent_id: 'agt_early', state: 'active' },
      { agent_id: 'agt_late', state: 'active' },
      { agent_id: 'agt_inv', state: 'pending' },
    ]);
    expect(occupancy(participants)).toBe(4);
  });

  it('shows a member everything and an invitee only the invitation', () => {
    expect(fullView(group, participants)).toMatchObject({
      group_id: 'grp_g',
      name: 'Builders',
      owner_id: 'agt_o',
      status: 'active',
      created_at: '2026-01-02T00:00:00.000Z',
    });
    expect(invitationView(group, participants, 'agt_inv')).toEqual({
      group_id: 'grp_g',
      name: 'Builders',
      owner_id: 'agt_o',
      status: 'active',
      members: [{ agent_id: 'agt_inv', state: 'pending' }],
      created_at: '2026-01-02T00:00:00.000Z',
    });
  });

  it('gives former members and strangers no view at all', () => {
    expect(viewFor('former', group, participants, 'agt_gone')).toBeNull();
    expect(viewFor('stranger', group, participants, 'agt_x')).toBeNull();
    expect(viewFor('invitee', group, participants, 'agt_inv')?.members).toHaveLength(1);
    expect(viewFor('member', group, participants, 'agt_late')?.members).toHaveLength(4);
  });
});
