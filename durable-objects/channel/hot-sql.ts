/**
 * The channel's hot-path statements (every send, poll, claim and ACK) as fixed SQL text over the
 * object's `ctx.storage.sql`, not drizzle's query builder. Why: profiles of the mixed workload
 * (docs/benchmarks.md) showed drizzle building the SQL string of each statement anew costing more
 * of workerd's one thread than SQLite running it; workerd caches a prepared statement per SQL
 * text, so fixed text is both built and prepared once. drizzle stays for the schema, the
 * migrations and every cold path (store.ts); the column names here are those of schema.ts, and the
 * tests of store.ts cover these statements like any other.
 *
 * All of these run inside the caller's transaction when there is one: drizzle's durable-sqlite
 * transaction is `transactionSync` on the same storage, and `sql.exec` joins it.
 */
import type { AttachmentRecord } from '../../core/domain/content.js';
import type { DeliveryState } from '../../core/domain/deliveries.js';
import type * as schema from './schema.js';

export type MessageRow = typeof schema.messages.$inferSelect;
export type DeliveryRow = typeof schema.deliveries.$inferSelect;
export type ChannelRow = typeof schema.channel.$inferSelect;
type Row = Record<string, SqlStorageValue>;
/** Which deliveries a claim statement takes, under which max_deliveries (0: no limit). */
export interface Pool {
  pool: ClaimPool;
  maxDeliveries: number;
}

const MESSAGE_COLUMNS =
  'm.seq, m.message_id, m.sender_id, m.body, m.created_at, m.attachment, m.reply_to, m.thread_id, m.sender_name';
const DELIVERY_COLUMNS =
  'd.seq as d_seq, d.recipient_id, d.state, d.claim_hash, d.claim_expires_at, d.replaced_hashes, d.ack_hash, d.ack_deadline, d.delivery_count';

/** Which deliveries a claim takes: the ordinary ones, or (claim {parked: true}) the parked ones only. */
export type ClaimPool = 'claimable' | 'parked';

/**
 * An ended lease that is not parked (?2 now, ?4 max_deliveries, 0: no limit), and one that is
 * (core/domain/deliveries.ts isParked): the two conditions split the ended leases exactly.
 */
const ENDED = `state = 'leased' and claim_expires_at <= ?2`;
const NOT_PARKED = `(?4 = 0 or delivery_count < ?4)`;
const PARKED = `?4 > 0 and delivery_count >= ?4`;

/**
 * The seqs of an agent's claimable (or parked) deliveries (?1 the agent, ?2 now, ?3 the limit, ?4
 * max_deliveries), best first. Two ranges of the deliveries_recipient index (recipient, state,
 * seq), each already in seq order, merged: an agent's read deliveries (up to the message cap in
 * every channel it has read) are never visited. The former single query (`state = 'unread' or
 * (state = 'leased' and …)`) could use the index on the recipient only, so it walked every read
 * delivery and sorted the rest. Parked deliveries are in the leased range only.
 */
function claimableSeqs(direction: 'asc' | 'desc', pool: ClaimPool): string {
  if (pool === 'parked') {
    return `select seq from deliveries where recipient_id = ?1 and ${ENDED} and ${PARKED}
      order by seq ${direction} limit ?3`;
  }
  return `select seq from deliveries where recipient_id = ?1 and state = 'unread'
    union all
    select seq from deliveries where recipient_id = ?1 and ${ENDED} and ${NOT_PARKED}
    order by seq ${direction} limit ?3`;
}

type ByOrder = Record<'oldest' | 'newest', string>;

function byPool(text: (direction: 'asc' | 'desc', pool: ClaimPool) => string): Record<ClaimPool, ByOrder> {
  const orders = (pool: ClaimPool): ByOrder => ({ oldest: text('asc', pool), newest: text('desc', pool) });
  return { claimable: orders('claimable'), parked: orders('parked') };
}

const CANDIDATES = byPool(
  (direction, pool) =>
    `select x.seq, m.created_at from (${claimableSeqs(direction, pool)}) x join messages m on m.seq = x.seq order by x.seq ${direction}`,
);

const CLAIMABLE = byPool(
  (direction, pool) => `select ${DELIVERY_COLUMNS}, ${MESSAGE_COLUMNS} from (${claimableSeqs(direction, pool)}) x
    join deliveries d on d.seq = x.seq and d.recipient_id = ?1 join messages m on m.seq = x.seq
    order by x.seq ${direction}`,
);

/** The claim statements' texts, for the test that checks their query plans. */
export const CLAIM_SQL = { candidates: CANDIDATES, claimable: CLAIMABLE };

