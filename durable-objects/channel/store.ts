/**
 * The channel's storage logic, over drizzle with an explicit `now`, so the Durable Object stays a
 * thin shell and tests can drive the clock. Every check-and-write runs inside ONE synchronous
 * transaction (drizzle's durable-sqlite transaction is `transactionSync`): no await can split a
 * dedup comparison from its insert, a claim's selection from its lease, or an ACK's check from its
 * write, so concurrent requests to the channel cannot interleave inside them.
 */

import { and, asc, count, eq, gt, gte, isNull, sql } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import {
  type AdminChannelFilter,
  type ChannelAdminSummary,
  contentCheck,
  matchesIdentity,
} from '../../core/domain/admin-channels.js';
import type { ClaimOrder } from '../../core/domain/claim-plan.js';
import { codePointLength, type MessageContent, sameContent } from '../../core/domain/content.js';
import {
  type AckRejection,
  acknowledged,
  claimed,
  type DeliveryClaimState,
  decideAck,
  decideLease,
  extended,
  type LeaseRejection,
  released,
} from '../../core/domain/deliveries.js';
import { newMessageId } from '../../core/domain/ids.js';
import {
  matchesTerms,
  SEARCH_BUDGET,
  type SearchBudget,
  searchPlan,
  searchTerms,
  seqBoundBefore,
} from '../../core/domain/search.js';
import { hitSnippet, searchSnippet } from '../../core/domain/search-snippet.js';
import type { ChannelSearchHit, ChannelSearchPage, ClaimView, MessageView } from '../../core/rpc.js';
import type { ChannelNote } from '../agent/inbox-index.js';
import { iso } from '../shared/database.js';
import { DeliveredNotes } from './delivered-notes.js';
import { ChannelFiles, type ChannelFileView, type StoredFileRef } from './files.js';
import { ChannelHotSql, type ChannelRow, type DeliveryRow, type Pool } from './hot-sql.js';
import { ChannelPurgeSql, type Victims } from './purge-sql.js';
import * as schema from './schema.js';

export type Db = DrizzleSqliteDODatabase<typeof schema>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Q = Db | Tx;

const { channel, participants, messages, deliveries, notifyOutbox } = schema;

/**
 * How many sends may wait for the search index: the batch a send indexes together (hot-sql.ts
 * indexPending), and the most a search reads directly instead of through the index, within its
 * budget. Each batch is one FTS5 segment.
 */
export const SEARCH_INDEX_BATCH = 64;

/** How many purged message IDs a channel remembers for `message_purged` answers. */
export const PURGED_IDS_KEPT = 1_000;

export type { ClaimView, MessageView };

/** The message a send answered with, as the send results show it. */
interface SentMessage {
  message_id: string;
  seq: number;
  thread_id: string;
  reply_to: string | null;
}

interface SearchRow {
  seq: number;
  message_id: string;
  sender_id: string;
  created_at: number;
  body: string;
}

/** Candidate rows one statement of a search reads at most (the budget may allow fewer). */
const SEARCH_PAGE_ROWS = 100;

export type SendOutcome =
  | (SentMessage & {
      status: 'sent';
      created_at: number;
      /** Only when the send had a reply_to: whether retention had already deleted that message. */
      reply_to_purged?: boolean;
    })
  | (SentMessage & { status: 'duplicate' });

/** A reply_to refused by the channel (reply_to_not_found); nothing was stored. */
export interface ReplyRefused {
  status: 'reply_to_not_found';
}

/** The message a reply answers, retained or remembered as purged: its thread, and which of the two. */
export interface ReplyTarget {
  thread_id: string;
  purged: boolean;
}

/** Who is sending, with the display name stored with the message, and what it answers. */
export interface Sender {
  senderId: string;
  /** Stored with the message; the ChannelDO always passes it (store-level tests may leave it out). */
  senderName?: string;
  replyTo?: string;
}

type DirectSend = {
  channelId: string;
  recipientId: string;
  content: MessageContent;
  maxMessages: number;
  now: number;
} & Sender &
  FileSend;
type ChannelSend = { content: MessageContent; maxMessages: number; now: number } & Sender & FileSend;

export interface InboxCounts {
  unread: number;
  claimable: number;
  leased: number;
  /** Ended leases of deliveries claimed max_deliveries times (core/domain/deliveries.ts isParked). */
  parked: number;
  /** Milliseconds since the epoch, null when nothing is unread. */
  oldest_unread_at: number | null;
}

