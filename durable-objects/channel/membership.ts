/**
 * A group channel's membership: the rules of core/domain/groups.ts applied inside the channel's
 * own transactions, so a membership change and a message can never interleave (a leave and a send
 * to the leaver, a join and a send, a dissolve and anything). Each change bumps the channel's
 * membership version and writes, in the same transaction, outbox rows for the agents whose inbox
 * index must learn it (outbox.ts NoteDelivery delivers them) and marks the group catalog copy as behind.
 */
import { eq, sql } from 'drizzle-orm';
import { ApiError, type ErrorCode } from '../../core/contract/errors.js';
import {
  access,
  fullView,
  type GroupAction,
  type GroupRecord,
  type GroupView,
  type InvitationOutcome,
  memberList,
  ownerOf,
  type Participant,
  planInvitations,
  planOwnerChange,
  type Relation,
  relationOf,
  viewFor,
} from '../../core/domain/groups.js';
import type { GroupSnapshot } from '../group-catalog/group-catalog-do.js';
import * as schema from './schema.js';
import { type Db, storageOf, type Tx } from './shared-sql.js';

type Q = Db | Tx;

const { channel, participants, deliveries, notifyOutbox, purged } = schema;

const REFUSAL_TEXT: Partial<Record<ErrorCode, string>> = {
  not_found: 'No such group.',
  not_group_owner: 'Only the group owner can do this.',
  not_invited: 'You have no pending invitation to this group; knowing its ID is not enough.',
  already_member: 'You are a member of this group already.',
  not_group_member: 'You are not an active member of this group.',
  owner_cannot_leave: 'The owner cannot leave the group; an administrator can reassign the owner or dissolve it.',
};

function refuse(code: ErrorCode, groupId: string): never {
  throw new ApiError(code, REFUSAL_TEXT[code] ?? 'Not allowed.', { target: groupId });
}

/**
 * What a group check needs about one agent: the channel's kind and status and that agent's
 * participant row (null columns when it has none), not every participant. Fixed text
 * (shared-sql.ts says why): every group send and ACK checks this.
 */
const ACCESS_ROW = `select c.kind, c.status, p.state, p.role from channel c
    left join participants p on p.agent_id = ? where c.id = 1`;

/** An ACK, extend or release outcome, or a group's reason for not_found (explainNotFound). */
export type WithGroupRefusal<T> =
  | T
  | { message_id: string; status: 'rejected'; code: 'not_group_member' | 'message_purged' };

interface GroupState {
  record: GroupRecord;
  participants: Participant[];
  version: number;
  catalogVersion: number;
}

export class GroupMembership {
  private readonly sql: SqlStorage;

  /**
   * `beforeNotes` runs in every change's transaction, before its outbox rows are written: the channel deletes the rows already delivered there (delivered-notes.ts), so a
   * change's note starts a fresh row instead of merging into one whose note went out.
   */
  constructor(
    private readonly db: Db,
    private readonly beforeNotes: () => void = () => {},
  ) {
    this.sql = storageOf(db);
  }

  /**
   * The agent's relation from one fixed-text statement (its own participant row only); null when
   * this channel is not a group. The read-only checks use it; changes read the whole state.
   */
  private quickRelation(agentId: string): Relation | null {
    const row = this.sql.exec<Record<string, SqlStorageValue>>(ACCESS_ROW, agentId).toArray()[0];
    if (row?.kind !== 'group') return null;
    const participant: Participant | undefined =
      row.state === null
        ? undefined
        : {
            agentId,
            state: row.state as Participant['state'],
            role: (row.role ?? 'member') as Participant['role'],
            since: 0,
          };
    return relationOf(participant, row.status === 'active');
  }

  private read(q: Q): GroupState | null {
    const row = q.select().from(channel).where(eq(channel.id, 1)).get();
    if (row?.kind !== 'group') return null;
    return {
      record: { group_id: row.channelId, name: row.name ?? '', status: row.status, created_at: row.createdAt },
      participants: q.select().from(participants).all(),
      version: row.membershipVersion,
      catalogVersion: row.catalogVersion,
    };
  }

  private relation(state: GroupState | null, agentId: string): Relation {
    if (!state) return 'stranger';
    return relationOf(
      state.participants.find((p) => p.agentId === agentId),
      state.record.status === 'active',
    );
  }

  /** The caller's relation, or the refusal `action` gets for it. */
  private authorize(q: Q, groupId: string, agentId: string, action: GroupAction): GroupState {
    const state = this.read(q);
    const verdict = access(action, this.relation(state, agentId));
    if (verdict === 'ok' && state) return state;
    refuse(verdict === 'ok' || verdict === 'full' || verdict === 'invitation' ? 'not_found' : verdict, groupId);
  }

