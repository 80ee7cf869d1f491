/**
 * The channel catalog: every channel registers here when it is created and reports its figures
 * (channel/catalog-report.ts), since Durable Objects cannot be enumerated. Retroactive cleanup walks
 * it, the administrators' channel list pages through it, and the overview's totals are its sums.
 */

import type { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gt, inArray, lt, sql, sum } from 'drizzle-orm';
import type { ChannelKind } from '../../core/contract/models.js';
import type { RetentionDb } from './database.js';
import { channelBacklog, channels } from './schema.js';

export interface CatalogEntry {
  channel_id: string;
  kind: z.infer<typeof ChannelKind>;
  created_at: number;
}

/** A channel's figures in the catalog (times in ms). */
export interface ChannelStats {
  status: 'active' | 'dissolved';
  message_count: number;
  file_count: number;
  last_message_at: number | null;
}

/** One recipient's unread deliveries in a channel (times in ms); only recipients with any unread. */
export interface BacklogEntry {
  agent_id: string;
  unread: number;
  leased: number;
  parked: number;
  oldest_unread_at: number;
}

/**
 * What a channel reports about itself; `version` only moves forward per channel. `backlog`
 * replaces the channel's rows when present (absent: a channel of an older release, rows kept).
 */
export interface ChannelReport extends CatalogEntry, ChannelStats {
  version: number;
  backlog?: BacklogEntry[];
}

/** An agent's or the fleet's backlog, summed over channels (oldest_unread_at in ms, null: none). */
export interface BacklogTotals {
  unread: number;
  leased: number;
  parked: number;
  oldest_unread_at: number | null;
}

/** Recipients of one report kept (a report is bounded by the channel's participants anyway). */
const BACKLOG_ROWS = 2_000;
/** IDs asked at once (bound parameters per statement). */
const ID_SLICE = 50;

export interface CatalogTotals {
  private_channels: number;
  group_channels: number;
  messages: number;
  files: number;
}

const backlogSums = {
  unread: sql<number | null>`sum(${channelBacklog.unread})`,
  leased: sql<number | null>`sum(${channelBacklog.leased})`,
  parked: sql<number | null>`sum(${channelBacklog.parked})`,
  oldest: sql<number | null>`min(${channelBacklog.oldestUnreadAt})`,
};

function backlogTotals(
  row: { unread: number | null; leased: number | null; parked: number | null; oldest: number | null } | undefined,
): BacklogTotals {
  return {
    unread: Number(row?.unread ?? 0),
    leased: Number(row?.leased ?? 0),
    parked: Number(row?.parked ?? 0),
    oldest_unread_at: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
  };
}

/** What lowered limits would delete (POST /admin/settings/preview); bounds, equal when exact. */
export interface LimitImpact {
  channels: number;
  messages: { min: number; max: number };
  files: { min: number; max: number };
}

export class ChannelCatalog {
  constructor(private readonly db: RetentionDb) {}

  /** Adds channels to the catalog (idempotent): a channel calls this once, when it is created. */
  register(entries: readonly CatalogEntry[]): void {
    if (entries.length === 0) return;
    this.db
      .insert(channels)
      .values(entries.map((e) => ({ channelId: e.channel_id, kind: e.kind, createdAt: e.created_at })))
      .onConflictDoNothing()
      .run();
  }

