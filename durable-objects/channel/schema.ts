/**
 * The channel object's tables, for drizzle and drizzle-kit (migrations/channel/). The hot paths
 * name these columns in fixed SQL text beside their jobs (shared-sql.ts says why), so a column
 * renamed here must be renamed there too; the store-level tests run every statement.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { AttachmentRecord } from '../../core/domain/content.js';
import type { DeliveryState } from '../../core/domain/deliveries.js';
import type { BacklogEntry, ChannelStats } from '../retention/catalog.js';
import { deletionJobsTable } from '../shared/deletion-jobs.js';

/** The channel itself: one row, created by the first message (private) or by the group's creation. */
export const channel = sqliteTable('channel', {
  id: integer('id').primaryKey(),
  channelId: text('channel_id').notNull(),
  kind: text('kind').$type<'private' | 'group'>().notNull(),
  /** Group channels only: the group name shown in channel lists. */
  name: text('name'),
  createdAt: integer('created_at').notNull(),
  /** Highest seq ever issued: seq is never reused, even when the newest message is deleted. */
  lastSeq: integer('last_seq').notNull().default(0),
  /** Creation time of the newest message: created_at never goes backwards within a channel. */
  lastCreatedAt: integer('last_created_at').notNull().default(0),
  /** Groups: `dissolved` keeps the row as a tombstone, so nothing can bring the group back. */
  status: text('status').$type<'active' | 'dissolved'>().notNull().default('active'),
  /**
   * Groups: bumped by every membership, owner or status change (durable-objects/channel/membership.ts).
   * Index notes and catalog snapshots carry it, so an older one never overwrites a newer one.
   */
  membershipVersion: integer('membership_version').notNull().default(0),
  /** Groups: the membership version the group catalog has confirmed (behind: a snapshot is due). */
  catalogVersion: integer('catalog_version').notNull().default(0),
  /**
   * Messages up to this seq are in the search index (messages_fts); newer ones are added in
   * batches, by a send once INDEX_BATCH are waiting or by the first search that needs them
   * (durable-objects/channel/sending.ts indexPending). The delete triggers skip the newer ones.
   */
  indexedSeq: integer('indexed_seq').notNull().default(0),
});

/**
 * Who is in the channel. A private channel has its two agents, both active for good. Groups
 * (the groups issue) add pending invitees and members who left; only `active` participants read
 * history and get deliveries, and a delivery is created only for messages after joining.
 */
export const participants = sqliteTable('participants', {
  agentId: text('agent_id').primaryKey(),
  state: text('state').$type<'active' | 'pending' | 'left'>().notNull(),
  role: text('role').$type<'member' | 'owner'>().notNull().default('member'),
  since: integer('since').notNull(),
});

export const messages = sqliteTable(
  'messages',
  {
    /** Strict per-channel order: assigned in the insert transaction, never reused. */
    seq: integer('seq').primaryKey(),
    messageId: text('message_id').notNull().unique(),
    senderId: text('sender_id').notNull(),
    body: text('body').notNull(),
    createdAt: integer('created_at').notNull(),
    attachment: text('attachment', { mode: 'json' }).$type<AttachmentRecord | null>(),
    /** The message this one answers (retained or purged, always of this channel); null: none. */
    replyTo: text('reply_to'),
    /**
     * The root of the thread, copied from the replied-to message (or its tombstone) at insert, so
     * a thread keeps its ID when its root is purged. Null: this message is a root (its own thread),
     * which is also what every message stored before threads existed is.
     */
    threadId: text('thread_id'),
    /**
     * The sender's display name when it sent this message (a label, like an e-mail's From; the
     * directory has the current one). Null only for messages stored before the column existed.
     */
    senderName: text('sender_name'),
  },
  (t) => [index('messages_thread').on(t.threadId, t.seq)],
);

