import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { deletionJobsTable } from '../shared/deletion-jobs.js';

/**
 * Uploads being staged: each holds an admission slot, its reserved temporary bytes, and the opaque
 * key of its staged object. The lease is written before the first byte goes to R2 and renewed
 * while the request lives, so an upload whose request died (crash, SIGKILL, cancelled client)
 * leaves a lease that expires and is swept: its staged object and unfinished multipart upload go.
 * `agent_id` is the uploader, so one agent's uploads can be held to its share of the admission
 * (null only for leases written before the share existed).
 */
export const uploadLeases = sqliteTable(
  'upload_leases',
  {
    leaseId: text('lease_id').primaryKey(),
    objectKey: text('object_key').notNull().unique(),
    uploadId: text('upload_id'),
    agentId: text('agent_id'),
    reservedBytes: integer('reserved_bytes').notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('upload_leases_agent').on(t.agentId)],
);

/** Staged objects to delete (released or expired uploads, strays found by the prefix sweep). */
export const deletionJobs = deletionJobsTable();

/**
 * The channel catalog: every private channel that ever held a message and every group, in
 * creation order. The cleanup run walks it by `n`, so it can resume after a restart and also
 * reaches channels created meanwhile; the administrators' channel list pages through it. Each
 * channel reports its status and retained counts (durable-objects/channel/catalog-report.ts),
 * versioned so a late report never replaces a newer one; the overview's totals are sums here.
 */
export const channels = sqliteTable(
  'channels',
  {
    n: integer('n').primaryKey({ autoIncrement: true }),
    channelId: text('channel_id').notNull().unique(),
    kind: text('kind').$type<'private' | 'group'>().notNull(),
    createdAt: integer('created_at').notNull(),
    status: text('status').$type<'active' | 'dissolved'>().notNull().default('active'),
    messageCount: integer('message_count').notNull().default(0),
    fileCount: integer('file_count').notNull().default(0),
    lastMessageAt: integer('last_message_at'),
    version: integer('version').notNull().default(0),
  },
  // The administrators' list sorts by last activity and by fullness (catalog.ts adminPage).
  (t) => [
    index('channels_activity').on(t.status, t.lastMessageAt, t.n),
    index('channels_fullness').on(t.status, t.messageCount, t.fileCount, t.n),
  ],
);

/**
 * Each channel's unread deliveries per recipient, as the channel last reported them with its
 * figures (one row per recipient with anything unread): the fleet view's backlog and the agent
 * list's unread, leased and oldest-unread columns are sums and lookups here, no channel is asked.
 */
export const channelBacklog = sqliteTable(
  'channel_backlog',
  {
    channelId: text('channel_id').notNull(),
    agentId: text('agent_id').notNull(),
    /** Unread deliveries, leased and parked ones included (what GET /inbox counts as unread). */
    unread: integer('unread').notNull(),
    leased: integer('leased').notNull(),
    parked: integer('parked').notNull(),
    oldestUnreadAt: integer('oldest_unread_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.agentId] }), index('channel_backlog_agent').on(t.agentId)],
);

/**
 * Channels that reported deletion jobs left after an attempt (R2 failed or is slow). The object
 * polls them until they report zero, so their failures count in the cleanup status and block new
 * attachments (cleanup_unavailable) until they recover.
 */
export const channelHealth = sqliteTable('channel_health', {
  channelId: text('channel_id').primaryKey(),
  pending: integer('pending').notNull(),
  failed: integer('failed').notNull(),
  lastError: text('last_error'),
  nextPollAt: integer('next_poll_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** One row: the retroactive cleanup run and the settings revision it has seen. */
export const cleanupState = sqliteTable('cleanup_state', {
  id: integer('id').primaryKey(),
  active: integer('active', { mode: 'boolean' }).notNull().default(false),
  /** Catalog position: channels with n <= cursor have been brought within the limits. */
  cursor: integer('cursor').notNull().default(0),
  channelsDone: integer('channels_done').notNull().default(0),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  nextRunAt: integer('next_run_at'),
  startedAt: integer('started_at'),
  lastCompletedAt: integer('last_completed_at'),
  /** The latest settings revision this object acted on. */
  seenRevision: integer('seen_revision').notNull().default(0),
  /** Set before a settings change is committed; the alarm checks the registry then, in case the caller died. */
  checkSettingsAt: integer('check_settings_at'),
  /** The next prefix sweep of stray staged objects (defence in depth behind the leases). */
  sweepAt: integer('sweep_at'),
});
