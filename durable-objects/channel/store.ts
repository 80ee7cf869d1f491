/**
 * The channel's storage as one object: the job modules over one database handle, with an explicit
 * `now` so the Durable Object stays a thin shell and tests can drive the clock. Each method is one
 * job's (sending.ts, inbox.ts, history.ts, admin-view.ts, retention.ts, outbox.ts, files.ts);
 * this file only wires them and holds what they share (the handle, the fixed-text runner of
 * shared-sql.ts, the delivered-notes memory inside outbox.ts).
 *
 * Every check-and-write runs inside ONE synchronous transaction (drizzle's durable-sqlite
 * transaction is `transactionSync`): no await can split a dedup comparison from its insert, a
 * claim's selection from its lease, or an ACK's check from its write, so concurrent requests to
 * the channel cannot interleave inside them.
 */
import type { AdminChannelFilter, ChannelAdminSummary } from '../../core/domain/admin-channels.js';
import type { MessageContent } from '../../core/domain/content.js';
import type { SearchBudget } from '../../core/domain/search.js';
import { ChannelAdminView } from './admin-view.js';
import { ChannelFiles, type ChannelFileView } from './files.js';
import { ChannelHistory, type ContentMatches } from './history.js';
import { type AckOutcome, ChannelInbox, type InboxCounts, type LeaseOutcome } from './inbox.js';
import { ChannelOutbox, type OutboxItem } from './outbox.js';
import { ChannelRetention, type RetentionLimitsNow, type Victims } from './retention.js';
import {
  type ChannelSend,
  ChannelSending,
  type DirectSend,
  type ReplyRefused,
  type ReplyTarget,
  type SendOutcome,
  type SentMessage,
} from './sending.js';
import { ChannelSql, type Db, storageOf } from './shared-sql.js';

/** A retained file's object, as a download reads it. */
type StoredFile = { key: string; filename: string; media_type: string; size: number };

export class ChannelStore {
  /** Stored attachments, their copies in flight and their deletion jobs. */
  readonly files: ChannelFiles;
  private readonly sql: ChannelSql;
  private readonly sending: ChannelSending;
  private readonly inbox: ChannelInbox;
  private readonly reading: ChannelHistory;
  private readonly admin: ChannelAdminView;
  private readonly retention: ChannelRetention;
  /** The outbox rows (outbox.ts), which the ChannelDO's NoteDelivery drains. */
  readonly notes: ChannelOutbox;

  /** The one database handle the jobs share (a store-level test reads its storage). */
  constructor(private readonly db: Db) {
    this.sql = new ChannelSql(storageOf(this.db));
    this.files = new ChannelFiles(db);
    this.retention = new ChannelRetention(db, this.sql, this.files);
    this.notes = new ChannelOutbox(db, this.sql);
    this.sending = new ChannelSending(db, this.sql, this.files, this.retention, this.notes);
    this.inbox = new ChannelInbox(db, this.sql);
    this.reading = new ChannelHistory(db, this.sql);
    this.admin = new ChannelAdminView(db, this.sql, this.reading);
  }

  channelId(): string | null {
    return this.sql.channelRow()?.channelId ?? null;
  }

  // Sending (sending.ts)

  sendDirect(input: DirectSend & { replyTo?: undefined }): SendOutcome;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused {
    return this.sending.sendDirect(input);
  }

  send(input: ChannelSend & { replyTo?: undefined }): SendOutcome | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null {
    return this.sending.send(input);
  }

  replyTarget(replyTo: string): ReplyTarget | null {
    return this.sending.replyTarget(replyTo);
  }

  duplicateOf(senderId: string, content: MessageContent, replyTo?: string): SentMessage | null {
    return this.sending.duplicateOf(senderId, content, replyTo);
  }

  // Retention (retention.ts)

  enforceLimits(limits: RetentionLimitsNow, now: number): void {
    this.retention.enforceLimits(limits, now);
  }

  /** The channel's one deletion path, inside the caller's transaction (dissolution uses it). */
  purgeMessages(victims: Victims, now: number): void {
    this.retention.purge(victims, now);
  }

  // Inbox (inbox.ts). A method that only hands its arguments on takes them as its job declares them.

  counts(agentId: string, now: number, maxDeliveries = 0): InboxCounts | null {
    return this.inbox.counts(agentId, now, maxDeliveries);
  }

  claimCandidates(...args: Parameters<ChannelInbox['claimCandidates']>) {
    return this.inbox.claimCandidates(...args);
  }

  claim(...args: Parameters<ChannelInbox['claim']>) {
    return this.inbox.claim(...args);
  }

  ack(agentId: string, items: readonly { message_id: string; tokenHash: string }[], now: number): AckOutcome[] {
    return this.inbox.ack(agentId, items, now);
  }

  extend(...args: Parameters<ChannelInbox['extend']>) {
    return this.inbox.extend(...args);
  }

  release(agentId: string, items: readonly { message_id: string; tokenHash: string }[], now: number): LeaseOutcome[] {
    return this.inbox.release(agentId, items, now);
  }

  // History and search (history.ts)

  history(...args: Parameters<ChannelHistory['history']>) {
    return this.reading.history(...args);
  }

  search(...args: Parameters<ChannelHistory['search']>) {
    return this.reading.search(...args);
  }

  contentSearch(needle: string, budget: SearchBudget): ContentMatches {
    return this.reading.contentSearch(needle, budget);
  }

  backfillSenderNames(names: ReadonlyMap<string, string>): void {
    this.reading.backfillSenderNames(names);
  }

  // Administrators (admin-view.ts)

  adminHistory(...args: Parameters<ChannelAdminView['history']>) {
    return this.admin.history(...args);
  }

  adminSummary(filter: AdminChannelFilter, budget?: SearchBudget): ChannelAdminSummary | null {
    return this.admin.summary(filter, budget);
  }

  countContaining(needle: string, budget?: SearchBudget): number {
    return this.admin.countContaining(needle, budget);
  }

  /** A retained file of this channel for an administrator: no participant check (REQ-54); else null. */
  adminFile(fileId: string): StoredFile | null {
    return this.files.find(fileId);
  }

  // Files (files.ts), for active participants only

  /** A page of the retained attachments; null when the agent is not an active participant. */
  listFiles(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
  ): { files: ChannelFileView[]; next_seq: number | null } | null {
    if (!this.sql.isActive(agentId)) return null;
    return this.files.list(afterSeq, limit, order);
  }

  /** A retained file for an active participant (checked on every download), else null. */
  fileForDownload(agentId: string, fileId: string): StoredFile | null {
    if (!this.sql.isActive(agentId)) return null;
    return this.files.find(fileId);
  }

  // Outbox towards the participants' inbox indexes (outbox.ts), as the store-level tests read it

  outbox(): OutboxItem[] {
    return this.notes.pending();
  }

  outboxDelivered(agentId: string, version: number, readAt: number): void {
    this.notes.markDelivered(agentId, version, readAt);
  }
}
