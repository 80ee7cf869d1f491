/**
 * Sending: a direct message (the pair's channel created on first use) or a message from an active
 * participant of an existing channel (groups), each one synchronous transaction that checks the
 * reply target, compares with the sender's dedup pointer, inserts the message with its deliveries
 * and outbox rows, applies retention (retention.ts) and, every SEARCH_INDEX_BATCH sends, feeds the
 * search index (a bounded number of bytes at a time). No await can split the dedup comparison from its insert.
 *
 * Every statement of a send is fixed SQL text (shared-sql.ts says why): this is the hottest path.
 * Creating a pair's channel happens once per channel and stays on drizzle.
 */
import type { MessageContent } from '../../core/domain/content.js';
import { sameContent } from '../../core/domain/content.js';
import { newMessageId } from '../../core/domain/ids.js';
import type { ChannelFiles, StoredFileRef } from './files.js';
import type { ChannelOutbox } from './outbox.js';
import type { ChannelRetention } from './retention.js';
import * as schema from './schema.js';
import {
  type ChannelRow,
  type ChannelSql,
  type Db,
  MESSAGE_COLUMNS,
  type MessageRow,
  messageRow,
  type Tx,
} from './shared-sql.js';

const { channel, participants } = schema;

/**
 * How many sends may wait for the search index: the batch a send indexes together (indexPending),
 * and the most a search reads directly instead of through the index, within its budget
 * (history.ts). Each batch is one FTS5 segment.
 */
export const SEARCH_INDEX_BATCH = 64;

/**
 * The most body bytes one send feeds the index beyond a single message. Trigram indexing costs
 * about its text's length on the one thread (a batch of 64 bodies of 16,000 characters held it for
 * a fifth of a second), so a batch takes the oldest waiting messages up to this size and leaves
 * the rest to the next sends: each of those indexes at least one, so fewer than SEARCH_INDEX_BATCH
 * keep waiting. Short messages still go 64 at a time.
 */
export const SEARCH_INDEX_BATCH_BYTES = 64 * 1024;

/** The message a send answered with, as the send results show it. */
export interface SentMessage {
  message_id: string;
  seq: number;
  thread_id: string;
  reply_to: string | null;
}

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

/**
 * A send that carries a file: the object already copied for this message (owned by a pending-copy
 * row until the insert commits) and the file cap to enforce with it.
 */
export interface FileSend {
  file?: StoredFileRef;
  maxFiles?: number;
}

export type ChannelSend = { content: MessageContent; maxMessages: number; now: number } & Sender & FileSend;
export type DirectSend = { channelId: string; recipientId: string } & ChannelSend;

/** Thrown when a private channel is addressed with a pair it does not belong to (an internal bug). */
export class ChannelIdentityError extends Error {}

/** The sender's latest retained message here (its dedup pointer), if any. */
const COMPARISON = `select ${MESSAGE_COLUMNS} from dedup p join messages m on m.seq = p.seq where p.sender_id = ?`;

/**
 * The writes of every send: the message, the channel's counters, a delivery for every active
 * participant but the sender (senders never get their own message), the sender's dedup pointer
 * and the outbox rows for the participants' indexes.
 */