/** Which deliveries a claim takes by default: the ordinary pool, no max_deliveries. */
const ORDINARY: Pool = { pool: 'claimable', maxDeliveries: 0 };

/** What an extend or a release did to one item; `claim_expires_at` (ms) for an extend only. */
export type LeaseOutcome =
  | { message_id: string; status: 'extended'; claim_expires_at: number }
  | { message_id: string; status: 'released' }
  | { message_id: string; status: 'rejected'; code: LeaseRejection | 'message_purged' | 'not_found' };

export type AckOutcome =
  | { message_id: string; status: 'read' | 'already_read' }
  | { message_id: string; status: 'rejected'; code: AckRejection | 'message_purged' | 'not_found' };

export interface HistoryPage {
  messages: MessageView[];
  /** The seq after which (asc) or before which (desc) the next page starts; null at the end. */
  next_seq: number | null;
}

/**
 * A send that carries a file: the object already copied for this message (owned by a pending-copy
 * row until the insert commits) and the file cap to enforce with it.
 */
export interface FileSend {
  file?: StoredFileRef;
  maxFiles?: number;
}

/** Thrown when a private channel is addressed with a pair it does not belong to (an internal bug). */
export class ChannelIdentityError extends Error {}

function claimState(row: typeof deliveries.$inferSelect): DeliveryClaimState {
  return {
    state: row.state,
    claimHash: row.claimHash,
    claimExpiresAt: row.claimExpiresAt,
    replacedHashes: row.replacedHashes,
    ackHash: row.ackHash,
    ackDeadline: row.ackDeadline,
    deliveryCount: row.deliveryCount,
  };
}

export class ChannelStore {
  /** Stored attachments, their copies in flight and their deletion jobs. */
  readonly files: ChannelFiles;
  /** Fixed-text statements of the hot paths (hot-sql.ts); they join the open transaction, if any. */
  private readonly hot: ChannelHotSql;
  /** Retention's deletions, fixed text too (purge-sql.ts). */
  private readonly purge: ChannelPurgeSql;
  /** Outbox rows already delivered, deleted with the next write (delivered-notes.ts). */
  private readonly delivered = new DeliveredNotes();

  constructor(private readonly db: Db) {
    this.files = new ChannelFiles(db);
    // drizzle's durable-sqlite driver keeps the storage it was opened on as `$client` (untyped here).
    const storage = (db as unknown as { $client: DurableObjectStorage }).$client.sql;
    this.hot = new ChannelHotSql(storage);
    this.purge = new ChannelPurgeSql(storage);
  }

  /** Whether deletions are owed and whether the retention catalog knows this channel (one statement). */
  afterWriteState(): { work: boolean; cataloged: boolean } {
    return this.hot.afterWriteState();
  }

  channelId(): string | null {
    return this.channelRow(this.db)?.channelId ?? null;
  }

  /** Whether the agent is an active participant (inside the caller's transaction, if any). */
  isActive(agentId: string): boolean {
    return this.hot.participantState(agentId) === 'active';
  }

  // Sending

  /** A direct message: creates the pair's channel on first use, then inserts like any message. */
  sendDirect(input: DirectSend & { replyTo?: undefined }): SendOutcome;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused {
    return this.db.transaction((tx) => {
      // Before the channel is created: a refused reply stores nothing, not even the channel row.
      if (input.replyTo !== undefined && !this.replyTarget(input.replyTo, tx)) return this.refuseReply(tx, input);
      const row = this.ensureDirect(tx, input.channelId, input.senderId, input.recipientId, input.now);
      return this.insertMessage(tx, row, input, input.content, input.maxMessages, input.now, input);
    });
  }

  /** A message from an active participant of an existing channel (groups use this path). */
  send(input: ChannelSend & { replyTo?: undefined }): SendOutcome | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null {
    return this.db.transaction((tx) => {
      const row = this.channelRow(tx);
      if (!row || !this.isActive(input.senderId)) {
        if (input.file) this.files.abandonCopy(tx, input.file.objectKey, input.now);
        return null;
      }
      if (input.replyTo !== undefined && !this.replyTarget(input.replyTo, tx)) return this.refuseReply(tx, input);
      return this.insertMessage(tx, row, input, input.content, input.maxMessages, input.now, input);
    });
  }

  /**
   * The message `replyTo` answers, if this channel has it: retained, or among the remembered purged
   * IDs (the newest PURGED_IDS_KEPT), whose tombstones keep their thread. Null: not of this channel.
   */
  replyTarget(replyTo: string, _q: Q = this.db): ReplyTarget | null {
    const live = this.hot.messageById(replyTo);
    if (live) return { thread_id: live.threadId ?? replyTo, purged: false };
    const gone = this.hot.purgedThread(replyTo);
    return gone ? { thread_id: gone.threadId ?? replyTo, purged: true } : null;
  }

