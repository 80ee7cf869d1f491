/**
 * The outbox towards the participants' inbox indexes, the storage side: the rows a send or a
 * membership change writes in its own transaction (sending.ts, membership.ts), read back as the
 * notes to deliver, each with the version a delivery records; the delivered ones remembered in
 * memory (delivered-notes.ts) and deleted with the next write; failures counted on their row.
 * channel-do.ts delivers the notes.
 *
 * Reading the rows and deleting the delivered ones run around every send, so they are fixed SQL
 * text (shared-sql.ts says why); a failure's count and the wake-up check are cold, on drizzle.
 */
import { eq, sql } from 'drizzle-orm';
import type { ChannelNote } from '../agent/inbox-index.js';
import { DeliveredNotes } from './delivered-notes.js';
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
