/**
 * The channel Durable Object: the RPC surface the worker calls through typed stubs (core/stubs.ts),
 * a thin shell over the channel's jobs. The synchronous storage is ChannelStore (store.ts, one
 * module per job beside it); this class adds what is async or per instance: the clock, claim
 * tokens, file copies (attachments.ts), the notes' delivery (outbox.ts NoteDelivery), the group
 * rules (membership.ts) and the one alarm.
 */
import { DurableObject } from 'cloudflare:workers';
import { ApiError } from '../../core/contract/errors.js';
import type { AdminChannelFilter, ChannelAdminSummary } from '../../core/domain/admin-channels.js';
import type { ClaimOrder } from '../../core/domain/claim-plan.js';
import type { MessageContent } from '../../core/domain/content.js';
import type { GroupView, InvitationOutcome, Relation } from '../../core/domain/groups.js';
import type { StagedFile } from '../../core/domain/principals.js';
import type { SearchBudget } from '../../core/domain/search.js';
import { replyNotFound } from '../../core/domain/threads.js';
import type { Env } from '../../core/env.js';
import { randomToken, sha256Hex } from '../../core/lib/crypto.js';

import type { ChannelSearchPage, ClaimView, MessageView } from '../../core/rpc.js';
import { registry } from '../../core/stubs.js';
import migrations from '../../migrations/channel/migrations.js';
import type { RetentionLimits } from '../retention/cleanup-runs.js';
import { AlarmScheduler } from '../shared/alarm-scheduler.js';
import { openDatabase } from '../shared/database.js';
import type { DeletionStats } from '../shared/deletion-jobs.js';
import { faultPoint } from '../shared/fault-point.js';
import { BACKLOG_REPORT_DELAY_MS, ChannelAttachments } from './attachments.js';
import type { ChannelFileView } from './files.js';
import type { HistoryPage } from './history.js';
import type { AckOutcome, InboxCounts, LeaseOutcome, Pool } from './inbox.js';
import { GroupMembership, type WithGroupRefusal } from './membership.js';
import { NoteDelivery } from './outbox.js';
import * as schema from './schema.js';
import type { ChannelSend, ReplyRefused, SendOutcome } from './sending.js';
import { ChannelStore } from './store.js';

/** Token hashes for the store (WebCrypto is async, the store's transactions are not). */
function hashTokens(
  items: readonly { message_id: string; claim_token: string }[],
): Promise<{ message_id: string; tokenHash: string }[]> {
  return Promise.all(
    items.map(async (item) => ({ message_id: item.message_id, tokenHash: await sha256Hex(item.claim_token) })),
  );
}

/**
 * What every send carries: the sender with its display name (stored with the message), the message
 * it answers if any, the content and the caps enforced with the insert (`max_files` with a file).
 */
interface SendInput {
  sender_id: string;
  sender_name: string;
  reply_to?: string;
  content: MessageContent;
  max_messages: number;
  max_files?: number;
}

type NamedMessageView = MessageView & { sender_display_name: string };
export type NamedClaimView = Omit<ClaimView, 'message'> & { message: NamedMessageView };
export type NamedHistoryPage = Omit<HistoryPage, 'messages'> & { messages: NamedMessageView[] };

/**
 * One per channel (`dm_…` for a pair of agents, `grp_…` for a group): messages with their strict
 * seq, per-recipient deliveries and claims, dedup pointers and the outbox to the participants'
 * inbox indexes. The store owns every transaction; this shell owns the clock, the token
 * randomness and, through NoteDelivery, the outbox delivery.
 */