  /** A refused reply stores nothing: the copy of its file (if any) goes, in the same transaction. */
  private refuseReply(tx: Tx, input: { now: number } & FileSend): ReplyRefused {
    if (input.file) this.files.abandonCopy(tx, input.file.objectKey, input.now);
    return { status: 'reply_to_not_found' };
  }

  /** The channel's one row (inside the caller's transaction, if any); `_q` only says where it runs. */
  private channelRow(_q: Q) {
    return this.hot.channelRow();
  }

  /** The pair's channel row, created with its two participants on first use (then read back). */
  private ensureDirect(tx: Tx, channelId: string, a: string, b: string, now: number): ChannelRow | undefined {
    const row = this.channelRow(tx);
    if (!row) {
      tx.insert(channel).values({ id: 1, channelId, kind: 'private', createdAt: now }).run();
      tx.insert(participants)
        .values([
          { agentId: a, state: 'active', since: now },
          { agentId: b, state: 'active', since: now },
        ])
        .run();
      return this.channelRow(tx);
    }
    const members = this.hot
      .participants()
      .map((p) => p.id)
      .sort();
    if (row.channelId !== channelId || row.kind !== 'private' || members.join('\n') !== [a, b].sort().join('\n')) {
      throw new ChannelIdentityError(`channel ${row.channelId} is not the private channel of this pair`);
    }
    return row;
  }

  /**
   * Dedup compare and insert, in the caller's transaction. The comparison is with the sender's
   * latest retained message in this channel only: other senders never move the pointer, a
   * duplicate attempt does not either, and a purged pointer is gone (no fallback to older ones).
   * `row` is the channel row the caller read in this transaction (one read per send, not two).
   */
  private insertMessage(
    tx: Tx,
    row: ChannelRow | undefined,
    sender: Sender,
    content: MessageContent,
    maxMessages: number,
    now: number,
    withFile: FileSend = {},
  ): SendOutcome {
    const { senderId } = sender;
    if (!row) throw new Error('channel not initialized');
    const previous = this.comparisonMessage(tx, senderId);
    // reply_to is a detail of the request (api-v1, "Replies and duplicates"): the same body as a
    // reply to another message, or as a reply versus not, is a new message.
    if (previous && sameRequest(previous, content, sender.replyTo)) {
      // A duplicate keeps no copy: the object made for this attempt goes at once.
      if (withFile.file) this.files.abandonCopy(tx, withFile.file.objectKey, now);
      return { status: 'duplicate' as const, ...sentMessage(previous) };
    }
    // Checked by the caller in this transaction; read again here for the thread.
    const reply = sender.replyTo === undefined ? null : this.replyTarget(sender.replyTo, tx);
    const seq = row.lastSeq + 1;
    const createdAt = Math.max(now, row.lastCreatedAt);
    const messageId = newMessageId(row.channelId);
    // The message, the channel's counters, a delivery for every active participant but the sender
    // (senders never get their own message), the dedup pointer and the outbox rows for the
    // participants' inbox indexes (see channel-do.ts): all in this transaction. The rows whose note
    // already went out are deleted first, so this commit carries their deletion and this message's
    // notes start fresh rows rather than merging into delivered ones (a delivered `pending` would
    // otherwise ride along on the sender's own note).
    this.deleteDeliveredOutbox();
    this.hot.insertMessage({
      seq,
      messageId,
      senderId,
      senderName: sender.senderName ?? null,
      body: content.body,
      createdAt,
      attachment: content.attachment,
      replyTo: reply ? (sender.replyTo ?? null) : null,
      threadId: reply?.thread_id ?? null,
    });
    if (withFile.file) this.files.attach(tx, seq, withFile.file);
    this.enforceRetention(tx, maxMessages, now, withFile.maxFiles);
    // After retention: a message purged before its batch never costs the index anything.
    if (seq - row.indexedSeq >= SEARCH_INDEX_BATCH) this.hot.indexPending();
    return {
      status: 'sent' as const,
      message_id: messageId,
      seq,
      created_at: createdAt,
      thread_id: reply?.thread_id ?? messageId,
      reply_to: reply ? (sender.replyTo ?? null) : null,
      ...(reply && { reply_to_purged: reply.purged }),
    };
  }