  /** Bumps the membership version, queues index notes for `agents`, and leaves the catalog behind. */
  private changed(tx: Tx, agents: Iterable<string>): void {
    this.beforeNotes();
    tx.update(channel)
      .set({ membershipVersion: sql`${channel.membershipVersion} + 1` })
      .where(eq(channel.id, 1))
      .run();
    for (const agentId of agents) {
      tx.insert(notifyOutbox)
        .values({ agentId, pending: false })
        .onConflictDoUpdate({ target: notifyOutbox.agentId, set: { version: sql`${notifyOutbox.version} + 1` } })
        .run();
    }
  }

  private setParticipant(tx: Tx, p: Participant): void {
    tx.insert(participants)
      .values(p)
      .onConflictDoUpdate({ target: participants.agentId, set: { state: p.state, role: p.role, since: p.since } })
      .run();
  }

  create(input: {
    groupId: string;
    name: string;
    ownerId: string;
    targets: readonly string[];
    accounts: ReadonlyMap<string, { enabled: boolean }>;
    maxMembers: number;
    now: number;
  }): { group: GroupView; outcomes: InvitationOutcome[] } {
    return this.db.transaction((tx) => {
      if (tx.select({ id: channel.id }).from(channel).get()) throw new Error(`group ${input.groupId} exists already`);
      tx.insert(channel)
        .values({ id: 1, channelId: input.groupId, kind: 'group', name: input.name, createdAt: input.now })
        .run();
      const owner: Participant = { agentId: input.ownerId, state: 'active', role: 'owner', since: input.now };
      this.setParticipant(tx, owner);
      const plan = planInvitations({
        targets: input.targets,
        participants: new Map([[owner.agentId, owner]]),
        accounts: input.accounts,
        maxMembers: input.maxMembers,
      });
      for (const agentId of plan.invited) {
        this.setParticipant(tx, { agentId, state: 'pending', role: 'member', since: input.now });
      }
      this.changed(tx, [input.ownerId, ...plan.invited]);
      const state = this.read(tx)!;
      return { group: fullView(state.record, state.participants), outcomes: plan.outcomes };
    });
  }

  /** What `agentId` may see of the group (with its relation), or null: nothing. */
  view(agentId: string): { relation: Relation; group: GroupView } | null {
    const state = this.read(this.db);
    const relation = this.relation(state, agentId);
    const group = state && viewFor(relation, state.record, state.participants, agentId);
    return group ? { relation, group } : null;
  }

  invite(input: {
    groupId: string;
    agentId: string;
    targets: readonly string[];
    accounts: ReadonlyMap<string, { enabled: boolean }>;
    maxMembers: number;
    now: number;
  }): InvitationOutcome[] {
    return this.db.transaction((tx) => {
      const state = this.authorize(tx, input.groupId, input.agentId, 'invite');
      const plan = planInvitations({
        targets: input.targets,
        participants: new Map(state.participants.map((p) => [p.agentId, p])),
        accounts: input.accounts,
        maxMembers: input.maxMembers,
      });
      for (const agentId of plan.invited) {
        this.setParticipant(tx, { agentId, state: 'pending', role: 'member', since: input.now });
      }
      if (plan.invited.length > 0) this.changed(tx, plan.invited);
      return plan.outcomes;
    });
  }

  /** Pending to active at once. Only messages from now on become deliveries: history is not replayed. */
  join(groupId: string, agentId: string, now: number): GroupView {
    return this.db.transaction((tx) => {
      this.authorize(tx, groupId, agentId, 'join');
      tx.update(participants).set({ state: 'active', since: now }).where(eq(participants.agentId, agentId)).run();
      this.changed(tx, [agentId]);
      const state = this.read(tx)!;
      return fullView(state.record, state.participants);
    });
  }

  /**
   * Active to left. The leaver's deliveries go in the same transaction, read or not, leased or not,
   * so its claims die with them; its messages stay in everyone else's history.
   */
  leave(groupId: string, agentId: string, now: number): void {
    this.db.transaction((tx) => {
      this.authorize(tx, groupId, agentId, 'leave');
      tx.update(participants).set({ state: 'left', since: now }).where(eq(participants.agentId, agentId)).run();
      tx.delete(deliveries).where(eq(deliveries.recipientId, agentId)).run();
      this.changed(tx, [agentId]);
    });
  }

  /**
   * A deleted agent (durable-objects/registry/agent-deletion.ts) leaves every group it is in or
   * invited to, like a leave: its deliveries go, read or not, leased or not, so its claims die with
   * them; its messages stay in everyone else's history. An owner stays (the registry refuses to
   * delete an agent that owns an active group) and is answered `owner`.
   */
  removeDeleted(agentId: string, now: number): 'removed' | 'owner' | 'absent' {
    return this.db.transaction((tx) => {
      const state = this.read(tx);
      const relation = this.relation(state, agentId);
      if (relation === 'owner') return 'owner';
      tx.delete(deliveries).where(eq(deliveries.recipientId, agentId)).run();
      if (relation !== 'member' && relation !== 'invitee') return 'absent';
      tx.update(participants).set({ state: 'left', since: now }).where(eq(participants.agentId, agentId)).run();
      this.changed(tx, []);
      return 'removed';
    });
  }