export class ChannelDO extends DurableObject<Env> {
  /** Protected for the test worker's subclass (test/workers/test-worker.ts), which reads it. */
  protected readonly store: ChannelStore;
  private readonly groups: GroupMembership;
  private readonly attachments: ChannelAttachments;
  private readonly notes: NoteDelivery;
  private readonly alarms: AlarmScheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const db = openDatabase(ctx, schema, migrations);
    this.store = new ChannelStore(db);
    this.groups = new GroupMembership(db, () => this.store.notes.deleteDelivered());
    this.alarms = new AlarmScheduler(ctx, () => this.now(), 'channel')
      .register('inbox-notes', { run: () => this.notes.retry() })
      .register('group-catalog', { run: () => this.notes.drainCatalog().then(() => {}) })
      .register('attachments', { run: () => this.attachments.maintenance().then(() => {}) });
    this.notes = new NoteDelivery(env, this.store.notes, this.groups, this.alarms);
    this.attachments = new ChannelAttachments(env, this.store, () => this.now(), db, this.alarms);
    // An outbox left by a crash between commit and delivery is picked up as soon as we wake.
    void ctx.blockConcurrencyWhile(() => this.notes.resume());
  }

  /**
   * The clock of every rule. Protected so that the test worker's subclass can shift it; the
   * production bundle has no way to (test/e2e/production-bundle.test.ts).
   */
  protected now(): number {
    return Date.now();
  }

  /**
   * A direct message. With `file` (a staged upload), this message gets its own copy of the file
   * (attachments.ts) before the insert; `max_files` is the file cap enforced with the insert.
   */
  async sendDirect(
    input: { channel_id: string; recipient_id: string; file?: StagedFile } & SendInput,
  ): Promise<SendOutcome> {
    return this.sendWith(input.channel_id, input, (send) =>
      this.store.sendDirect({ ...send, channelId: input.channel_id, recipientId: input.recipient_id }),
    );
  }

  /**
   * Every send's walk around its one transaction (`insert`, sending.ts): the reply target checked
   * first, the file copied (a duplicate answered without a copy), the safety alarm armed in the
   * turn of the commit, the deletions and catalog report the write owes, then the notes a poll
   * needs. A null outcome is a sender who is no longer an active member (groups only).
   */
  private async sendWith(
    channelId: string,
    input: SendInput & { file?: StagedFile },
    insert: (send: ChannelSend) => SendOutcome | ReplyRefused | null,
  ): Promise<SendOutcome> {
    this.requireReplyTarget(input.reply_to);
    const prepared = await this.attachments.prepare(
      channelId,
      input.sender_id,
      input.content.body,
      input.file,
      input.reply_to,
    );
    if (prepared.duplicate) return prepared.duplicate;
    this.notes.armWithCommit();
    const outcome = insert({
      senderId: input.sender_id,
      senderName: input.sender_name,
      replyTo: input.reply_to,
      content: input.file ? prepared.content : input.content,
      maxMessages: input.max_messages,
      maxFiles: input.max_files,
      file: prepared.file,
      now: this.now(),
    });
    await this.attachments.afterWrite(outcome?.status === 'sent');
    if (!outcome) throw new ApiError('not_group_member', 'You are not an active member of this group.');
    if (outcome.status === 'reply_to_not_found') throw replyNotFound(input.reply_to ?? '');
    // What a poll needs is delivered before answering (index-knowledge.ts), so the recipient's next
    // poll sees the message; a failure stays in the outbox for the alarm and does not fail the
    // send: the message is committed.
    if (outcome.status === 'sent') {
      await faultPoint(this.env, 'send-committed', `${channelId} ${outcome.message_id}`);
      await this.notes.drain('urgent');
    }
    return outcome;
  }

  /**
   * A reply_to this channel does not know is refused before anything else, so a refused reply is
   * never answered `duplicate` and never costs a file copy; the insert transaction checks again.
   */
  private requireReplyTarget(replyTo: string | undefined): void {
    if (replyTo !== undefined && !this.store.replyTarget(replyTo)) throw replyNotFound(replyTo);
  }

  /**
   * Messages stored before sender names were kept have none: the registry names them once (one
   * batched call) and the name is written into those rows, so the next read costs nothing. Every
   * message stored since carries its name, so this never runs on the hot path of new messages.
   */
  private async named<T extends { sender_id: string; sender_display_name: string | null }>(
    views: T[],
  ): Promise<(T & { sender_display_name: string })[]> {
    const missing = [...new Set(views.filter((v) => v.sender_display_name === null).map((v) => v.sender_id))];
    const names = new Map<string, string>();
    if (missing.length > 0) {
      try {
        const agents = await registry(this.env).getAgents(missing);
        for (const agent of agents) names.set(agent.agent_id, agent.display_name);
        this.store.backfillSenderNames(names);
      } catch (error) {
        console.error('sender names unavailable', error instanceof Error ? error.message : error);
      }
    }
    return views.map((v) => ({
      ...v,
      sender_display_name: v.sender_display_name ?? names.get(v.sender_id) ?? v.sender_id,
    }));
  }

  /** The agent's counts; `maxDeliveries` is the setting in force now (0: nothing parks). */
  async counts(agentId: string, maxDeliveries = 0): Promise<InboxCounts | null> {
    const counts = this.store.counts(agentId, this.now(), maxDeliveries);
    if (!counts || counts.unread === 0) this.notes.mayBeCleared(agentId);
    return counts;
  }

  async claimCandidates(
    agentId: string,
    limit: number,
    order: ClaimOrder,
    pool?: Pool,
  ): Promise<{ candidates: { seq: number; created_at: number }[]; unread: number } | null> {
    const peek = this.store.claimCandidates(agentId, limit, order, this.now(), pool);
    if (!peek || peek.unread === 0) this.notes.mayBeCleared(agentId);
    return peek;
  }

  /**
   * Claims up to `count` deliveries; `claimSeconds` is the setting in force now, fixed into the
   * expiry. `nothing_unread`: nothing was claimable and nothing is unread either (not even leased),
   * so the caller may clear the agent's hint for this channel, as after counts answering zero; a
   * claim-only client would otherwise keep asking a drained channel. `pool`: ordinary or parked
   * deliveries, under the max_deliveries in force now (absent: ordinary, no limit).
   */
  async claim(
    agentId: string,
    count: number,
    order: ClaimOrder,
    claimSeconds: number,
    pool?: Pool,
  ): Promise<{ claims: NamedClaimView[]; nothing_unread: boolean } | null> {
    // Tokens are made and hashed before the transaction: WebCrypto is async, the transaction is not.
    const tokens = await Promise.all(
      Array.from({ length: count }, async () => {
        const token = randomToken(32);
        return { token, hash: await sha256Hex(token) };
      }),
    );
    const now = this.now();
    const claims = this.store.claim(agentId, tokens, order, now, claimSeconds * 1000, pool);
    if (!claims) {
      this.notes.mayBeCleared(agentId);
      return null;
    }
    if (claims.length === 0) {
      // Read in the same turn as the claim (no await between), so nothing lands in between.
      const nothingUnread = this.store.counts(agentId, now)?.unread === 0;
      if (nothingUnread) this.notes.mayBeCleared(agentId);
      return { claims: [], nothing_unread: nothingUnread };
    }
    await this.backlogChanged(true);
    const messages = await this.named(claims.map((c) => c.message));
    return { claims: claims.map((c, i) => ({ ...c, message: messages[i]! })), nothing_unread: false };
  }

  async ack(
    agentId: string,
    items: readonly { message_id: string; claim_token: string }[],
  ): Promise<WithGroupRefusal<AckOutcome>[]> {
    const hashed = await hashTokens(items);
    const outcomes = this.store.ack(agentId, hashed, this.now());
    await this.backlogChanged(outcomes.some((o) => o.status === 'read'));
    return this.groups.explainNotFound(agentId, outcomes);
  }

  /** Extends live leases to now + `seconds` (the caller checked 1..claim_seconds). */
  async extend(
    agentId: string,
    items: readonly { message_id: string; claim_token: string }[],
    seconds: number,
  ): Promise<WithGroupRefusal<LeaseOutcome>[]> {
    const hashed = await hashTokens(items);
    const outcomes = this.store.extend(agentId, hashed, this.now(), seconds * 1000);
    await this.backlogChanged(outcomes.some((o) => o.status !== 'rejected'));
    return this.groups.explainNotFound(agentId, outcomes);
  }

  /**
   * Ends live leases now. The agent's hint stays true without a note: a leased delivery counts as
   * unread, so the hint was set and stays set, and the released delivery is claimable at once.
   */
  async release(
    agentId: string,
    items: readonly { message_id: string; claim_token: string }[],
  ): Promise<WithGroupRefusal<LeaseOutcome>[]> {
    const hashed = await hashTokens(items);
    const outcomes = this.store.release(agentId, hashed, this.now());
    await this.backlogChanged(outcomes.some((o) => o.status !== 'rejected'));
    return this.groups.explainNotFound(agentId, outcomes);
  }

  /**
   * A claim, ACK, extend or release changed someone's backlog: the retention catalog (the fleet
   * view's backlog) hears of it with the channel's next report, by alarm within
   * BACKLOG_REPORT_DELAY_MS, coalesced.
   */
  private async backlogChanged(changed: boolean): Promise<void> {
    if (changed) await this.attachments.scheduleCatalogSync(BACKLOG_REPORT_DELAY_MS);
  }

  async history(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): Promise<NamedHistoryPage> {
    const page = this.store.history(agentId, afterSeq, limit, order, threadId);
    if (!page) throw new ApiError('not_found', 'No such channel.');
    return { ...page, messages: await this.named(page.messages) };
  }

  /** Search hits for an active participant (store.search), null otherwise: the history rule. */
  async search(
    agentId: string,
    query: string,
    before: { created_at: number; seq: number } | null,
    want: number,
    budget: SearchBudget,
  ): Promise<ChannelSearchPage | null> {
    return this.store.search(agentId, query, before, want, budget);
  }

  // Groups (the rules are core/domain/groups.ts, applied by membership.ts in one transaction each)

  async createGroup(input: {
    group_id: string;
    name: string;
    owner_id: string;
    targets: string[];
    accounts: [string, { enabled: boolean }][];
    max_members: number;
  }): Promise<{ group: GroupView; outcomes: InvitationOutcome[] }> {
    const created = this.groups.create({
      groupId: input.group_id,
      name: input.name,
      ownerId: input.owner_id,
      targets: input.targets,
      accounts: new Map(input.accounts),
      maxMembers: input.max_members,
      now: this.now(),
    });
    await this.notes.afterMembershipChange();
    // Into the retention catalog at once, so cleanup and the admin channel list know the group.
    await this.attachments.afterWrite(true);
    return created;
  }

  /** What the agent may see of the group, with its relation; null: nothing (not_found). */
  async groupView(agentId: string): Promise<{ relation: Relation; group: GroupView } | null> {
    return this.groups.view(agentId);
  }

  async invite(input: {
    group_id: string;
    agent_id: string;
    targets: string[];
    accounts: [string, { enabled: boolean }][];
    max_members: number;
  }): Promise<InvitationOutcome[]> {
    const outcomes = this.groups.invite({
      groupId: input.group_id,
      agentId: input.agent_id,
      targets: input.targets,
      accounts: new Map(input.accounts),
      maxMembers: input.max_members,
      now: this.now(),
    });
    await this.notes.afterMembershipChange();
    return outcomes;
  }

  async join(groupId: string, agentId: string): Promise<GroupView> {
    const group = this.groups.join(groupId, agentId, this.now());
    await this.notes.afterMembershipChange();
    return group;
  }

  async leave(groupId: string, agentId: string): Promise<void> {
    this.groups.leave(groupId, agentId, this.now());
    await this.notes.afterMembershipChange();
  }

  /**
   * The agent was deleted: a group drops it from its members and invitations, and any channel
   * drops its deliveries (and so its claims). Messages it sent stay in the others' history.
   */
  async removeDeletedAgent(agentId: string): Promise<'removed' | 'owner' | 'absent'> {
    const outcome = this.groups.removeDeleted(agentId, this.now());
    if (outcome === 'removed') {
      await this.notes.afterMembershipChange();
      await this.backlogChanged(true);
    }
    return outcome;
  }

  async sendGroup(input: { group_id: string; file?: StagedFile } & SendInput): Promise<SendOutcome> {
    // Checked and sent with no await in between: nothing can change the membership in the gap, and
    // store.send checks the sender is active again inside its own transaction. A file copy is the
    // one await before the insert; the insert's own check covers it (a sender who left meanwhile
    // is refused and the copy is deleted). The group message gets one group-owned copy of a file.
    this.groups.require(input.group_id, input.sender_id, 'send');
    return this.sendWith(input.group_id, input, (send) => this.store.send(send));
  }

  async reassignOwner(groupId: string, newOwnerId: string): Promise<GroupView> {
    const group = this.groups.reassignOwner(groupId, newOwnerId);
    await this.notes.afterMembershipChange();
    return group;
  }

  /** Every message goes through purgeMessages, the channel's one deletion path (files included). */
  async dissolve(groupId: string): Promise<void> {
    const now = this.now();
    this.groups.dissolve(groupId, () => this.store.purgeMessages({ upTo: Number.MAX_SAFE_INTEGER }, now));
    await this.notes.afterMembershipChange();
    await this.attachments.afterWrite(false);
    // The catalog drops the group from the administrators' list and the overview's totals at once.
    await this.attachments.syncCatalog();
  }

  // Files and retention (attachments.ts; files.ts holds the rows)

  /** A page of the retained attachments for an active participant. */
  async listFiles(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
  ): Promise<{ files: ChannelFileView[]; next_seq: number | null } | null> {
    return this.store.listFiles(agentId, afterSeq, limit, order);
  }

  /** The object of a retained file, only for a current active participant (every download asks). */
  async fileForDownload(
    agentId: string,
    fileId: string,
  ): Promise<{ key: string; filename: string; media_type: string; size: number } | null> {
    return this.store.fileForDownload(agentId, fileId);
  }

  /** Retroactive cleanup: brings this channel within `limits`; answers its deletion jobs' state. */
  async enforceLimits(limits: RetentionLimits): Promise<DeletionStats> {
    const stats = await this.attachments.enforceLimits(limits);
    // Not reported from here: the caller is the retention object itself, busy with this run.
    await this.attachments.scheduleCatalogSync();
    return stats;
  }

  // Administrators (REQ-54): read-only, whoever takes part; nothing is claimed or marked read.

  /** The channel's summary for the administrators' list, and whether it passes `filter`; null: no channel. */
  async adminSummary(filter: AdminChannelFilter): Promise<ChannelAdminSummary | null> {
    return this.store.adminSummary(filter);
  }

  /**
   * Brings the retention catalog up to date with this channel now (the launcher asks every
   * channel once at start, so the overview's totals are exact after a crash left reports owed).
   */
  async reportToCatalog(): Promise<void> {
    await this.attachments.syncCatalog();
  }

  /** A retained attachment for an administrator's download, without the membership check; null: none. */
  async adminFile(fileId: string): Promise<{ key: string; filename: string; media_type: string; size: number } | null> {
    return this.store.adminFile(fileId);
  }

  /** A page of retained messages without the membership check; null: no channel. */
  async adminHistory(
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): Promise<(NamedHistoryPage & { replied: { message_id: string; seq: number | null }[] }) | null> {
    const page = this.store.adminHistory(afterSeq, limit, order, threadId);
    return page && { ...page, messages: await this.named(page.messages) };
  }

  /** Asked by the retention object while this channel has unfinished deletions. */
  async retryDeletions(): Promise<DeletionStats> {
    return this.attachments.maintenance();
  }

  /**
   * Retries the outboxes and the attachments' maintenance (the jobs registered in the constructor);
   * a failed note re-arms the alarm (outbox.ts NoteDelivery), so retries go on until it lands.
   */
  override async alarm(): Promise<void> {
    this.notes.alarmFired();
    await this.alarms.run();
  }
}
