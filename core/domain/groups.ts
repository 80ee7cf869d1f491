/**
 * Group membership rules (REQ-18..23), as pure functions of a group's participants, so every
 * authorization and state transition is decided here and tested without storage. The group's
 * channel Durable Object applies them inside its transactions.
 *
 * A participant moves through
 *
 *   (none) --invite--> pending --join--> active --leave--> left --invite--> pending …
 *
 * `left` is kept so a former member is told `not_group_member` / `not_invited` rather than learning
 * nothing, and so that leaving consumes the invitation: only a new invitation makes it pending again.
 * The owner is an active participant with role `owner`; it cannot leave, and only an administrator
 * moves the role (there is no election and no automatic escalation).
 *
 * Disabled accounts: disabling is an account state, not a membership change. A disabled agent keeps
 * its membership (and ownership) but cannot authenticate, so it can do nothing; deliveries for it
 * still accrue and are subject to retention like any other. It cannot be newly invited
 * (`agent_disabled`) and cannot be made owner. An administrator can reassign a disabled owner's
 * group to an active member or dissolve it.
 */
import type { z } from '@hono/zod-openapi';
import type { ErrorCode } from '../contract/errors.js';
import type { Group } from '../contract/operations/groups.js';

export type ParticipantState = 'active' | 'pending' | 'left';
export type ParticipantRole = 'owner' | 'member';

export interface Participant {
  agentId: string;
  state: ParticipantState;
  role: ParticipantRole;
  /** When the participant entered its current state (ms). */
  since: number;
}

/** What the caller is to a group; `stranger` also covers a group that does not exist (or no longer does). */
export type Relation = 'owner' | 'member' | 'invitee' | 'former' | 'stranger';

export type GroupAction =
  /** GET /groups/{id} */
  | 'view'
  | 'invite'
  | 'join'
  | 'leave'
  | 'send'
  /**
   * History, files, inbox counts and claims in the group's channel: the channel store enforces it
   * by serving active participants only.
   */
  | 'read'
  /** ACK of a delivery in the group's channel. */
  | 'ack';

/** `full`: the group with its members; `invitation`: invitation metadata only; `ok`: allowed. */
export type Access = 'full' | 'invitation' | 'ok' | ErrorCode;

/**
 * The authorization matrix. Strangers learn nothing (not_found, as for a group that does not exist),
 * except that join answers not_invited whether or not the group exists: REQ-20's "knowing a group ID
 * grants nothing" without an existence oracle. Former members know the group, so they get the
 * specific 403 codes, but they read nothing: their access ended when they left.
 */
export const GROUP_ACCESS: Readonly<Record<GroupAction, Readonly<Record<Relation, Access>>>> = {
  view: { owner: 'full', member: 'full', invitee: 'invitation', former: 'not_found', stranger: 'not_found' },
  invite: {
    owner: 'ok',
    member: 'not_group_owner',
    invitee: 'not_group_owner',
    former: 'not_group_owner',
    stranger: 'not_found',
  },
  join: {
    owner: 'already_member',
    member: 'already_member',
    invitee: 'ok',
    former: 'not_invited',
    stranger: 'not_invited',
  },
  leave: {
    owner: 'owner_cannot_leave',
    member: 'ok',
    invitee: 'not_group_member',
    former: 'not_group_member',
    stranger: 'not_found',
  },
  send: { owner: 'ok', member: 'ok', invitee: 'not_group_member', former: 'not_group_member', stranger: 'not_found' },
  read: { owner: 'ok', member: 'ok', invitee: 'not_found', former: 'not_found', stranger: 'not_found' },
  ack: { owner: 'ok', member: 'ok', invitee: 'not_group_member', former: 'not_group_member', stranger: 'not_found' },
};

export function relationOf(participant: Participant | undefined, groupActive: boolean): Relation {
  if (!groupActive || !participant) return 'stranger';
  switch (participant.state) {
    case 'active':
      return participant.role === 'owner' ? 'owner' : 'member';
    case 'pending':
      return 'invitee';
    case 'left':
      return 'former';
  }
}

export function access(action: GroupAction, relation: Relation): Access {
  return GROUP_ACCESS[action][relation];
}

/** Active members and pending invitees: what `max_group_members` caps. */
export function occupancy(participants: Iterable<Participant>): number {
  let count = 0;
  for (const p of participants) if (p.state !== 'left') count++;
  return count;
}

export type InvitationOutcome =
  | { target_agent_id: string; status: 'invited' | 'already_invited' }
  | {
      target_agent_id: string;
      status: 'rejected';
      code: 'unknown_agent' | 'agent_disabled' | 'already_member' | 'group_full';
    };