const INSERT = {
  message: `insert into messages (seq, message_id, sender_id, body, created_at, attachment, reply_to, thread_id, sender_name)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  counters: 'update channel set last_seq = ?, last_created_at = ? where id = 1',
  deliveries: `insert into deliveries (seq, recipient_id, state)
    select ?, agent_id, 'unread' from participants where state = 'active' and agent_id != ?`,
  dedup: 'insert into dedup (sender_id, seq) values (?, ?) on conflict (sender_id) do update set seq = excluded.seq',
  outbox: `insert into notify_outbox (agent_id, pending, last_message_at)
    select agent_id, agent_id != ?, ? from participants where state = 'active'
    on conflict (agent_id) do update set
      pending = pending or excluded.pending,
      last_message_at = max(coalesce(last_message_at, 0), excluded.last_message_at),
      version = version + 1`,
};

/**
 * The search index's batch (migrations/channel/0006_deferred_search_index.sql): the retained
 * messages above indexed_seq go into the index together, and indexed_seq moves to last_seq:
 * whatever lies in between is either indexed now or gone (purged unindexed, which the delete
 * trigger skipped). One FTS5 segment per batch instead of one per send.
 */
const INDEX_PENDING = {
  /** The waiting messages' sizes in bytes, oldest first (at most a batch: the rest waits anyway). */
  waiting: `select seq, length(cast(body as blob)) as bytes from messages
    where seq > (select indexed_seq from channel where id = 1) order by seq limit ${SEARCH_INDEX_BATCH}`,
  insert: `insert into messages_fts (rowid, body)
    select seq, body from messages where seq > (select indexed_seq from channel where id = 1) and seq <= ? order by seq`,
  /** Every waiting message went in: the purged seqs above the last one are done too. */
  markAll: 'update channel set indexed_seq = last_seq where id = 1 and indexed_seq < last_seq',
  /** Part of them went in (SEARCH_INDEX_BATCH_BYTES): the rest waits above `?`. */
  markUpTo: 'update channel set indexed_seq = ? where id = 1 and indexed_seq < ?',
};

export class ChannelSending {
  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
    private readonly files: ChannelFiles,
    private readonly retention: ChannelRetention,
    private readonly outbox: ChannelOutbox,
  ) {}

  /** A direct message: creates the pair's channel on first use, then inserts like any message. */
  sendDirect(input: DirectSend & { replyTo?: undefined }): SendOutcome;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused;
  sendDirect(input: DirectSend): SendOutcome | ReplyRefused {
    return this.db.transaction((tx) => {
      // Before the channel is created: a refused reply stores nothing, not even the channel row.
      const reply = this.replyOf(input);
      if (reply === undefined) return this.refuseReply(tx, input);
      return this.insert(tx, this.ensureDirect(tx, input), reply, input);
    });
  }

  /** A message from an active participant of an existing channel (groups use this path). */
  send(input: ChannelSend & { replyTo?: undefined }): SendOutcome | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null;
  send(input: ChannelSend): SendOutcome | ReplyRefused | null {
    return this.db.transaction((tx) => {
      const row = this.sql.channelRow();
      if (!row || !this.sql.isActive(input.senderId)) {
        if (input.file) this.files.abandonCopy(tx, input.file.objectKey, input.now);
        return null;
      }
      const reply = this.replyOf(input);
      if (reply === undefined) return this.refuseReply(tx, input);
      return this.insert(tx, row, reply, input);
    });
  }

  /**
   * The message `replyTo` answers, if this channel has it: retained, or among the remembered purged
   * IDs (retention.ts PURGED_IDS_KEPT), whose tombstones keep their thread. Null: not of this channel.
   */
  replyTarget(replyTo: string): ReplyTarget | null {
    const live = this.sql.messageById(replyTo);
    if (live) return { thread_id: live.threadId ?? replyTo, purged: false };
    const gone = this.sql.purgedThread(replyTo);
    return gone ? { thread_id: gone.threadId ?? replyTo, purged: true } : null;
  }

  /**
   * The retained message `content` duplicates now, if any (read-only). A file send asks first, so
   * a duplicate never costs a copy of the file; answering from this read is as true as answering
   * from the insert transaction, since nothing runs in between (no await).
   */
  duplicateOf(senderId: string, content: MessageContent, replyTo?: string): SentMessage | null {
    const previous = this.comparisonMessage(senderId);
    return previous && sameRequest(previous, content, replyTo) ? sentMessage(previous) : null;
  }

  /** The send's reply target: null without a reply_to, undefined when this channel does not know it. */
  private replyOf(input: Sender): ReplyTarget | null | undefined {
    return input.replyTo === undefined ? null : (this.replyTarget(input.replyTo) ?? undefined);
  }

  /** A refused reply stores nothing: the copy of its file (if any) goes, in the same transaction. */
  private refuseReply(tx: Tx, input: { now: number } & FileSend): ReplyRefused {
    if (input.file) this.files.abandonCopy(tx, input.file.objectKey, input.now);
    return { status: 'reply_to_not_found' };
  }

  /** The pair's channel row, created with its two participants on first use (then read back). */
  private ensureDirect(tx: Tx, input: DirectSend): ChannelRow {
    const { channelId, senderId: a, recipientId: b, now } = input;
    const row = this.sql.channelRow();
    if (!row) {
      tx.insert(channel).values({ id: 1, channelId, kind: 'private', createdAt: now }).run();
      tx.insert(participants)
        .values([
          { agentId: a, state: 'active', since: now },
          { agentId: b, state: 'active', since: now },
        ])
        .run();
      const created = this.sql.channelRow();
      if (!created) throw new Error('channel not initialized');
      return created;
    }
    const members = this.sql
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
   * `row` is the channel row and `reply` the reply target the caller read in this transaction
   * (one read of each per send, not two).
   */
  private insert(tx: Tx, row: ChannelRow, reply: ReplyTarget | null, input: ChannelSend): SendOutcome {
    const { senderId, content, now } = input;
    const previous = this.comparisonMessage(senderId);
    // reply_to is a detail of the request (api-v1, "Replies and duplicates"): the same body as a
    // reply to another message, or as a reply versus not, is a new message.
    if (previous && sameRequest(previous, content, input.replyTo)) {
      // A duplicate keeps no copy: the object made for this attempt goes at once.
      if (input.file) this.files.abandonCopy(tx, input.file.objectKey, now);
      return { status: 'duplicate' as const, ...sentMessage(previous) };
    }
    const seq = row.lastSeq + 1;
    const createdAt = Math.max(now, row.lastCreatedAt);
    const messageId = newMessageId(row.channelId);
    const replyTo = reply ? (input.replyTo ?? null) : null;
    // The rows whose note already went out are deleted first, so this commit carries their
    // deletion and this message's notes start fresh rows rather than merging into delivered ones
    // (a delivered `pending` would otherwise ride along on the sender's own note).
    this.outbox.deleteDelivered();
    this.sql.run(
      INSERT.message,
      seq,
      messageId,
      senderId,
      content.body,
      createdAt,
      content.attachment === null ? null : JSON.stringify(content.attachment),
      replyTo,
      reply?.thread_id ?? null,
      input.senderName ?? null,
    );
    this.sql.run(INSERT.counters, seq, createdAt);
    this.sql.run(INSERT.deliveries, seq, senderId);
    this.sql.run(INSERT.dedup, senderId, seq);
    this.sql.run(INSERT.outbox, senderId, createdAt);
    if (input.file) this.files.attach(tx, seq, input.file);
    this.retention.afterInsert(input.maxMessages, now, input.maxFiles);
    // After retention: a message purged before its batch never costs the index anything.
    if (seq - row.indexedSeq >= SEARCH_INDEX_BATCH) this.indexPending();
    return {
      status: 'sent' as const,
      message_id: messageId,
      seq,
      created_at: createdAt,
      thread_id: reply?.thread_id ?? messageId,
      reply_to: replyTo,
      ...(reply && { reply_to_purged: reply.purged }),
    };
  }

  /** The sender's latest retained message here: the only one a new message is compared with. */
  private comparisonMessage(senderId: string): MessageRow | undefined {
    const r = this.sql.first(COMPARISON, senderId);
    return r && messageRow(r);
  }

  /**
   * Feeds the search index one batch (INDEX_PENDING), in the send's transaction: the oldest waiting
   * messages up to SEARCH_INDEX_BATCH_BYTES, at least one.
   */
  private indexPending(): void {
    const waiting = this.sql.all(INDEX_PENDING.waiting);
    if (waiting.length === 0) {
      this.sql.run(INDEX_PENDING.markAll);
      return;
    }
    let upTo = 0;
    let bytes = 0;
    for (const row of waiting) {
      bytes += Number(row.bytes);
      if (upTo > 0 && bytes > SEARCH_INDEX_BATCH_BYTES) break;
      upTo = Number(row.seq);
    }
    this.sql.run(INDEX_PENDING.insert, upTo);
    const everyOne = upTo === Number(waiting.at(-1)?.seq) && waiting.length < SEARCH_INDEX_BATCH;
    if (everyOne) this.sql.run(INDEX_PENDING.markAll);
    else this.sql.run(INDEX_PENDING.markUpTo, upTo, upTo);
  }
}

/**
 * The dedup comparison: the same content (body and file) answering the same message. A refused
 * reply_to never reaches it, so the retained message's reply_to is what this request would store.
 */
function sameRequest(previous: MessageRow, content: MessageContent, replyTo?: string): boolean {
  return sameContent(previous, content) && previous.replyTo === (replyTo ?? null);
}

function sentMessage(m: MessageRow): SentMessage {
  return { message_id: m.messageId, seq: m.seq, thread_id: m.threadId ?? m.messageId, reply_to: m.replyTo };
}