  /** The sender's latest retained message here: the only one a new message is compared with. */
  private comparisonMessage(_q: Q, senderId: string) {
    return this.hot.comparisonMessage(senderId);
  }

  /**
   * The retained message `content` duplicates now, if any (read-only). A file send asks first, so
   * a duplicate never costs a copy of the file; answering from this read is as true as answering
   * from the insert transaction, since nothing runs in between (no await).
   */
  duplicateOf(senderId: string, content: MessageContent, replyTo?: string): SentMessage | null {
    const previous = this.comparisonMessage(this.db, senderId);
    return previous && sameRequest(previous, content, replyTo) ? sentMessage(previous) : null;
  }

  // Retention

  /**
   * Coupled retention, run after every insert in the insert's transaction: the newest
   * `maxMessages` messages stay, and of those at most `maxFiles` file messages (the newest); the
   * oldest go even when unread or leased. A file message that goes takes its file with it (a
   * deletion job in this same transaction), and a file over the cap takes its whole message.
   */
  enforceRetention(tx: Tx, maxMessages: number, now: number, maxFiles?: number): void {
    const edge = this.hot.retentionEdge(maxMessages);
    if (edge !== undefined) this.purgeMessages(tx, { upTo: edge }, now);
    if (maxFiles === undefined) return;
    // A list, not a subquery over `files`: purging deletes those rows before the messages.
    this.purgeMessages(tx, { seqs: this.purge.overFileCap(maxFiles) }, now);
  }

  /**
   * Retroactive cleanup after an administrator lowered limits: messages whose body or file is now
   * over the length or size limit go whole, then the count caps apply as after a write. Bodies are
   * measured in code points; SQLite's byte length is only a prefilter (a body over N code points
   * has more than N bytes), read in pages so a channel of large bodies never sits in memory.
   */
  enforceLimits(
    limits: { maxMessages: number; maxFiles: number; maxBodyCodePoints: number; maxFileBytes: number },
    now: number,
  ): void {
    this.db.transaction((tx) => {
      const victims: number[] = [...this.files.oversized(tx, limits.maxFileBytes)];
      let after = 0;
      for (;;) {
        const page = tx
          .select({ seq: messages.seq, body: messages.body })
          .from(messages)
          .where(
            and(gt(messages.seq, after), sql`length(cast(${messages.body} as blob)) > ${limits.maxBodyCodePoints}`),
          )
          .orderBy(asc(messages.seq))
          .limit(100)
          .all();
        for (const m of page) if (codePointLength(m.body) > limits.maxBodyCodePoints) victims.push(m.seq);
        const last = page.at(-1);
        if (!last) break;
        after = last.seq;
      }
      this.purgeMessages(tx, { seqs: victims }, now);
      this.enforceRetention(tx, limits.maxMessages, now, limits.maxFiles);
    });
  }

  /**
   * Deletes the victims with everything that refers to them: files (each object gets a deletion
   * job), deliveries (and so their claims and ACK metadata) and dedup pointers, leaving only their
   * IDs as tombstones (the newest PURGED_IDS_KEPT). Fixed-text statements (purge-sql.ts), each one
   * over all victims; `_tx` says where they run: inside the caller's transaction.
   */
  purgeMessages(_tx: Tx, victims: Victims, now: number): void {
    this.purge.purge(victims, now, PURGED_IDS_KEPT);
  }

  /** Writes registry names into messages stored before names were kept (channel-do.ts `named`). */
  backfillSenderNames(names: ReadonlyMap<string, string>): void {
    this.db.transaction((tx) => {
      for (const [senderId, name] of names) {
        tx.update(messages)
          .set({ senderName: name })
          .where(and(eq(messages.senderId, senderId), isNull(messages.senderName)))
          .run();
      }
    });
  }

  // Inbox

  /**
   * The agent's counts here under `maxDeliveries` (0: nothing parks), or null when it is not an
   * active participant. Unread keeps parked deliveries; claimable leaves them out.
   */
  counts(agentId: string, now: number, maxDeliveries = 0): InboxCounts | null {
    const { active, unread, leased, parked, oldest } = this.hot.counts(agentId, now, maxDeliveries);
    if (!active) return null;
    return { unread, claimable: unread - leased - parked, leased, parked, oldest_unread_at: oldest };
  }