/**
 * One outcome per distinct target, in request order, and the participants that become pending.
 * `accounts` holds what the registry knows about each target (absent: unknown). The inviter is an
 * active member, so inviting yourself is `already_member`; a former member gets a new invitation.
 */
export function planInvitations(input: {
  targets: readonly string[];
  participants: ReadonlyMap<string, Participant>;
  accounts: ReadonlyMap<string, { enabled: boolean }>;
  maxMembers: number;
}): { outcomes: InvitationOutcome[]; invited: string[] } {
  const outcomes: InvitationOutcome[] = [];
  const invited: string[] = [];
  let seats = input.maxMembers - occupancy(input.participants.values());
  for (const target of new Set(input.targets)) {
    const current = input.participants.get(target);
    const account = input.accounts.get(target);
    if (current?.state === 'active') {
      outcomes.push({ target_agent_id: target, status: 'rejected', code: 'already_member' });
    } else if (current?.state === 'pending') {
      outcomes.push({ target_agent_id: target, status: 'already_invited' });
    } else if (!account) {
      outcomes.push({ target_agent_id: target, status: 'rejected', code: 'unknown_agent' });
    } else if (!account.enabled) {
      outcomes.push({ target_agent_id: target, status: 'rejected', code: 'agent_disabled' });
    } else if (seats <= 0) {
      outcomes.push({ target_agent_id: target, status: 'rejected', code: 'group_full' });
    } else {
      seats--;
      invited.push(target);
      outcomes.push({ target_agent_id: target, status: 'invited' });
    }
  }
  return { outcomes, invited };
}

/**
 * The owner change an administrator asks for: the new owner must be an active participant; the old
 * owner stays an ordinary active member. Reassigning to the current owner changes nothing.
 */
export function planOwnerChange(
  participants: ReadonlyMap<string, Participant>,
  newOwnerId: string,
): { ok: true; changes: { agentId: string; role: ParticipantRole }[] } | { ok: false; code: 'conflict' } {
  const target = participants.get(newOwnerId);
  if (target?.state !== 'active') return { ok: false, code: 'conflict' };
  if (target.role === 'owner') return { ok: true, changes: [] };
  const changes: { agentId: string; role: ParticipantRole }[] = [{ agentId: newOwnerId, role: 'owner' }];
  for (const p of participants.values())
    if (p.role === 'owner') changes.unshift({ agentId: p.agentId, role: 'member' });
  return { ok: true, changes };
}

// Views

export interface GroupRecord {
  group_id: string;
  name: string;
  status: 'active' | 'dissolved';
  /** ms since the epoch */
  created_at: number;
}

/** The group as the API shows it (the wire model). */
export type GroupView = z.infer<typeof Group>;

export function ownerOf(participants: Iterable<Participant>): string | null {
  for (const p of participants) if (p.role === 'owner' && p.state === 'active') return p.agentId;
  return null;
}

const STATE_ORDER: Record<ParticipantState, number> = { active: 0, pending: 1, left: 2 };

/** The owner first, then active members, then pending invitees, each by arrival: a stable order. */
export function memberList(participants: Iterable<Participant>): GroupView['members'] {
  return [...participants]
    .filter((p): p is Participant & { state: 'active' | 'pending' } => p.state !== 'left')
    .sort(
      (a, b) =>
        Number(b.role === 'owner') - Number(a.role === 'owner') ||
        STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
        a.since - b.since ||
        (a.agentId < b.agentId ? -1 : 1),
    )
    .map((p) => ({ agent_id: p.agentId, state: p.state }));
}

/** The group as its owner, its members and administrators see it. */
export function fullView(group: GroupRecord, participants: readonly Participant[]): GroupView {
  return {
    group_id: group.group_id,
    name: group.name,
    owner_id: ownerOf(participants) ?? '',
    status: group.status,
    members: memberList(participants),
    created_at: new Date(group.created_at).toISOString(),
  };
}

/** What a pending invitee sees: name, owner, its own pending state and the creation time, nothing else. */
export function invitationView(group: GroupRecord, participants: readonly Participant[], inviteeId: string): GroupView {
  return {
    ...fullView(group, participants),
    members: [{ agent_id: inviteeId, state: 'pending' }],
  };
}

/** The view `relation` is entitled to, or null when it may not see the group at all. */
export function viewFor(
  relation: Relation,
  group: GroupRecord,
  participants: readonly Participant[],
  agentId: string,
): GroupView | null {
  const level = access('view', relation);
  if (level === 'full') return fullView(group, participants);
  if (level === 'invitation') return invitationView(group, participants, agentId);
  return null;
}
