/**
 * The agent's inbox index: every channel the agent is in (for GET /channels) and, among them, the
 * ones that may hold unread deliveries for it (`pending`). Channels write it through their outbox
 * after each message commit; polls read it so that quiet channels cost nothing.
 *
 * `pending` is a hint that is only ever cleared by compare-and-delete: a poll that found a channel
 * empty clears it only if `gen` is still the one it read, so a note that arrived in between (and
 * bumped `gen`) is never lost. A note always follows its message's commit, so a clear based on a
 * read that missed the message is either rejected by `gen` or followed by the note setting it again.
 *
 * Group notes also carry the agent's membership and the group's membership version (see
 * applyMembership): the index lists a group channel only while the agent is an active member, and
 * keeps invitations apart for GET /groups. A note older than the membership it would change is
 * ignored, so notes delivered out of order (outbox retries) cannot revive a membership that ended.
 */
import { desc, eq, inArray } from 'drizzle-orm';
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite';
import type { ChannelKind } from '../../core/domain/ids.js';
import type { ChannelEntry, PendingChannel } from '../../core/rpc.js';
import { iso } from '../shared/database.js';
import { InboxHotSql } from './hot-sql.js';
import * as schema from './schema.js';

type Db = DrizzleSqliteDODatabase<typeof schema>;

/**
 * What a channel tells a participant's index after a message (or a membership change): the
 * channel-list entry's fields as the index stores them (null columns instead of absent fields, ms
 * instead of ISO text), plus the hints only the index needs.
 */
export type ChannelNote = Pick<ChannelEntry, 'channel_id' | 'kind'> & {
  peer_agent_id: string | null;
  group_id: string | null;
  name: string | null;
  /** Milliseconds since the epoch, or null when the channel has no message yet. */
  last_message_at: number | null;
  /** The agent may have a new unread delivery in this channel. */
  pending: boolean;
  /** Group channels: the agent's membership when the note was made, and the group's version then. */
  membership?: { state: 'active' | 'pending' | 'gone'; version: number } | null;
};

export interface GroupMembershipEntry {
  group_id: string;
  state: 'active' | 'pending';
}

export type { ChannelEntry, PendingChannel };

const { channels, groupMemberships } = schema;

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** The fixed-text statements (hot-sql.ts) over the storage drizzle was opened on (its `$client`). */
const hotSql = new WeakMap<Db, InboxHotSql>();
function hot(db: Db): InboxHotSql {
  let statements = hotSql.get(db);
  if (!statements) {
    statements = new InboxHotSql((db as unknown as { $client: DurableObjectStorage }).$client.sql);
    hotSql.set(db, statements);
  }
  return statements;
}

/**
 * Applies a group note's membership and answers whether the note may then touch the channel row
 * (with the `gen` a newly created row starts from). Leaving, dissolution or a pending invitation
 * drops the row, remembering its `gen`, so that a row created again on rejoin continues from it
 * and a poll's compare-and-delete from before the leave can never match the new row.
 */
function applyMembership(tx: Tx, note: ChannelNote): { touch: boolean; baseGen: number } {
  const membership = note.membership;
  if (!membership) return { touch: true, baseGen: 0 };
  const stored = tx.select().from(groupMemberships).where(eq(groupMemberships.groupId, note.channel_id)).get();
  if (stored && membership.version < stored.version) {
    // An older note: its message hint still counts while the agent is active, nothing else does.
    return { touch: stored.state === 'active', baseGen: stored.lastGen };
  }
  let lastGen = stored?.lastGen ?? 0;
  if (membership.state !== 'active') {
    const row = tx.select({ gen: channels.gen }).from(channels).where(eq(channels.channelId, note.channel_id)).get();
    if (row) {
      lastGen = Math.max(lastGen, row.gen);
      tx.delete(channels).where(eq(channels.channelId, note.channel_id)).run();
    }
  }
  const values = { state: membership.state, version: membership.version, lastGen };
  tx.insert(groupMemberships)
    .values({ groupId: note.channel_id, ...values })
    .onConflictDoUpdate({ target: groupMemberships.groupId, set: values })
    .run();
  return { touch: membership.state === 'active', baseGen: lastGen };
}

/**
 * Hint clears applied in memory (channel ID → the `gen` the clear was read at), so that applying a
 * poll's clears on the agent's next authentication writes nothing: an UPDATE there made that
 * authentication commit (WAL and fsync), about 0.2 commits per request of the mix. Every read of `pending` leaves
 * out a row whose `gen` is the one cleared, which is exactly what the compare-and-delete would have
 * left (a note that set the hint again bumped `gen`; one that did not also left `pending` alone).
 * The clears are written (the same compare-and-delete) in the next write that happens anyway: a
 * note's transaction, before the notes, or the agent's alarm. Losing them (eviction, a crash)
 * only leaves hints set, which the next poll repairs (worker/lib/stale-hints.ts).
 */