  /**
   * The agent's best `limit` claimable (or, pool `parked`, parked) deliveries for the
   * cross-channel merge, and its unread count.
   */
  claimCandidates(
    agentId: string,
    limit: number,
    order: ClaimOrder,
    now: number,
    pool: Pool = ORDINARY,
  ): { candidates: { seq: number; created_at: number }[]; unread: number } | null {
    const counts = this.counts(agentId, now, pool.maxDeliveries);
    if (!counts) return null;
    // A stale hint (nothing unread) needs no second statement.
    if (counts.unread === 0) return { candidates: [], unread: 0 };
    const candidates = this.hot.claimCandidates(agentId, now, order, limit, pool);
    return { candidates, unread: counts.unread };
  }

  /**
   * Leases up to `tokens.length` claimable deliveries of the agent in `order` (pool `parked`:
   * parked ones only), one fresh token each (only its hash is stored). Selection and lease are one
   * transaction, so two claimers can never lease the same delivery. Null when the agent is not an
   * active participant.
   */
  claim(
    agentId: string,
    tokens: readonly { token: string; hash: string }[],
    order: ClaimOrder,
    now: number,
    claimMs: number,
    pool: Pool = ORDINARY,
  ): ClaimView[] | null {
    return this.db.transaction((tx) => {
      if (!this.isActive(agentId)) return null;
      const where = this.whereAbout(tx);
      const rows = this.hot.claimable(agentId, now, order, tokens.length, pool);
      const expiresAt = now + claimMs;
      return rows.map(({ d, m }, i) => {
        const token = tokens[i]!;
        const next = claimed(claimState(d), token.hash, expiresAt);
        this.writeDelivery(d, agentId, next);
        return {
          message: messageView(where, m),
          claim_token: token.token,
          claim_expires_at: iso(expiresAt),
          delivery_count: next.deliveryCount,
        };
      });
    });
  }

  /** ACKs of the agent's own deliveries, in order, in one transaction. */
  ack(agentId: string, items: readonly { message_id: string; tokenHash: string }[], now: number): AckOutcome[] {
    return this.eachDelivery(agentId, items, (row, state, { message_id, tokenHash }): AckOutcome => {
      const decision = decideAck(state, tokenHash, now);
      if (decision.status === 'read') this.writeDelivery(row, agentId, acknowledged(state));
      return decision.status === 'rejected'
        ? { message_id, status: 'rejected', code: decision.code }
        : { message_id, status: decision.status };
    });
  }

  /**
   * Extends the live leases the tokens hold to `now + ms` (same token), in one transaction. A
   * refused item (the ACK's refusals, or already_read) changes nothing.
   */
  extend(
    agentId: string,
    items: readonly { message_id: string; tokenHash: string }[],
    now: number,
    ms: number,
  ): LeaseOutcome[] {
    return this.eachDelivery(agentId, items, (row, state, { message_id, tokenHash }): LeaseOutcome => {
      const decision = decideLease(state, tokenHash, now);
      if (decision.status === 'rejected') return { message_id, status: 'rejected', code: decision.code };
      this.writeDelivery(row, agentId, extended(state, now + ms));
      return { message_id, status: 'extended', claim_expires_at: now + ms };
    });
  }

  /**
   * Ends the live leases the tokens hold now, in one transaction: each delivery is claimable at
   * once (parked if it has had its max_deliveries) and its token is refused from then on.
   */
  release(agentId: string, items: readonly { message_id: string; tokenHash: string }[], now: number): LeaseOutcome[] {
    return this.eachDelivery(agentId, items, (row, state, { message_id, tokenHash }): LeaseOutcome => {
      const decision = decideLease(state, tokenHash, now);
      if (decision.status === 'rejected') return { message_id, status: 'rejected', code: decision.code };
      this.writeDelivery(row, agentId, released(state, now));
      return { message_id, status: 'released' };
    });
  }

  /**
   * The agent's own delivery of each item's message, handed to `decide` in one transaction: each
   * item's check and write, none interleaved with another request. Whoever is not an active
   * participant, a message not here, or no delivery of it to this agent: not_found (message_purged
   * for a remembered purged ID).
   */
  private eachDelivery<T extends { message_id: string }, R>(
    agentId: string,
    items: readonly T[],
    decide: (row: DeliveryRow, state: DeliveryClaimState, item: T) => R,
  ): (R | { message_id: string; status: 'rejected'; code: 'message_purged' | 'not_found' })[] {
    return this.db.transaction(() => {
      const active = this.isActive(agentId);
      return items.map((item) => {
        const { message_id } = item;
        if (!active) return { message_id, status: 'rejected' as const, code: 'not_found' as const };
        const message = this.hot.messageById(message_id);
        if (!message) {
          const code = this.hot.isPurged(message_id) ? ('message_purged' as const) : ('not_found' as const);
          return { message_id, status: 'rejected' as const, code };
        }
        const row = this.hot.delivery(message.seq, agentId);
        if (!row) return { message_id, status: 'rejected' as const, code: 'not_found' as const };
        return decide(row, claimState(row), item);
      });
    });
  }