  /** Throws the refusal for `action` unless the agent may do it (read-only; the caller's write re-checks). */
  require(groupId: string, agentId: string, action: GroupAction): void {
    // As authorize(), from one statement: every group send runs this.
    const relation = this.quickRelation(agentId);
    const verdict = access(action, relation ?? 'stranger');
    if (verdict === 'ok' && relation !== null) return;
    refuse(verdict === 'ok' || verdict === 'full' || verdict === 'invitation' ? 'not_found' : verdict, groupId);
  }

  /** For an ACK by someone who is not an active participant: what to answer instead of not_found. */
  ackRefusal(agentId: string): 'not_group_member' | null {
    const verdict = access('ack', this.quickRelation(agentId) ?? 'stranger');
    return verdict === 'not_group_member' ? verdict : null;
  }

  /** After dissolution an ACK of a message that was here answers message_purged, as after retention. */
  purgedByDissolution(messageId: string): boolean {
    if (this.read(this.db)?.record.status !== 'dissolved') return false;
    return (
      this.db.select({ id: purged.messageId }).from(purged).where(eq(purged.messageId, messageId)).get() !== undefined
    );
  }

  /**
   * The inbox answers not_found to anyone who is not an active participant. In a group, someone
   * who left (or was never more than invited) is told why, and after dissolution the messages
   * are gone like any purged message; a stranger still learns nothing. Asked only when some item
   * is not_found: an ordinary ACK reads no membership at all.
   */
  explainNotFound<T extends { message_id: string; status: string; code?: string }>(
    agentId: string,
    outcomes: T[],
  ): WithGroupRefusal<T>[] {
    let refusal: ReturnType<GroupMembership['ackRefusal']> | undefined;
    return outcomes.map((outcome) => {
      if (outcome.status !== 'rejected' || outcome.code !== 'not_found') return outcome;
      if (refusal === undefined) refusal = this.ackRefusal(agentId);
      if (refusal) return { message_id: outcome.message_id, status: 'rejected', code: refusal };
      if (this.purgedByDissolution(outcome.message_id)) {
        return { message_id: outcome.message_id, status: 'rejected', code: 'message_purged' };
      }
      return outcome;
    });
  }

  reassignOwner(groupId: string, newOwnerId: string): GroupView {
    return this.db.transaction((tx) => {
      const state = this.read(tx);
      if (state?.record.status !== 'active') refuse('not_found', groupId);
      const plan = planOwnerChange(new Map(state.participants.map((p) => [p.agentId, p])), newOwnerId);
      if (!plan.ok) {
        throw new ApiError('conflict', 'The new owner must be an active member of the group.', {
          field: 'agent_id',
          target: newOwnerId,
          reason: 'owner_not_member',
        });
      }
      for (const change of plan.changes) {
        tx.update(participants).set({ role: change.role }).where(eq(participants.agentId, change.agentId)).run();
      }
      if (plan.changes.length > 0) this.changed(tx, []);
      const after = this.read(tx)!;
      return fullView(after.record, after.participants);
    });
  }

  /**
   * Dissolution: `purgeAll` deletes every message through the channel's normal deletion path (with
   * its files) inside this transaction, every participant is told to forget the group, and the channel stays as a
   * tombstone so nothing can bring the group back.
   */
  dissolve(groupId: string, purgeAll: () => void): void {
    this.db.transaction((tx) => {
      const state = this.read(tx);
      if (state?.record.status !== 'active') refuse('not_found', groupId);
      purgeAll();
      tx.update(channel).set({ status: 'dissolved' }).where(eq(channel.id, 1)).run();
      tx.delete(participants).run();
      this.changed(
        tx,
        state.participants.filter((p) => p.state !== 'left').map((p) => p.agentId),
      );
    });
  }

  // The group catalog copy

  /** The snapshot the catalog is missing, or null when it is up to date (or this is no group). */
  catalogSnapshot(): GroupSnapshot | null {
    const state = this.read(this.db);
    if (!state || state.catalogVersion >= state.version) return null;
    return {
      group_id: state.record.group_id,
      name: state.record.name,
      owner_id: ownerOf(state.participants) ?? '',
      status: state.record.status,
      members: memberList(state.participants),
      created_at: state.record.created_at,
      version: state.version,
    };
  }

  catalogDelivered(version: number): void {
    this.db
      .update(channel)
      .set({ catalogVersion: sql`max(${channel.catalogVersion}, ${version})` })
      .where(eq(channel.id, 1))
      .run();
  }
}