export class ClearedHints {
  private readonly gens = new Map<string, number>();

  get size(): number {
    return this.gens.size;
  }

  add(entries: readonly { channel_id: string; gen: number }[]): void {
    // `gen` only grows (a rejoined group's row continues from the old one, applyMembership), so a
    // clear read at a later `gen` is the only one that can still match.
    for (const { channel_id, gen } of entries)
      this.gens.set(channel_id, Math.max(gen, this.gens.get(channel_id) ?? gen));
  }

  /** Whether the hint of the row at `gen` is cleared here. */
  hides(channelId: string, gen: number): boolean {
    return this.gens.get(channelId) === gen;
  }

  /** The clears to write now, forgotten here. */
  take(): { channel_id: string; gen: number }[] {
    const entries = [...this.gens].map(([channel_id, gen]) => ({ channel_id, gen }));
    this.gens.clear();
    return entries;
  }
}

/**
 * Applies channel notes in one transaction; `cleared` (the clears held in memory) are written
 * first, in the same transaction, so they cost no commit of their own and a pending note in the
 * same batch still bumps `gen` and sets its hint again after them.
 */
export function noteChannels(db: Db, notes: readonly ChannelNote[], cleared?: ClearedHints): void {
  const clears = cleared?.take() ?? [];
  db.transaction((tx) => {
    for (const entry of clears) hot(db).clearPending(entry.channel_id, entry.gen);
    for (const note of notes) {
      const { touch, baseGen } = applyMembership(tx, note);
      if (!touch) continue;
      // Notes can arrive out of order (outbox retries): the channel list only moves forward.
      hot(db).upsertChannel(note, baseGen);
    }
  });
}

/** The channels with a hint set, leaving out those cleared in memory (`cleared`). */
export function pendingChannels(db: Db, kind?: ChannelKind, cleared?: ClearedHints): PendingChannel[] {
  const rows = hot(db).pendingChannels(kind);
  return cleared && cleared.size > 0 ? rows.filter((row) => !cleared.hides(row.channel_id, row.gen)) : rows;
}

/** Compare-and-delete of hints: each is cleared only if no note arrived since `gen` was read. */
export function clearPending(db: Db, entries: readonly { channel_id: string; gen: number }[]): void {
  db.transaction(() => {
    for (const entry of entries) hot(db).clearPending(entry.channel_id, entry.gen);
  });
}

export function listChannels(db: Db, kind?: ChannelKind): ChannelEntry[] {
  const rows = db
    .select()
    .from(channels)
    .where(kind ? eq(channels.kind, kind) : undefined)
    .orderBy(desc(channels.lastMessageAt), channels.channelId)
    .all();
  return rows.map((row) => ({
    channel_id: row.channelId,
    kind: row.kind,
    ...(row.peerAgentId !== null && { peer_agent_id: row.peerAgentId }),
    ...(row.groupId !== null && { group_id: row.groupId }),
    ...(row.name !== null && { name: row.name }),
    last_message_at: row.lastMessageAt ? iso(row.lastMessageAt) : null,
  }));
}

/** The groups the agent is an active member of or invited to, as the groups last reported. */
export function groupMembershipList(db: Db): GroupMembershipEntry[] {
  return db
    .select({ group_id: groupMemberships.groupId, state: groupMemberships.state })
    .from(groupMemberships)
    .where(inArray(groupMemberships.state, ['active', 'pending']))
    .all() as GroupMembershipEntry[];
}

/** Bound parameters per statement, well under SQLite's limit in Durable Objects. */
const ID_SLICE = 50;

/**
 * Those of `ids` that this agent's index knows: a channel it is in, or a group it is in, was
 * invited to, or left (so a former member still gets the group's own answer, not_group_member and
 * the like). An ID outside this set names a channel the agent is a stranger to (or none at all),
 * and a stranger gets not_found (not_invited for join) whether the channel exists or not, so the
 * worker answers that without opening the channel's object. Notes reach the index before the
 * channel answers the change that made them (channel-do.ts); only a failed delivery, retried by
 * the channel's alarm, leaves a window in which the agent is answered as a stranger, as its channel
 * list and inbox already lag in that window.
 */
export function knownChannels(db: Db, ids: readonly string[]): string[] {
  const wanted = [...new Set(ids)];
  const known = new Set<string>();
  for (let i = 0; i < wanted.length; i += ID_SLICE) {
    for (const id of hot(db).known(wanted.slice(i, i + ID_SLICE))) known.add(id);
  }
  return [...known];
}

/** Every channel and group this index knows, in any state (for the removal of a deleted agent). */
export function everyChannel(db: Db): string[] {
  const ids = new Set(
    db
      .select({ id: channels.channelId })
      .from(channels)
      .all()
      .map((row) => row.id),
  );
  for (const row of db.select({ id: groupMemberships.groupId }).from(groupMemberships).all()) ids.add(row.id);
  return [...ids];
}