  private writeDelivery(row: DeliveryRow, agentId: string, next: DeliveryClaimState): void {
    this.hot.updateDelivery(row.seq, agentId, { ...next, replacedHashes: [...next.replacedHashes] });
  }

  // History

  /**
   * A page of retained messages by seq, optionally of one thread only (`threadId`: the root's ID,
   * whether the root is retained or not); null when the agent is not an active participant.
   */
  history(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): HistoryPage | null {
    if (!this.isActive(agentId)) return null;
    return this.historyPage(this.whereAbout(this.db), afterSeq, limit, order, threadId);
  }

  private historyPage(
    where: ChannelLabel,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): HistoryPage {
    const rows = this.hot.historyRows(afterSeq, limit + 1, order, threadId);
    const page = rows.slice(0, limit);
    return {
      messages: page.map((m) => messageView(where, m)),
      next_seq: rows.length > limit ? (page.at(-1)?.seq ?? null) : null,
    };
  }

  /** What every message view says about its channel: ID, kind and (groups) name, from the one row. */
  private whereAbout(q: Q): ChannelLabel {
    const row = this.channelRow(q);
    return { channelId: row?.channelId ?? '', kind: row?.kind ?? 'private', name: row?.name ?? null };
  }

  // Administrators (REQ-54): read-only, whoever takes part; never a claim, never a read mark.

  /** History as an agent reads it, without the membership check; null when there is no channel. */
  adminHistory(
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
    threadId?: string,
  ): (HistoryPage & { replied: { message_id: string; seq: number | null }[] }) | null {
    if (!this.channelRow(this.db)) return null;
    const page = this.historyPage(this.whereAbout(this.db), afterSeq, limit, order, threadId);
    // The messages this page answers, retained (their seq, to link to) or deleted (null): at most one lookup per message of the page.
    const answered = [...new Set(page.messages.flatMap((m) => (m.reply_to ? [m.reply_to] : [])))];
    const replied = answered.map((id) => ({ message_id: id, seq: this.hot.messageById(id)?.seq ?? null }));
    return { ...page, replied };
  }

  /**
   * The channel as an administrator's list shows it, and whether it passes `filter`: the identity
   * filters first (cheap), then, only if they pass, the content search. Null: no channel here.
   */
  adminSummary(filter: AdminChannelFilter, budget: SearchBudget = SEARCH_BUDGET): ChannelAdminSummary | null {
    const row = this.channelRow(this.db);
    if (!row) return null;
    const people = this.db
      .select()
      .from(participants)
      .orderBy(asc(participants.since), asc(participants.agentId))
      .all()
      .map((p) => ({ agent_id: p.agentId, state: p.state, role: p.role }));
    const summary: ChannelAdminSummary = {
      channel_id: row.channelId,
      kind: row.kind,
      name: row.name,
      status: row.status,
      created_at: row.createdAt,
      participants: people,
      message_count: this.db.select({ n: count() }).from(messages).get()?.n ?? 0,
      file_count: this.db.select({ n: count() }).from(schema.files).get()?.n ?? 0,
      last_message_at: row.lastSeq > 0 ? row.lastCreatedAt : null,
      matches: false,
    };
    if (!matchesIdentity(row.kind, people, filter)) return summary;
    if (filter.q === undefined) return { ...summary, matches: true };
    const found = this.contentSearch(filter.q, budget);
    const complete = found.complete;
    if (found.matching === 0) return { ...summary, matching_messages: 0, search_complete: complete, matches: false };
    const snippet = found.newest && {
      message_id: found.newest.message_id,
      seq: found.newest.seq,
      ...searchSnippet(found.newest.body, filter.q),
    };
    return {
      ...summary,
      matching_messages: found.matching,
      search_complete: complete,
      matches: true,
      ...(snippet ? { snippet } : {}),
    };
  }