/** History's statements by shape: order, with or without a cursor, with or without a thread. */
type HistoryShape = `${'asc' | 'desc'}${'' | '-after'}${'' | '-thread'}`;
const HISTORY = {} as Record<HistoryShape, string>;
for (const order of ['asc', 'desc'] as const) {
  for (const after of [false, true]) {
    for (const thread of [false, true]) {
      const where = [
        after ? (order === 'asc' ? 'm.seq > ?' : 'm.seq < ?') : null,
        thread ? '(m.thread_id = ? or (m.message_id = ? and m.thread_id is null))' : null,
      ].filter((w) => w !== null);
      HISTORY[`${order}${after ? '-after' : ''}${thread ? '-thread' : ''}` as const] =
        `select ${MESSAGE_COLUMNS} from messages m${where.length > 0 ? ` where ${where.join(' and ')}` : ''}
          order by m.seq ${order} limit ?`;
    }
  }
}

// Column values as schema.ts types them (the statements name every column they read).
type Value = SqlStorageValue | undefined;
const str = (v: Value): string => v as string;
const num = (v: Value): number => v as number;
const strOrNull = (v: Value): string | null => (v === null || v === undefined ? null : (v as string));
const numOrNull = (v: Value): number | null => (v === null || v === undefined ? null : (v as number));

function messageRow(r: Row): MessageRow {
  return {
    seq: num(r.seq),
    messageId: str(r.message_id),
    senderId: str(r.sender_id),
    body: str(r.body),
    createdAt: num(r.created_at),
    attachment:
      r.attachment === null || r.attachment === undefined ? null : (JSON.parse(str(r.attachment)) as AttachmentRecord),
    replyTo: strOrNull(r.reply_to),
    threadId: strOrNull(r.thread_id),
    senderName: strOrNull(r.sender_name),
  };
}

function deliveryRow(r: Row): DeliveryRow {
  return {
    seq: num(r.d_seq),
    recipientId: str(r.recipient_id),
    state: str(r.state) as DeliveryState,
    claimHash: strOrNull(r.claim_hash),
    claimExpiresAt: numOrNull(r.claim_expires_at),
    replacedHashes: JSON.parse(str(r.replaced_hashes)) as string[],
    ackHash: strOrNull(r.ack_hash),
    ackDeadline: numOrNull(r.ack_deadline),
    deliveryCount: num(r.delivery_count),
  };
}

export class ChannelHotSql {
  constructor(private readonly sql: SqlStorage) {}

  private first(query: string, ...params: SqlStorageValue[]): Row | undefined {
    return this.sql.exec<Row>(query, ...params).toArray()[0];
  }

  private run(query: string, ...params: SqlStorageValue[]): void {
    this.sql.exec(query, ...params);
  }

  participantState(agentId: string): string | undefined {
    return this.first('select state from participants where agent_id = ?', agentId)?.state as string | undefined;
  }

  channelRow(): ChannelRow | undefined {
    const r = this.first(
      `select channel_id, kind, name, created_at, last_seq, last_created_at, status, membership_version,
        catalog_version, indexed_seq from channel where id = 1`,
    );
    return (
      r && {
        id: 1,
        channelId: str(r.channel_id),
        kind: str(r.kind) as ChannelRow['kind'],
        name: strOrNull(r.name),
        createdAt: num(r.created_at),
        lastSeq: num(r.last_seq),
        lastCreatedAt: num(r.last_created_at),
        status: str(r.status) as ChannelRow['status'],
        membershipVersion: num(r.membership_version),
        catalogVersion: num(r.catalog_version),
        indexedSeq: num(r.indexed_seq),
      }
    );
  }

  /**
   * Adds the retained messages the search index does not have yet (seq above indexed_seq) in one
   * batch, and moves indexed_seq to last_seq: whatever lies in between is either indexed now or
   * gone (purged unindexed, which the delete trigger skipped). One FTS5 segment per batch instead
   * of one per send (migrations/channel/0006_deferred_search_index.sql). Run inside the caller's
   * transaction or synchronous turn, so the two statements commit together.
   */
  indexPending(): void {
    const waiting = this.first('select last_seq > indexed_seq as waiting from channel where id = 1');
    if (!waiting?.waiting) return;
    this.run(
      `insert into messages_fts (rowid, body)
        select seq, body from messages where seq > (select indexed_seq from channel where id = 1) order by seq`,
    );
    this.run('update channel set indexed_seq = last_seq where id = 1 and indexed_seq < last_seq');
  }