  /**
   * A channel's latest figures (and its registration, the first time). A report older than the
   * one stored (a lower version, delivered late) changes nothing.
   */
  report(report: ChannelReport): void {
    const figures = {
      status: report.status,
      messageCount: report.message_count,
      fileCount: report.file_count,
      lastMessageAt: report.last_message_at,
      version: report.version,
    };
    this.db.transaction((tx) => {
      const applied = tx
        .insert(channels)
        .values({ channelId: report.channel_id, kind: report.kind, createdAt: report.created_at, ...figures })
        .onConflictDoUpdate({
          target: channels.channelId,
          set: figures,
          setWhere: sql`excluded.version > ${channels.version}`,
        })
        .returning({ n: channels.n })
        .all();
      if (applied.length === 0 || !report.backlog) return;
      tx.delete(channelBacklog).where(eq(channelBacklog.channelId, report.channel_id)).run();
      const rows = report.status === 'active' ? report.backlog.filter((b) => b.unread > 0).slice(0, BACKLOG_ROWS) : [];
      for (let i = 0; i < rows.length; i += ID_SLICE) {
        tx.insert(channelBacklog)
          .values(
            rows.slice(i, i + ID_SLICE).map((b) => ({
              channelId: report.channel_id,
              agentId: b.agent_id,
              unread: b.unread,
              leased: b.leased,
              parked: b.parked,
              oldestUnreadAt: b.oldest_unread_at,
            })),
          )
          .run();
      }
    });
  }

  /** The whole fleet's backlog and the agents with the most unread (then the oldest), `top` of them. */
  fleetBacklog(top: number): BacklogTotals & { top_agents: (BacklogTotals & { agent_id: string })[] } {
    const totals = this.db.select(backlogSums).from(channelBacklog).get();
    const unread = sql<number>`sum(${channelBacklog.unread})`;
    const topAgents = this.db
      .select({ agent_id: channelBacklog.agentId, ...backlogSums })
      .from(channelBacklog)
      .groupBy(channelBacklog.agentId)
      .orderBy(desc(unread), sql`min(${channelBacklog.oldestUnreadAt})`, channelBacklog.agentId)
      .limit(top)
      .all();
    return {
      ...backlogTotals(totals),
      top_agents: topAgents.map((r) => ({ agent_id: r.agent_id, ...backlogTotals(r) })),
    };
  }

  /** The backlog of each of `agentIds` that has any (an agent not answered has nothing unread). */
  agentBacklog(agentIds: readonly string[]): (BacklogTotals & { agent_id: string })[] {
    const out: (BacklogTotals & { agent_id: string })[] = [];
    const ids = [...new Set(agentIds)];
    for (let i = 0; i < ids.length; i += ID_SLICE) {
      const rows = this.db
        .select({ agent_id: channelBacklog.agentId, ...backlogSums })
        .from(channelBacklog)
        .where(inArray(channelBacklog.agentId, ids.slice(i, i + ID_SLICE)))
        .groupBy(channelBacklog.agentId)
        .all();
      for (const r of rows) out.push({ agent_id: r.agent_id, ...backlogTotals(r) });
    }
    return out;
  }

  /**
   * The administrators' channel list: a page of the catalog, newest channel first, without the
   * groups known to be dissolved. `before` is the previous page's last `n`.
   */
  adminPage(input: { before: number | null; kind?: 'private' | 'group'; limit: number }): {
    entries: { n: number; channel_id: string; kind: 'private' | 'group' }[];
    more: boolean;
  } {
    const rows = this.db
      .select({ n: channels.n, channel_id: channels.channelId, kind: channels.kind })
      .from(channels)
      .where(
        and(
          eq(channels.status, 'active'),
          input.before === null ? undefined : lt(channels.n, input.before),
          input.kind ? eq(channels.kind, input.kind) : undefined,
        ),
      )
      .orderBy(desc(channels.n))
      .limit(input.limit + 1)
      .all();
    return { entries: rows.slice(0, input.limit), more: rows.length > input.limit };
  }

  /** The overview's channel figures: sums over the catalog, no channel is asked. */
  totals(): CatalogTotals {
    const rows = this.db
      .select({
        kind: channels.kind,
        n: count(),
        messages: sum(channels.messageCount),
        files: sum(channels.fileCount),
      })
      .from(channels)
      .where(eq(channels.status, 'active'))
      .groupBy(channels.kind)
      .all();
    const of = (kind: 'private' | 'group') => rows.find((r) => r.kind === kind);
    return {
      private_channels: of('private')?.n ?? 0,
      group_channels: of('group')?.n ?? 0,
      messages: rows.reduce((total, r) => total + Number(r.messages ?? 0), 0),
      files: rows.reduce((total, r) => total + Number(r.files ?? 0), 0),
    };
  }