  /**
   * Retained messages whose body contains `needle`, ignoring case, newest first, examining at most
   * `budget`: how many were found, whether that is all of them (the channel was examined to its
   * end), and the newest one. A needle of three characters or more is narrowed by the full-text
   * index and decided on the folded body (core/domain/search.ts: also accents, İ, decomposed
   * letters, ß as ss); a shorter one has no trigram and every body is decided the way
   * contentSearchPlan says.
   */
  contentSearch(
    needle: string,
    budget: SearchBudget,
  ): { matching: number; complete: boolean; newest: { message_id: string; seq: number; body: string } | null } {
    const row = this.channelRow(this.db);
    if (!row) return { matching: 0, complete: true, newest: null };
    const plan = searchPlan(needle, 'phrase');
    const check = plan.match === null ? contentCheck(needle) : (body: string) => matchesTerms(body, plan.terms);
    let matching = 0;
    let newest: SearchRow | null = null;
    const stop = this.scanNewestFirst(plan.match, row.indexedSeq, Number.MAX_SAFE_INTEGER, budget, (r) => {
      if (check(r.body)) {
        matching++;
        newest ??= r;
      }
      return true;
    });
    return { matching, complete: stop === null, newest };
  }

  /** How many retained messages contain `needle` (contentSearch; at least that many when the budget ends it). */
  countContaining(needle: string, budget: SearchBudget = SEARCH_BUDGET): number {
    return this.contentSearch(needle, budget).matching;
  }

  // Search (GET /search): the same rule as history, then the channel's full-text index.

  /**
   * Up to `want` retained messages matching `query` (every term, see core/domain/search.ts),
   * newest first, strictly after `before` in that order (created_at desc, seq desc), examining at
   * most `budget` (rows and body characters, at least one row). `resume` is the position of the
   * last row examined when the channel stopped before its end (a full page or a spent budget):
   * everything up to it is decided, nothing after it. Every hit's snippet is cut from a window
   * around its match (hitSnippet), so that work is bounded by the same budget. Null when the
   * agent is not an active participant: exactly the rule of history(), so search never shows what
   * history would not.
   */
  search(
    agentId: string,
    query: string,
    before: { created_at: number; seq: number } | null,
    want: number,
    budget: SearchBudget,
  ): ChannelSearchPage | null {
    if (!this.isActive(agentId)) return null;
    const channel = this.channelRow(this.db);
    if (!channel) return { hits: [], resume: null };
    const plan = searchPlan(query);
    const terms = searchTerms(query);
    const bound = before
      ? seqBoundBefore(before, channel.lastSeq, (seq) => this.firstFrom(seq))
      : Number.MAX_SAFE_INTEGER;
    const hits: ChannelSearchHit[] = [];
    const stop = this.scanNewestFirst(plan.match, channel.indexedSeq, bound, budget, (r) => {
      if (matchesTerms(r.body, plan.terms)) {
        hits.push({
          channel_id: channel.channelId,
          message_id: r.message_id,
          sender_id: r.sender_id,
          created_at: r.created_at,
          seq: r.seq,
          snippet: hitSnippet(r.body, terms),
        });
      }
      return hits.length < want;
    });
    return { hits, resume: stop && { created_at: stop.created_at, seq: stop.seq } };
  }

  /**
   * Visits the retained rows below seq `bound` that may match `match` (an FTS5 filter; null: every
   * row), newest first, each once, until `visit` answers false or `budget` is spent (rows and body
   * characters; at least one row, so every call moves on). The rows the index does not hold yet
   * (above `indexed`, at most a batch) are read directly: indexing them here would be a stretch
   * of work no budget bounds. Answers the last row visited when it stopped before the end, null
   * when everything below `bound` was visited.
   */
  private scanNewestFirst(
    match: string | null,
    indexed: number,
    from: number,
    budget: SearchBudget,
    visit: (row: SearchRow) => boolean,
  ): SearchRow | null {
    let bound = from;
    let rows = 0;
    let chars = 0;
    let last: SearchRow | null = null;
    for (;;) {
      // One row more than the budget allows, so a channel that ends exactly there is known to end.
      const pageRows = Math.max(1, Math.min(SEARCH_PAGE_ROWS, budget.rows - rows + 1));
      const direct = match === null || bound > indexed + 1;
      const page = direct
        ? this.db.all<SearchRow>(sql`select m.seq, m.message_id, m.sender_id, m.created_at, m.body
              from messages m where m.seq < ${bound} and m.seq > ${match === null ? 0 : indexed}
              order by m.seq desc limit ${pageRows}`)
        : this.db.all<SearchRow>(sql`select m.seq, m.message_id, m.sender_id, m.created_at, m.body
              from messages_fts join messages m on m.seq = messages_fts.rowid
              where messages_fts match ${match} and messages_fts.rowid < ${bound}
              order by messages_fts.rowid desc limit ${pageRows}`);
      for (const r of page) {
        if (last && (rows >= budget.rows || chars >= budget.chars)) return last;
        rows++;
        chars += r.body.length;
        bound = r.seq;
        last = r;
        if (!visit(r)) return r;
      }
      if (page.length < pageRows) {
        if (match === null || !direct) return null;
        // The unindexed rows are done: the index answers for the rest.
        bound = Math.min(bound, indexed + 1);
      }
    }
  }