  /** The sender's latest retained message here (its dedup pointer), if any. */
  comparisonMessage(senderId: string): MessageRow | undefined {
    const r = this.first(
      `select ${MESSAGE_COLUMNS} from dedup p join messages m on m.seq = p.seq where p.sender_id = ?`,
      senderId,
    );
    return r && messageRow(r);
  }

  messageById(messageId: string): { seq: number; threadId: string | null } | undefined {
    const r = this.first('select seq, thread_id from messages where message_id = ?', messageId);
    return r && { seq: num(r.seq), threadId: strOrNull(r.thread_id) };
  }

  /**
   * The message, the channel's counters, a delivery for every active participant but the sender,
   * the sender's dedup pointer and the outbox rows for the participants' indexes: the writes of
   * every send, in the caller's transaction.
   */
  insertMessage(m: MessageRow): void {
    this.run(
      `insert into messages (seq, message_id, sender_id, body, created_at, attachment, reply_to, thread_id, sender_name)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      m.seq,
      m.messageId,
      m.senderId,
      m.body,
      m.createdAt,
      m.attachment === null ? null : JSON.stringify(m.attachment),
      m.replyTo,
      m.threadId,
      m.senderName,
    );
    this.run('update channel set last_seq = ?, last_created_at = ? where id = 1', m.seq, m.createdAt);
    this.run(
      `insert into deliveries (seq, recipient_id, state)
        select ?, agent_id, 'unread' from participants where state = 'active' and agent_id != ?`,
      m.seq,
      m.senderId,
    );
    this.run(
      'insert into dedup (sender_id, seq) values (?, ?) on conflict (sender_id) do update set seq = excluded.seq',
      m.senderId,
      m.seq,
    );
    this.run(
      `insert into notify_outbox (agent_id, pending, last_message_at)
        select agent_id, agent_id != ?, ? from participants where state = 'active'
        on conflict (agent_id) do update set
          pending = pending or excluded.pending,
          last_message_at = max(coalesce(last_message_at, 0), excluded.last_message_at),
          version = version + 1`,
      m.senderId,
      m.createdAt,
    );
  }

  /** The seq of the newest message beyond the newest `keep` (retention's edge), if any. */
  retentionEdge(keep: number): number | undefined {
    const r = this.first('select seq from messages order by seq desc limit 1 offset ?', keep);
    return r && num(r.seq);
  }

  /**
   * Unread (not read) deliveries of the agent: count, the leased ones, the oldest message time.
   * Three index lookups instead of a join per unread delivery: the count reads the covering index
   * (recipient, state, seq) only, the live-lease count visits leased rows only, and the oldest
   * time is that of the lowest unread seq, since created_at never decreases with seq in a channel
   * (store.ts insertMessage). sqlite3, 1,000 unread: 160-250 us -> 37-50 us; with 5, +2-5 us.
   * Parked (?3 max_deliveries, 0: none) are the ended leases of the PARKED rule, leased rows only.
   */
  counts(
    agentId: string,
    now: number,
    maxDeliveries: number,
  ): { active: boolean; unread: number; leased: number; parked: number; oldest: number | null } {
    // The participant check rides in the same statement: every poll of a pending channel asks this,
    // and a statement costs about as much in workerd's per-call overhead as its lookups.
    const r = this.first(
      `select (select state = 'active' from participants where agent_id = ?1) as active,
        (select count(*) from deliveries where recipient_id = ?1 and state in ('unread', 'leased')) as unread,
        (select count(*) from deliveries where recipient_id = ?1 and state = 'leased' and claim_expires_at > ?2) as leased,
        (select count(*) from deliveries where recipient_id = ?1 and state = 'leased' and claim_expires_at <= ?2
          and ?3 > 0 and delivery_count >= ?3) as parked,
        (select created_at from messages where seq =
          (select min(seq) from deliveries where recipient_id = ?1 and state in ('unread', 'leased'))) as oldest`,
      agentId,
      now,
      maxDeliveries,
    );
    return {
      active: r?.active === 1,
      unread: num(r?.unread ?? 0),
      leased: num(r?.leased ?? 0),
      parked: num(r?.parked ?? 0),
      oldest: numOrNull(r?.oldest ?? null),
    };
  }

  /**
   * The agent's claimable deliveries (unread, or an ended lease not parked) or its parked ones, in
   * seq order, with their messages.
   */
  claimable(agentId: string, now: number, order: 'oldest' | 'newest', limit: number, pool: Pool) {
    const rows = this.sql.exec<Row>(CLAIMABLE[pool.pool][order], agentId, now, limit, pool.maxDeliveries).toArray();
    return rows.map((r) => ({ d: deliveryRow(r), m: messageRow(r) }));
  }

  /** Seq and creation time of the agent's claimable deliveries, for the cross-channel merge. */
  claimCandidates(agentId: string, now: number, order: 'oldest' | 'newest', limit: number, pool: Pool) {
    return this.sql
      .exec<Row>(CANDIDATES[pool.pool][order], agentId, now, limit, pool.maxDeliveries)
      .toArray()
      .map((r) => ({ seq: num(r.seq), created_at: num(r.created_at) }));
  }

  delivery(seq: number, agentId: string): DeliveryRow | undefined {
    const r = this.first(
      `select ${DELIVERY_COLUMNS} from deliveries d where d.seq = ? and d.recipient_id = ?`,
      seq,
      agentId,
    );
    return r && deliveryRow(r);
  }

  /** Writes a delivery's claim state (claims and ACKs, core/domain/deliveries.ts decides it). */
  updateDelivery(seq: number, agentId: string, next: Omit<DeliveryRow, 'seq' | 'recipientId'>): void {
    this.run(
      `update deliveries set state = ?, claim_hash = ?, claim_expires_at = ?, replaced_hashes = ?, ack_hash = ?,
        ack_deadline = ?, delivery_count = ? where seq = ? and recipient_id = ?`,
      next.state,
      next.claimHash,
      next.claimExpiresAt,
      JSON.stringify(next.replacedHashes),
      next.ackHash,
      next.ackDeadline,
      next.deliveryCount,
      seq,
      agentId,
    );
  }

  /** A remembered purged message (its tombstone): its thread, null when it was a root. */
  purgedThread(messageId: string): { threadId: string | null } | undefined {
    const r = this.first('select thread_id from purged where message_id = ?', messageId);
    return r && { threadId: strOrNull(r.thread_id) };
  }

  /**
   * A history page by seq: `limit` messages after (asc) or before (desc) `afterSeq`, optionally of
   * one thread only (the root, thread_id null with its own ID, and its replies). One fixed text
   * per shape (HISTORY), so each keeps its own plan: the seq range on the primary key, the thread
   * on messages_thread and the message_id index.
   */
  historyRows(afterSeq: number | null, limit: number, order: 'asc' | 'desc', threadId?: string): MessageRow[] {
    const text = HISTORY[`${order}${afterSeq === null ? '' : '-after'}${threadId === undefined ? '' : '-thread'}`];
    const params: SqlStorageValue[] = [];
    if (afterSeq !== null) params.push(afterSeq);
    if (threadId !== undefined) params.push(threadId, threadId);
    return this.sql
      .exec<Row>(text, ...params, limit)
      .toArray()
      .map(messageRow);
  }

  isPurged(messageId: string): boolean {
    return this.first('select 1 as x from purged where message_id = ?', messageId) !== undefined;
  }

  participants(): { id: string; state: string }[] {
    return this.sql
      .exec<Row>('select agent_id, state from participants')
      .toArray()
      .map((r) => ({ id: str(r.agent_id), state: str(r.state) }));
  }

  outboxRows(): { agentId: string; pending: boolean; lastMessageAt: number | null; version: number }[] {
    return this.sql
      .exec<Row>('select agent_id, pending, last_message_at, version from notify_outbox')
      .toArray()
      .map((r) => ({
        agentId: str(r.agent_id),
        pending: r.pending === 1,
        lastMessageAt: numOrNull(r.last_message_at),
        version: num(r.version),
      }));
  }

  /** Compare-and-delete of a delivered outbox row: only the version whose note went out. */
  deleteOutboxRow(agentId: string, version: number): void {
    this.run('delete from notify_outbox where agent_id = ? and version = ?', agentId, version);
  }

  /**
   * After every write: whether deletions are owed (jobs, or copies in flight) and whether the
   * retention catalog has confirmed this channel, in one statement instead of three.
   */
  afterWriteState(): { work: boolean; cataloged: boolean } {
    const r = this.first(
      `select exists(select 1 from deletion_jobs) or exists(select 1 from pending_objects) as work,
        exists(select 1 from retention_catalog) as cataloged`,
    );
    return { work: r?.work === 1, cataloged: r?.cataloged === 1 };
  }

  /**
   * What a group check needs about one agent: the channel's kind and status and that agent's
   * participant row (null columns when it has none), not every participant. Undefined: no channel.
   */
  groupAccessRow(
    agentId: string,
  ): { kind: string; status: string; state: string | null; role: string | null } | undefined {
    const r = this.first(
      `select c.kind, c.status, p.state, p.role from channel c
        left join participants p on p.agent_id = ? where c.id = 1`,
      agentId,
    );
    return r && { kind: str(r.kind), status: str(r.status), state: strOrNull(r.state), role: strOrNull(r.role) };
  }
}
