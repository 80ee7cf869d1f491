/**
 * The channel's outboxes: notes towards the participants' inbox indexes and, for a group, its
 * snapshot towards the group catalog.
 *
 * ChannelOutbox is the storage side: the rows a send or a membership change writes in its own
 * transaction (sending.ts, membership.ts), read back as the notes to deliver, each with the
 * version a delivery records; the delivered ones remembered in memory (delivered-notes.ts) and
 * deleted with the next write; failures counted on their row. Reading the rows and deleting the
 * delivered ones run around every send, so they are fixed SQL text (shared-sql.ts says why); a
 * failure's count and the wake-up check are cold, on drizzle.
 *
 * NoteDelivery is the ChannelDO's side: it hands the notes to the agents' indexes (only those a
 * poll needs before a send's answer, index-knowledge.ts; the others coalesced a second later) and
 * the snapshot to the catalog, and keeps the alarm that retries both armed.
 */
import { eq, sql } from 'drizzle-orm';
import type { Env } from '../../core/env.js';
import { agentObject, groupCatalog } from '../../core/stubs.js';
import type { ChannelNote } from '../agent/inbox-index.js';
import type { AlarmScheduler } from '../shared/alarm-scheduler.js';
import { backoffMs, DELIVERY_RETRY, deliverPending } from '../shared/outbox.js';
import { DeliveredNotes } from './delivered-notes.js';
import { IndexKnowledge } from './index-knowledge.js';
import type { GroupMembership } from './membership.js';
import * as schema from './schema.js';
import { type ChannelSql, type Db, num, numOrNull, str } from './shared-sql.js';

const { notifyOutbox } = schema;

/** A note still to deliver, with the row version a delivery records and the epoch it was read at. */
export interface OutboxItem {
  agentId: string;
  version: number;
  readAt: number;
  note: ChannelNote;
}

const ROWS = 'select agent_id, pending, last_message_at, version from notify_outbox';
/** Compare-and-delete of a delivered row: only the version whose note went out. */
const DELETE_DELIVERED = 'delete from notify_outbox where agent_id = ? and version = ?';

export class ChannelOutbox {
  /** Outbox rows already delivered, deleted with the next write (delivered-notes.ts). */
  private readonly delivered = new DeliveredNotes();

  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
  ) {}

  /** Whether any row waits (a crash between commit and delivery leaves some). */
  any(): boolean {
    return this.db.select({ a: notifyOutbox.agentId }).from(notifyOutbox).limit(1).get() !== undefined;
  }

  /**
   * The notes still to deliver, each with the row version a successful delivery records and the
   * epoch it was read at (delivered-notes.ts). A row whose note its agent already took is left
   * out while its version is the one delivered; it stays in the table until a later write deletes
   * it (deleteDelivered).
   */
  pending(): OutboxItem[] {
    const outbox = this.sql
      .all(ROWS)
      .map((r) => ({
        agentId: str(r.agent_id),
        pending: r.pending === 1,
        lastMessageAt: numOrNull(r.last_message_at),
        version: num(r.version),
      }))
      .filter((item) => !this.delivered.has(item.agentId, item.version));
    if (outbox.length === 0) return [];
    const row = this.sql.channelRow();
    if (!row) return [];
    const members = this.sql.participants();
    // Group notes carry the membership as it is now (read at drain time, with its version), so the
    // agent's index follows joins, leaves and dissolution, not only messages.
    const membership = (agentId: string): ChannelNote['membership'] => {
      if (row.kind !== 'group') return null;
      const state = members.find((m) => m.id === agentId)?.state;
      return {
        state: row.status === 'active' && (state === 'active' || state === 'pending') ? state : 'gone',
        version: row.membershipVersion,
      };
    };
    return outbox.map((item) => ({
      agentId: item.agentId,
      version: item.version,
      readAt: this.delivered.epoch(item.agentId),
      note: {
        channel_id: row.channelId,
        kind: row.kind,
        peer_agent_id: row.kind === 'private' ? (members.find((m) => m.id !== item.agentId)?.id ?? null) : null,
        group_id: row.kind === 'group' ? row.channelId : null,
        name: row.name,
        // A membership note for a group with history still dates the channel for GET /channels.
        last_message_at: item.lastMessageAt ?? (row.lastSeq > 0 ? row.lastCreatedAt : null),
        pending: item.pending,
        membership: membership(item.agentId),
      },
    }));
  }

  /**
   * The agent's index took the note of the row at `version` (read at `readAt`): remembered in
   * memory only, no write (and so no commit) of its own; the row goes with the next write.
   */
  markDelivered(agentId: string, version: number, readAt: number): void {
    this.delivered.record(agentId, version, readAt);
  }

  /**
   * Deletes the delivered rows (compare-and-delete on the delivered version), inside the caller's
   * transaction if there is one: the next send's and every membership change's (before their
   * outbox upsert), and the alarm's run.
   */
  deleteDelivered(): void {
    for (const [agentId, version] of this.delivered.take()) this.sql.run(DELETE_DELIVERED, agentId, version);
  }

  failed(agentId: string, error: string): void {
    this.db
      .update(notifyOutbox)
      .set({ attempts: sql`${notifyOutbox.attempts} + 1`, lastError: error.slice(0, 500) })
      .where(eq(notifyOutbox.agentId, agentId))
      .run();
  }
}

/** When a note to an agent's inbox index (or the group catalog) failed, the alarm tries again after this long. */
const OUTBOX_RETRY_MS = backoffMs(1, DELIVERY_RETRY);
/**
 * The alarm is armed with each send's commit (once until it fires) with this delay, as a safety
 * net for a crash between the commit and the notes: the recipient's index may not list the
 * channel, so nothing but this alarm wakes the channel after a restart, and the notes it holds go
 * out this long after the commit at the latest (at once when the restart comes later). Short,
 * because until then the inbox does not offer the message.
 */
