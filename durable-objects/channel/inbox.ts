/**
 * A recipient's side of the channel: its counts (every poll), the candidates of a cross-channel
 * claim, claims (leases with a fresh token), ACKs, extends and releases. Each check-and-write is
 * one synchronous transaction, so two claimers can never lease the same delivery and an ACK's
 * check cannot be split from its write. core/domain/deliveries.ts decides every transition; this
 * module reads and writes the rows.
 *
 * Every statement is fixed SQL text (shared-sql.ts says why): these run on every poll, claim and
 * ACK. The claim statements are built once per pool and order at load time.
 */
import type { ClaimOrder } from '../../core/domain/claim-plan.js';
import {
  type AckRejection,
  acknowledged,
  claimed,
  type DeliveryClaimState,
  type DeliveryState,
  decideAck,
  decideLease,
  extended,
  type LeaseRejection,
  released,
} from '../../core/domain/deliveries.js';
import type { ClaimView } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import type * as schema from './schema.js';
import {
  type ChannelSql,
  type Db,
  MESSAGE_COLUMNS,
  messageRow,
  messageView,
  num,
  numOrNull,
  type Row,
  str,
  strOrNull,
} from './shared-sql.js';

export type DeliveryRow = typeof schema.deliveries.$inferSelect;

/** Which deliveries a claim takes: the ordinary ones, or (claim {parked: true}) the parked ones only. */
export type ClaimPool = 'claimable' | 'parked';

/** Which deliveries a claim statement takes, under which max_deliveries (0: no limit). */
export interface Pool {
  pool: ClaimPool;
  maxDeliveries: number;
}

/** Which deliveries a claim takes by default: the ordinary pool, no max_deliveries. */
const ORDINARY: Pool = { pool: 'claimable', maxDeliveries: 0 };

export interface InboxCounts {
  unread: number;
  claimable: number;
  leased: number;
  /** Ended leases of deliveries claimed max_deliveries times (core/domain/deliveries.ts isParked). */
  parked: number;
  /** Milliseconds since the epoch, null when nothing is unread. */
  oldest_unread_at: number | null;
}

/** What an extend or a release did to one item; `claim_expires_at` (ms) for an extend only. */
export type LeaseOutcome =
  | { message_id: string; status: 'extended'; claim_expires_at: number }
  | { message_id: string; status: 'released' }
  | { message_id: string; status: 'rejected'; code: LeaseRejection | 'message_purged' | 'not_found' };

export type AckOutcome =
  | { message_id: string; status: 'read' | 'already_read' }
  | { message_id: string; status: 'rejected'; code: AckRejection | 'message_purged' | 'not_found' };

const DELIVERY_COLUMNS =
  'd.seq as d_seq, d.recipient_id, d.state, d.claim_hash, d.claim_expires_at, d.replaced_hashes, d.ack_hash, d.ack_deadline, d.delivery_count';

/**
 * Unread (not read) deliveries of the agent (?1): count, the leased ones, the parked ones, the
 * oldest message time, with the participant check in the same statement: every poll of a pending
 * channel asks this, and a statement costs about as much in workerd's per-call overhead as its
 * lookups. Index lookups instead of a join per unread delivery: the count reads the covering index
 * (recipient, state, seq) only, the live-lease count (?2 now) visits leased rows only, and the
 * oldest time is that of the lowest unread seq, since created_at never decreases with seq in a
 * channel (sending.ts). sqlite3, 1,000 unread: 160-250 us -> 37-50 us; with 5, +2-5 us. Parked
 * (?3 max_deliveries, 0: none) are the ended leases of the PARKED rule, leased rows only.
 */
const COUNTS = `select (select state = 'active' from participants where agent_id = ?1) as active,
    (select count(*) from deliveries where recipient_id = ?1 and state in ('unread', 'leased')) as unread,
    (select count(*) from deliveries where recipient_id = ?1 and state = 'leased' and claim_expires_at > ?2) as leased,
    (select count(*) from deliveries where recipient_id = ?1 and state = 'leased' and claim_expires_at <= ?2
      and ?3 > 0 and delivery_count >= ?3) as parked,
    (select created_at from messages where seq =
      (select min(seq) from deliveries where recipient_id = ?1 and state in ('unread', 'leased'))) as oldest`;

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

const DELIVERY = `select ${DELIVERY_COLUMNS} from deliveries d where d.seq = ? and d.recipient_id = ?`;

/** Writes a delivery's claim state (claims and ACKs; core/domain/deliveries.ts decides it). */
const UPDATE_DELIVERY = `update deliveries set state = ?, claim_hash = ?, claim_expires_at = ?, replaced_hashes = ?,
    ack_hash = ?, ack_deadline = ?, delivery_count = ? where seq = ? and recipient_id = ?`;

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

function claimState(row: DeliveryRow): DeliveryClaimState {
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

export class ChannelInbox {
  constructor(
    private readonly db: Db,
    private readonly sql: ChannelSql,
  ) {}

  /**
   * The agent's counts here under `maxDeliveries` (0: nothing parks), or null when it is not an
   * active participant. Unread keeps parked deliveries; claimable leaves them out.
   */
  counts(agentId: string, now: number, maxDeliveries = 0): InboxCounts | null {
    const r = this.sql.first(COUNTS, agentId, now, maxDeliveries);
    if (r?.active !== 1) return null;
    const unread = num(r.unread ?? 0);
    const leased = num(r.leased ?? 0);
    const parked = num(r.parked ?? 0);
    return { unread, claimable: unread - leased - parked, leased, parked, oldest_unread_at: numOrNull(r.oldest) };
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
    const candidates = this.sql
      .all(CANDIDATES[pool.pool][order], agentId, now, limit, pool.maxDeliveries)
      .map((r) => ({ seq: num(r.seq), created_at: num(r.created_at) }));
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
    return this.db.transaction(() => {
      if (!this.sql.isActive(agentId)) return null;
      const where = this.sql.label();
      const rows = this.sql.all(CLAIMABLE[pool.pool][order], agentId, now, tokens.length, pool.maxDeliveries);
      const expiresAt = now + claimMs;
      return rows.map((r, i) => {
        const d = deliveryRow(r);
        const token = tokens[i]!;
        const next = claimed(claimState(d), token.hash, expiresAt);
        this.writeDelivery(d, agentId, next);
        return {
          message: messageView(where, messageRow(r)),
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
      const active = this.sql.isActive(agentId);
      return items.map((item) => {
        const { message_id } = item;
        if (!active) return { message_id, status: 'rejected' as const, code: 'not_found' as const };
        const message = this.sql.messageById(message_id);
        if (!message) {
          const code = this.sql.isPurged(message_id) ? ('message_purged' as const) : ('not_found' as const);
          return { message_id, status: 'rejected' as const, code };
        }
        const r = this.sql.first(DELIVERY, message.seq, agentId);
        if (!r) return { message_id, status: 'rejected' as const, code: 'not_found' as const };
        const row = deliveryRow(r);
        return decide(row, claimState(row), item);
      });
    });
  }

  private writeDelivery(row: DeliveryRow, agentId: string, next: DeliveryClaimState): void {
    this.sql.run(
      UPDATE_DELIVERY,
      next.state,
      next.claimHash,
      next.claimExpiresAt,
      JSON.stringify(next.replacedHashes),
      next.ackHash,
      next.ackDeadline,
      next.deliveryCount,
      row.seq,
      agentId,
    );
  }
}