  /** The retained message with the smallest seq at or above `seq` (seqBoundBefore's probe). */
  private firstFrom(seq: number): { seq: number; created_at: number } | null {
    return (
      this.db
        .select({ seq: messages.seq, created_at: messages.createdAt })
        .from(messages)
        .where(gte(messages.seq, seq))
        .orderBy(asc(messages.seq))
        .limit(1)
        .get() ?? null
    );
  }

  // Files

  /** A page of the retained attachments; null when the agent is not an active participant. */
  listFiles(
    agentId: string,
    afterSeq: number | null,
    limit: number,
    order: 'asc' | 'desc',
  ): { files: ChannelFileView[]; next_seq: number | null } | null {
    if (!this.isActive(agentId)) return null;
    return this.files.list(afterSeq, limit, order);
  }

  /** A retained file for an active participant (checked on every download), else null. */
  /** A retained file of this channel for an administrator: no participant check (REQ-54); else null. */
  adminFile(fileId: string): { key: string; filename: string; media_type: string; size: number } | null {
    return this.files.find(fileId);
  }

  fileForDownload(
    agentId: string,
    fileId: string,
  ): { key: string; filename: string; media_type: string; size: number } | null {
    if (!this.isActive(agentId)) return null;
    return this.files.find(fileId);
  }

  // Outbox towards the participants' inbox indexes

  hasOutbox(): boolean {
    return this.db.select({ a: notifyOutbox.agentId }).from(notifyOutbox).limit(1).get() !== undefined;
  }

  /**
   * The notes still to deliver, each with the row version a successful delivery records and the
   * epoch it was read at (delivered-notes.ts). A row whose note its agent already took is left
   * out while its version is the one delivered; it stays in the table until a later write deletes
   * it (deleteDeliveredOutbox).
   */
  outbox(): { agentId: string; version: number; readAt: number; note: ChannelNote }[] {
    const outbox = this.hot.outboxRows().filter((item) => !this.delivered.has(item.agentId, item.version));
    if (outbox.length === 0) return [];
    const row = this.channelRow(this.db);
    if (!row) return [];
    const members = this.hot.participants();
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
  outboxDelivered(agentId: string, version: number, readAt: number): void {
    this.delivered.record(agentId, version, readAt);
  }

  /**
   * Deletes the delivered rows (compare-and-delete on the delivered version), inside the caller's
   * transaction if there is one: the next send's and every membership change's (before their
   * outbox upsert), and the alarm's run.
   */
  deleteDeliveredOutbox(): void {
    for (const [agentId, version] of this.delivered.take()) this.hot.deleteOutboxRow(agentId, version);
  }

  outboxFailed(agentId: string, error: string): void {
    this.db
      .update(notifyOutbox)
      .set({ attempts: sql`${notifyOutbox.attempts} + 1`, lastError: error.slice(0, 500) })
      .where(eq(notifyOutbox.agentId, agentId))
      .run();
  }
}

interface ChannelLabel {
  channelId: string;
  kind: 'private' | 'group';
  name: string | null;
}

export function messageView(where: ChannelLabel, m: typeof messages.$inferSelect): MessageView {
  return {
    message_id: m.messageId,
    channel_id: where.channelId,
    sender_id: m.senderId,
    sender_display_name: m.senderName,
    channel_kind: where.kind,
    group_name: where.kind === 'group' ? where.name : null,
    body: m.body,
    created_at: iso(m.createdAt),
    seq: m.seq,
    attachment: m.attachment ?? null,
    reply_to: m.replyTo,
    thread_id: m.threadId ?? m.messageId,
  };
}

/**
 * The dedup comparison: the same content (body and file) answering the same message. A refused
 * reply_to never reaches it, so the retained message's reply_to is what this request would store.
 */
function sameRequest(previous: typeof messages.$inferSelect, content: MessageContent, replyTo?: string): boolean {
  return sameContent(previous, content) && previous.replyTo === (replyTo ?? null);
}

function sentMessage(m: typeof messages.$inferSelect): SentMessage {
  return { message_id: m.messageId, seq: m.seq, thread_id: m.threadId ?? m.messageId, reply_to: m.replyTo };
}