const OUTBOX_SAFETY_MS = OUTBOX_RETRY_MS;
/**
 * Notes that need not precede a send's answer (index-knowledge.ts: the channel list's
 * last_message_at, a hint the index already has) go out this long after the first of them,
 * coalesced: one note per agent for all the sends in between. They are committed in the outbox
 * with their message, so a crash in between leaves them to the safety alarm.
 */
const NOTE_COALESCE_MS = 1_000;

export class NoteDelivery {
  /** Which hints the agents' indexes hold, as far as this instance knows (index-knowledge.ts). */
  private readonly knowledge = new IndexKnowledge();
  private alarmArmed = false;
  private coalescing: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly env: Env,
    private readonly outbox: ChannelOutbox,
    private readonly groups: GroupMembership,
    /** The channel's one alarm (shared/alarm-scheduler.ts), whose `inbox-notes` and `group-catalog` jobs run here. */
    private readonly alarms: AlarmScheduler,
  ) {}

  /** At wake-up: notes or a snapshot left by a crash between commit and delivery go out soon. */
  async resume(): Promise<void> {
    if (this.outbox.any() || this.groups.catalogSnapshot()) await this.alarms.within(OUTBOX_RETRY_MS);
  }

  /** The alarm fired: the next send arms it again. */
  alarmFired(): void {
    this.alarmArmed = false;
  }

  /** The alarm's `inbox-notes` job; it also deletes the rows delivered since the last write (delivered-notes.ts). */
  async retry(): Promise<void> {
    await this.drain('all');
    this.outbox.deleteDelivered();
  }

  /**
   * Set without awaiting, in the same synchronous turn as the transaction (no await in between):
   * alarm writes follow the same rules as other storage writes, so it commits together with the
   * message and its outbox rows. Not before an await (a file copy): an alarm armed earlier could
   * fire in that gap, drain an outbox that does not hold this message yet, and be gone, while
   * `alarmArmed` kept this send from arming another; a crash before the note then left it to no
   * alarm at all.
   */
  armWithCommit(): void {
    if (this.alarmArmed) return;
    this.alarmArmed = true;
    this.alarms.armWithCommit(OUTBOX_SAFETY_MS);
  }

  /** The agent's counts or claims found nothing unread: the hint its index holds may be cleared. */
  mayBeCleared(agentId: string): void {
    this.knowledge.mayBeCleared(agentId);
  }

  /**
   * After a committed membership change: index notes and the catalog snapshot go out before the
   * answer, so the change is visible at once. The safety alarm is armed first, in the same turn
   * as the commit (no await in between), so a crash before delivery still delivers; a refused
   * change throws before this and arms nothing.
   */
  async afterMembershipChange(): Promise<void> {
    this.armWithCommit();
    this.knowledge.forget();
    await Promise.all([this.drain('all'), this.drainCatalog()]);
  }

  /** Brings the administrators' group catalog up to date; on failure the alarm retries. */
  async drainCatalog(): Promise<boolean> {
    const snapshot = this.groups.catalogSnapshot();
    if (!snapshot) return true;
    const ok = await deliverPending([snapshot], {
      deliver: (s) => groupCatalog(this.env).record(s),
      delivered: (s) => this.groups.catalogDelivered(s.version),
      failed: (s, error) => console.error('group catalog update failed', s.group_id, error),
    });
    if (!ok) {
      this.alarmArmed = true;
      await this.alarms.within(OUTBOX_RETRY_MS);
    }
    return ok;
  }

  /**
   * Hands pending notes to their agents' indexes; false when some failed (they are retried by
   * alarm). `urgent` (after a send): only the notes a poll needs now (index-knowledge.ts); the
   * others go out NOTE_COALESCE_MS later, together.
   */
  async drain(which: 'all' | 'urgent'): Promise<boolean> {
    // Rows already delivered are left out (ChannelOutbox.pending, delivered-notes.ts).
    let items = this.outbox.pending().map((item) => ({ ...item, epoch: this.knowledge.epoch(item.agentId) }));
    if (which === 'urgent') {
      const now = items.filter((item) => this.knowledge.mustDeliverNow(item.agentId, item.note.pending));
      if (now.length < items.length) this.coalesce();
      items = now;
    }
    const ok = await deliverPending(items, {
      deliver: (item) => agentObject(this.env, item.agentId).noteChannels([item.note]),
      delivered: (item) => {
        // Remembered only: the row is deleted by the next write that happens anyway, not by a
        // commit of its own.
        this.outbox.markDelivered(item.agentId, item.version, item.readAt);
        this.knowledge.delivered(item.agentId, item.note.pending, item.epoch);
      },
      failed: (item, error) => this.outbox.failed(item.agentId, error),
    });
    if (!ok) {
      this.alarmArmed = true;
      await this.alarms.within(OUTBOX_RETRY_MS);
    }
    return ok;
  }

  /**
   * Delivers the outbox NOTE_COALESCE_MS from now, once for all sends until then. A timer, not the
   * alarm: the alarm also runs the attachments' maintenance and catalog report, which are not due
   * this often; the safety alarm armed with the send still covers a crash before the timer.
   */
  private coalesce(): void {
    if (this.coalescing) return;
    this.coalescing = setTimeout(() => {
      this.coalescing = null;
      this.drain('all').catch((error: unknown) => console.error('inbox notes failed', String(error)));
    }, NOTE_COALESCE_MS);
  }
}