/** One row per (message, recipient): the recipient's read state and its claim. */
export const deliveries = sqliteTable(
  'deliveries',
  {
    seq: integer('seq').notNull(),
    recipientId: text('recipient_id').notNull(),
    state: text('state').$type<DeliveryState>().notNull(),
    claimHash: text('claim_hash'),
    claimExpiresAt: integer('claim_expires_at'),
    replacedHashes: text('replaced_hashes', { mode: 'json' }).$type<string[]>().notNull().default([]),
    ackHash: text('ack_hash'),
    ackDeadline: integer('ack_deadline'),
    /** Claims of this delivery so far (core/domain/deliveries.ts: parked at max_deliveries). */
    deliveryCount: integer('delivery_count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.seq, t.recipientId] }),
    index('deliveries_recipient').on(t.recipientId, t.state, t.seq),
  ],
);

/**
 * The deduplication evidence: each sender's latest accepted message in this channel. It is deleted
 * together with that message, and then nothing older takes its place.
 */
export const dedup = sqliteTable(
  'dedup',
  {
    senderId: text('sender_id').primaryKey(),
    seq: integer('seq').notNull(),
  },
  (t) => [index('dedup_seq').on(t.seq)],
);

/**
 * IDs of recently purged messages (the newest PURGED_IDS_KEPT, retention.ts), so an ACK can answer
 * `message_purged`, not `not_found`, and a reply to a purged message still finds its thread.
 */
export const purged = sqliteTable(
  'purged',
  {
    messageId: text('message_id').primaryKey(),
    seq: integer('seq').notNull(),
    purgedAt: integer('purged_at').notNull(),
    /** The purged message's thread (null: it was a root), so a reply to it still joins that thread. */
    threadId: text('thread_id'),
  },
  (t) => [index('purged_seq').on(t.seq)],
);

/**
 * Transactional outbox towards participants' AgentDO inbox indexes: written in the same transaction
 * as the message, deleted only once the agent's object has taken the note (retried by alarm).
 */
export const notifyOutbox = sqliteTable('notify_outbox', {
  agentId: text('agent_id').primaryKey(),
  /** The agent may have a new unread delivery here (false: only the channel list changed). */
  pending: integer('pending', { mode: 'boolean' }).notNull(),
  lastMessageAt: integer('last_message_at'),
  /** Bumped on every merge, so a drain never deletes a row that changed while it was in flight. */
  version: integer('version').notNull().default(1),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
});

/**
 * Stored attachments: the R2 object of each file message (one per message; its key is opaque and
 * never leaves the server). Deleted in the transaction that deletes the message, together with a
 * deletion job for the object: a message never outlives its file, nor a file its message.
 */
export const files = sqliteTable('files', {
  seq: integer('seq').primaryKey(),
  fileId: text('file_id').notNull().unique(),
  objectKey: text('object_key').notNull(),
  size: integer('size').notNull(),
});

/**
 * Objects being copied for a message that is not committed yet. Recorded before the copy starts;
 * the commit deletes the row, a failed or duplicate send turns it into a deletion job, and one
 * left by a crash is swept by the alarm, so no object exists without a message or a job.
 */
export const pendingObjects = sqliteTable('pending_objects', {
  objectKey: text('object_key').primaryKey(),
  createdAt: integer('created_at').notNull(),
});

/** R2 deletions owed by this channel (durable-objects/shared/deletion-jobs.ts). */
export const deletionJobs = deletionJobsTable();

/**
 * The figures this channel last reported to the retention catalog (catalog-report.ts): `version`
 * is bumped for every report sent, `confirmed_version` and `confirmed` are what the catalog took.
 */
export const catalogReport = sqliteTable('catalog_report', {
  id: integer('id').primaryKey(),
  version: integer('version').notNull().default(0),
  confirmedVersion: integer('confirmed_version').notNull().default(0),
  confirmed: text('confirmed', { mode: 'json' }).$type<(ChannelStats & { backlog?: BacklogEntry[] }) | null>(),
});

/** One row once the retention catalog knows this channel (so it registers once, retried by alarm). */
export const retentionCatalog = sqliteTable('retention_catalog', {
  id: integer('id').primaryKey(),
  registeredAt: integer('registered_at').notNull(),
});