  /**
   * What limits of `maxMessages` messages and `maxFiles` messages with files would delete, over
   * every active channel, in one aggregate query (no channel is asked). Per channel of `mc`
   * messages and `fc` files: the message limit deletes `dm = mc - M` oldest messages, and
   * between `kmin` (the files that no longer fit among the messages left) and `kmax` (as many
   * as `dm` holds) of the files go with them; the file limit then deletes the oldest messages
   * with files beyond `F`. Which it is depends on where the files sit, which the catalog does not
   * know, so the answer is a range (one number whenever files play no part).
   */
  impact(maxMessages: number, maxFiles: number): LimitImpact {
    const row = this.db.get<{ channels: number; mmin: number; mmax: number; fmin: number; fmax: number }>(sql`
      with c as (
        select message_count as mc, file_count as fc, max(0, message_count - ${maxMessages}) as dm
        from channels where status = 'active'
      ), k as (
        select mc, fc, dm, max(0, fc - (mc - dm)) as kmin, min(fc, dm) as kmax from c
      )
      select
        coalesce(sum(dm + max(0, fc - kmax - ${maxFiles}) > 0), 0) as channels,
        coalesce(sum(dm + max(0, fc - kmax - ${maxFiles})), 0) as mmin,
        coalesce(sum(dm + max(0, fc - kmin - ${maxFiles})), 0) as mmax,
        coalesce(sum(max(kmin, fc - ${maxFiles}, 0)), 0) as fmin,
        coalesce(sum(max(kmax, fc - ${maxFiles}, 0)), 0) as fmax
      from k`);
    return {
      channels: Number(row?.channels ?? 0),
      messages: { min: Number(row?.mmin ?? 0), max: Number(row?.mmax ?? 0) },
      files: { min: Number(row?.fmin ?? 0), max: Number(row?.fmax ?? 0) },
    };
  }

  /**
   * The active channels with the most retained messages, then files (every channel has the same
   * limits, so these are the nearest to them). One ordered query with a small LIMIT.
   */
  fullest(limit: number): (CatalogEntry & ChannelStats)[] {
    return this.db
      .select()
      .from(channels)
      .where(eq(channels.status, 'active'))
      .orderBy(desc(channels.messageCount), desc(channels.fileCount))
      .limit(limit)
      .all()
      .map((r) => ({
        channel_id: r.channelId,
        kind: r.kind,
        created_at: r.createdAt,
        status: r.status,
        message_count: r.messageCount,
        file_count: r.fileCount,
        last_message_at: r.lastMessageAt,
      }));
  }

  has(channelId: string): boolean {
    return (
      this.db.select({ n: channels.n }).from(channels).where(eq(channels.channelId, channelId)).get() !== undefined
    );
  }

  /** A page of the catalog in creation order; `after` is the previous page's `next`. */
  list(after: number, limit: number): { channels: CatalogEntry[]; next: number | null } {
    const rows = this.db
      .select()
      .from(channels)
      .where(gt(channels.n, after))
      .orderBy(asc(channels.n))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    return {
      channels: page.map((r) => ({ channel_id: r.channelId, kind: r.kind, created_at: r.createdAt })),
      next: rows.length > limit ? (page.at(-1)?.n ?? null) : null,
    };
  }

  /** The next channels after `cursor` (a run's position), in creation order. */
  after(cursor: number, limit: number): (typeof channels.$inferSelect)[] {
    return this.db.select().from(channels).where(gt(channels.n, cursor)).orderBy(asc(channels.n)).limit(limit).all();
  }

  count(): number {
    return this.db.select({ n: count() }).from(channels).get()?.n ?? 0;
  }

  countAfter(cursor: number): number {
    return this.db.select({ n: count() }).from(channels).where(gt(channels.n, cursor)).get()?.n ?? 0;
  }
}
